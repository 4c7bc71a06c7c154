import { Client, SSEClientTransport, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';
import type { Logger } from 'pino';
import { labelOf, type UpstreamConfig } from './config';
import { UpstreamSubscriptions } from './subscriptions';

/** Where an upstream is: starting (or restarting), serving, or waiting to start again. */
export type UpstreamState = 'starting' | 'up' | 'down' | 'closed';

/** What an upstream tells the gateway as it comes and goes, and as its lists change. */
export interface UpstreamListener {
  /** Connected (again): list everything. Its subscriptions: how to hear of a resource's changes. */
  up(client: Client, subscriptions: UpstreamSubscriptions): Promise<void>;
  /** Gone: hide its entries until it is back. */
  down(reason: string): void;
  listChanged(kind: 'tools' | 'prompts' | 'resources'): void;
  resourceUpdated(uri: string): void;
  log(params: { level: string; logger?: string; data?: unknown }): void;
  progress(params: { progressToken: string | number; progress: number; total?: number; message?: string }): void;
}

export interface UpstreamOptions {
  /** The gateway's name and version, told to the upstream as its client. */
  clientInfo: { name: string; version: string };
  logger: Logger;
  /** The first wait before starting again after a failure; it doubles up to `maxBackoffMs`. Default 500 ms. */
  backoffMs?: number;
  /** Default 30 s. */
  maxBackoffMs?: number;
  /** How long starting may take (the process spawned and initialize answered). Default 30 s. */
  connectTimeoutMs?: number;
  /** Extra client capabilities told to the upstream (what the gateway can forward). */
  capabilities?: Record<string, unknown>;
  /** Installs the upstream's requests to the client (elicitation, sampling, roots) on a new connection. */
  onClient?: (client: Client) => void;
  /** How often an HTTP upstream is pinged while up, to notice it gone between calls. Default 15 s; 0: never. */
  pingIntervalMs?: number;
}

/** Up at least this long, a connection that ends restarts from the first backoff step. */
const STABLE_MS = 10_000;

/** The most pages of one list the gateway reads from an upstream (a bound on a cursor that never ends). */
const MAX_PAGES = 1000;
/** How long the era probe (`server/discover`) may take, at most. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * One upstream server, kept connected: started (a process over stdio) or reached (over HTTP) with
 * the official client in whichever era the upstream speaks (2026-07-28 when it answers
 * `server/discover`, else 2025-11-25), and started again with backoff whenever it ends or cannot
 * be reached.
 */
export class Upstream {
  state: UpstreamState = 'starting';
  /** Why it is down, for errors told to clients (never its credentials). */
  reason = 'starting';
  private current?: Client;
  private attempt = 0;
  private timer?: NodeJS.Timeout;
  private upSince = 0;
  private listing = false;
  private pinger?: NodeJS.Timeout;
  private subscriptions?: UpstreamSubscriptions;
  private stdio?: StdioClientTransport;

  constructor(
    readonly config: UpstreamConfig,
    private readonly listener: UpstreamListener,
    private readonly options: UpstreamOptions,
  ) {}

  /** Whether its first listing after a start is over (up and listed, or down). */
  get settled(): boolean {
    return this.state !== 'starting' && !this.listing;
  }

  /** The connected client, when it is up. */
  get client(): Client | undefined {
    return this.state === 'up' ? this.current : undefined;
  }

  /** The protocol version it speaks on the current connection (2026-07-28 or 2025-11-25), while it is up. */
  get protocolVersion(): string | undefined {
    return this.client?.getNegotiatedProtocolVersion();
  }

  /** The process id of a stdio upstream while it is up. */
  get pid(): number | undefined {
    return this.state === 'up' ? (this.stdio?.pid ?? undefined) : undefined;
  }

  /** How errors name it: its key, and what it runs or where it is. */
  get label(): string {
    return labelOf(this.config);
  }

  start(): void {
    void this.connect();
  }

  /**
   * A request to it failed on the way (its connection refused or reset): taken as down at once,
   * its entries hidden and a new start scheduled, as when its process exits.
   */
  lost(reason: string): void {
    if (this.state !== 'up' || !this.current) return;
    const client = this.current;
    this.current = undefined;
    this.closeSubscriptions();
    void client.close().catch(() => undefined);
    this.failed(reason);
  }

  /** Stops it for good: no new start, its process ended or its connection closed. */
  async close(): Promise<void> {
    this.state = 'closed';
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    const client = this.current;
    this.current = undefined;
    this.closeSubscriptions();
    await client?.close().catch(() => undefined);
  }

  private closeSubscriptions(): void {
    void this.subscriptions?.close();
    this.subscriptions = undefined;
  }

  private async connect(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'starting';
    const client = new Client(this.options.clientInfo, {
      capabilities: this.options.capabilities ?? {},
      // A stdio server silent to server/discover for this long is taken as a 2025-11-25 one.
      versionNegotiation: { mode: 'auto', probe: { timeoutMs: Math.min(this.options.connectTimeoutMs ?? 30_000, PROBE_TIMEOUT_MS) } },
      listMaxPages: MAX_PAGES,
    });
    this.options.onClient?.(client);
    this.watch(client);
    let transport: Transport;
    try {
      transport = this.transport();
      await client.connect(transport, { timeout: this.options.connectTimeoutMs ?? 30_000 });
    } catch (err) {
      await client.close().catch(() => undefined);
      this.failed(`cannot start: ${describe(err)}`);
      return;
    }
    if (this.state !== 'starting') {
      await client.close().catch(() => undefined);
      return;
    }
    this.current = client;
    this.upSince = Date.now();
    client.onclose = () => {
      if (this.current !== client) return;
      this.current = undefined;
      this.closeSubscriptions();
      this.failed(this.config.transport === 'stdio' ? 'its process exited' : 'its connection closed');
    };
    try {
      this.state = 'up';
      this.listing = true;
      this.subscriptions = new UpstreamSubscriptions(client, {
        logger: this.options.logger,
        key: this.config.key,
        ended: (why) => this.current === client && this.lost(why),
      });
      await this.subscriptions.open();
      await this.listener.up(client, this.subscriptions);
      this.startPinging(client);
      const server = client.getServerVersion();
      this.options.logger.info({ upstream: this.config.key, server: server && `${server.name} ${server.version}`, protocolVersion: client.getNegotiatedProtocolVersion() }, 'upstream up');
    } catch (err) {
      this.current = undefined;
      this.closeSubscriptions();
      await client.close().catch(() => undefined);
      this.failed(`cannot list its entries: ${describe(err)}`);
    } finally {
      this.listing = false;
    }
  }

  private transport(): Transport {
    const c = this.config;
    if (c.transport === 'stdio') {
      const stdio = new StdioClientTransport({ command: c.command, args: [...c.args], env: { ...getDefaultEnvironment(), ...c.env }, cwd: c.cwd, stderr: 'pipe' });
      this.stdio = stdio;
      // The upstream's stderr is its log: kept in the gateway's, line by line, never on stdout.
      stdio.stderr?.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) this.options.logger.debug({ upstream: c.key, stderr: line.slice(0, 2000) }, 'upstream stderr');
      });
      return stdio;
    }
    const init = { headers: { ...c.headers } };
    return c.transport === 'sse' ? new SSEClientTransport(new URL(c.url), { requestInit: init }) : new StreamableHTTPClientTransport(new URL(c.url), { requestInit: init });
  }

  /** Its notifications: unsolicited (2025-11-25), or on the subscriptions/listen stream and a request's own stream (2026-07-28). */
  private watch(client: Client): void {
    const l = this.listener;
    client.setNotificationHandler('notifications/tools/list_changed', () => l.listChanged('tools'));
    client.setNotificationHandler('notifications/prompts/list_changed', () => l.listChanged('prompts'));
    client.setNotificationHandler('notifications/resources/list_changed', () => l.listChanged('resources'));
    client.setNotificationHandler('notifications/resources/updated', (n) => l.resourceUpdated(n.params.uri));
    client.setNotificationHandler('notifications/message', (n) => l.log(n.params));
    // The gateway gives each forwarded request a progress token of its own and routes by it.
    client.setNotificationHandler('notifications/progress', (n) => l.progress(n.params));
    client.onerror = (err) => this.options.logger.debug({ upstream: this.config.key, err }, 'upstream transport error');
  }

  /**
   * An HTTP upstream has no connection whose end says it is gone: a ping now and then does
   * (`server/discover` in 2026-07-28, which has no ping).
   */
  private startPinging(client: Client): void {
    const every = this.options.pingIntervalMs ?? 15_000;
    if (this.config.transport === 'stdio' || every <= 0) return;
    clearInterval(this.pinger);
    this.pinger = setInterval(() => {
      if (this.current !== client) return;
      const options = { timeout: Math.max(every, 5_000) };
      (client.getProtocolEra() === 'modern' ? client.discover(options) : client.ping(options)).catch((err: unknown) => {
        if ((err as { code?: unknown }).code === -32601) return; // answers, just not to ping
        this.lost(`it did not answer a ping: ${describe(err)}`);
      });
    }, every);
    this.pinger.unref();
  }

  /** Down: its entries hidden, and a new start after the backoff. */
  private failed(reason: string): void {
    if (this.state === 'closed') return;
    clearInterval(this.pinger);
    const wasUp = this.state === 'up';
    if (wasUp && Date.now() - this.upSince >= STABLE_MS) this.attempt = 0;
    const base = this.options.backoffMs ?? 500;
    const delay = Math.min(this.options.maxBackoffMs ?? 30_000, base * 2 ** this.attempt);
    this.attempt++;
    this.state = 'down';
    this.reason = reason;
    this.listener.down(reason);
    this.options.logger.warn({ upstream: this.config.key, reason, retryInMs: delay }, `upstream ${this.label} is down: ${reason}`);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.connect(), delay);
    this.timer.unref();
  }
}

function describe(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0]!.slice(0, 300);
}
