import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

/**
 * The simulated users: `legacy` ones speak 2025-11-25 through the official SDK 1.x client (a
 * session, its GET stream left open, elicitation answered), `modern` ones 2026-07-28 through
 * @modelcontextprotocol/client 2.x (no session, a subscriptions/listen stream left open). Each
 * runs sessions of a random lifetime back to back, so clients reconnect all along; a session ends
 * with a DELETE, a plain close, or by just vanishing.
 */

export interface TrafficOptions {
  url: string;
  clients: number;
  /** Fraction of the clients that are 2026-07-28 clients (0..1). */
  modernShare: number;
  /** Lifetime of one client session, ms (random between the two). */
  sessionMs: [number, number];
  /** Pause between two operations of one client, ms (random between the two). */
  thinkMs: [number, number];
  /** Per-note delay of the export tool (its progress notifications come this often). */
  exportDelayMs: number;
  requestTimeoutMs: number;
}

interface OpStat {
  ok: number;
  failed: number;
  totalMs: number;
}

export class TrafficStats {
  readonly ops = new Map<string, OpStat>();
  readonly errors = new Map<string, number>();
  progress = 0;
  notifications = 0;
  sessionsOpened = 0;
  sessionsDeleted = 0;
  sessionsAbandoned = 0;

  record(op: string, ms: number, err?: unknown): void {
    // A call cancelled on purpose ended as the client wanted.
    if (err !== undefined && op.endsWith('-cancel') && messageOf(err).includes(CANCEL_REASON)) err = undefined;
    let stat = this.ops.get(op);
    if (!stat) this.ops.set(op, (stat = { ok: 0, failed: 0, totalMs: 0 }));
    stat.totalMs += ms;
    if (err === undefined) stat.ok++;
    else {
      stat.failed++;
      const text = `${op}: ${messageOf(err)}`.slice(0, 110);
      this.errors.set(text, (this.errors.get(text) ?? 0) + 1);
    }
  }

  reset(): void {
    this.ops.clear();
    this.errors.clear();
    this.progress = this.notifications = this.sessionsOpened = this.sessionsDeleted = this.sessionsAbandoned = 0;
  }

  summary(): string[] {
    const lines: string[] = [];
    const ops = [...this.ops.entries()].sort((a, b) => a[0].localeCompare(b[0]));
    lines.push('  ops: ' + ops.map(([name, s]) => `${name} ${s.ok}/${s.ok + s.failed}${s.ok + s.failed ? ` (${Math.round(s.totalMs / (s.ok + s.failed))}ms)` : ''}`).join(', '));
    lines.push(
      `  sessions opened ${this.sessionsOpened}, deleted ${this.sessionsDeleted}, abandoned ${this.sessionsAbandoned}; progress notifications ${this.progress}, other notifications ${this.notifications}`,
    );
    const top = [...this.errors.entries()].sort((a, b) => b[1] - a[1]).slice(0, 6);
    for (const [text, n] of top) lines.push(`  ${String(n).padStart(6)} × ${text}`);
    return lines;
  }
}

const CANCEL_REASON = 'changed my mind';
const rand = (min: number, max: number) => min + Math.random() * (max - min);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function messageOf(err: unknown): string {
  if (err instanceof Error) return (err.message || err.name).replace(/\s+/g, ' ');
  return String(err);
}

function pick<T>(weighted: [T, number][]): T {
  const total = weighted.reduce((sum, [, w]) => sum + w, 0);
  let r = Math.random() * total;
  for (const [value, w] of weighted) if ((r -= w) < 0) return value;
  return weighted[weighted.length - 1]![0];
}

abstract class Worker {
  stopping = false;
  private running?: Promise<void>;

  constructor(
    protected readonly index: number,
    protected readonly options: TrafficOptions,
    protected readonly stats: TrafficStats,
  ) {}

  start(): void {
    this.running ??= this.loop();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
  }

  private async loop(): Promise<void> {
    // Spread the first connections over a second or two.
    await sleep(rand(0, 2000));
    while (!this.stopping) {
      try {
        await this.session();
      } catch (err) {
        this.stats.record('session', 0, err);
        await sleep(rand(300, 1500));
      }
    }
  }

  protected abstract session(): Promise<void>;

  protected async op<T>(name: string, run: () => Promise<T>): Promise<T | undefined> {
    const start = Date.now();
    try {
      const result = await run();
      this.stats.record(name, Date.now() - start);
      return result;
    } catch (err) {
      this.stats.record(name, Date.now() - start, err);
      return undefined;
    }
  }

  protected think(): Promise<void> {
    return sleep(rand(...this.options.thinkMs));
  }

  protected lifetime(): number {
    return Date.now() + rand(...this.options.sessionMs);
  }
}

/** A 2025-11-25 client (SDK 1.x): session, GET stream, resource subscription, elicitation. */
class LegacyWorker extends Worker {
  protected async session(): Promise<void> {
    const client = new Client({ name: `chaos-legacy-${this.index}`, version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.onerror = () => undefined;
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { confirm: true } }));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, () => void this.stats.notifications++);
    const transport = new StreamableHTTPClientTransport(new URL(this.options.url), {
      reconnectionOptions: { initialReconnectionDelay: 300, maxReconnectionDelay: 3000, reconnectionDelayGrowFactor: 1.5, maxRetries: 10 },
    });
    const timeout = this.options.requestTimeoutMs;
    const start = Date.now();
    try {
      await client.connect(transport, { timeout });
      this.stats.record('initialize', Date.now() - start);
    } catch (err) {
      this.stats.record('initialize', Date.now() - start, err);
      await client.close().catch(() => undefined);
      await sleep(rand(300, 1500));
      return;
    }
    this.stats.sessionsOpened++;
    const until = this.lifetime();
    let noteId: string | undefined;
    try {
      await this.op('subscribe', () => client.subscribeResource({ uri: 'notes://index' }, { timeout }));
      const created = await this.op('create', () =>
        client.callTool({ name: 'create', arguments: { title: `chaos ${this.index}`, body: `Note of client ${this.index}.`, tags: ['chaos', `c${this.index % 10}`] } }, undefined, {
          timeout,
        }),
      );
      noteId = /Created note (\d+)/.exec(JSON.stringify(created?.content ?? ''))?.[1];
      let appended = 0;
      while (!this.stopping && Date.now() < until) {
        const what = pick<string>([
          ['search', 25],
          ['export', 12],
          ['read', 25],
          ['append', noteId && appended < 20 ? 10 : 0],
          ['list', 10],
          ['complete', 5],
          ['prompt', noteId ? 5 : 0],
          ['ping', 5],
        ]);
        switch (what) {
          case 'search':
            await this.op('search', () => client.callTool({ name: 'search', arguments: { query: 'note', limit: 5 } }, undefined, { timeout }));
            break;
          case 'export': {
            // One export in five is cancelled part way (notifications/cancelled).
            const controller = new AbortController();
            const cancel = Math.random() < 0.2 ? setTimeout(() => controller.abort(CANCEL_REASON), rand(100, 800)) : undefined;
            await this.op(cancel ? 'export-cancel' : 'export', () =>
              client.callTool({ name: 'export', arguments: { format: 'markdown', delayMs: this.options.exportDelayMs } }, undefined, {
                timeout,
                resetTimeoutOnProgress: true,
                signal: controller.signal,
                onprogress: () => void this.stats.progress++,
              }),
            );
            clearTimeout(cancel);
            break;
          }
          case 'read': {
            const uri = pick<string>([
              ['notes://index', 2],
              [noteId ? `notes://notes/${noteId}` : 'notes://notes/1', 3],
              ['notes://tags/chaos', 1],
            ]);
            await this.op('read', () => client.readResource({ uri }, { timeout }));
            break;
          }
          case 'append':
            appended++;
            await this.op('append', () => client.callTool({ name: 'append', arguments: { id: noteId!, line: `line ${appended} at ${new Date().toISOString()}` } }, undefined, { timeout }));
            break;
          case 'list':
            await this.op('list', (): Promise<unknown> => (Math.random() < 0.5 ? client.listTools(undefined, { timeout }) : client.listResources(undefined, { timeout })));
            break;
          case 'complete':
            await this.op('complete', () => client.complete({ ref: { type: 'ref/resource', uri: 'notes://notes/{id}' }, argument: { name: 'id', value: '1' } }, { timeout }));
            break;
          case 'prompt':
            await this.op('prompt', () => client.getPrompt({ name: 'summarize', arguments: { noteId: noteId!, style: 'brief' } }, { timeout }));
            break;
          default:
            await this.op('ping', () => client.ping({ timeout }));
        }
        await this.think();
      }
      // Tidy clients delete their note (confirmed through elicitation); vanishing ones leave it.
      const ending = pick<'delete' | 'close' | 'vanish'>([
        ['delete', 5],
        ['close', 3],
        ['vanish', 2],
      ]);
      if (noteId && ending !== 'vanish') await this.op('delete', () => client.callTool({ name: 'delete', arguments: { id: noteId! } }, undefined, { timeout }));
      if (ending === 'delete') {
        await this.op('terminate', () => transport.terminateSession());
        this.stats.sessionsDeleted++;
      } else this.stats.sessionsAbandoned++;
    } finally {
      await client.close().catch(() => undefined);
    }
  }
}

/** A 2026-07-28 client (@modelcontextprotocol/client 2.x): no session, a subscriptions/listen stream kept open. */
class ModernWorker extends Worker {
  protected async session(): Promise<void> {
    const client = new ModernClient({ name: `chaos-modern-${this.index}`, version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    client.onerror = () => undefined;
    client.setNotificationHandler('notifications/resources/updated', () => void this.stats.notifications++);
    client.setNotificationHandler('notifications/resources/list_changed', () => void this.stats.notifications++);
    const timeout = this.options.requestTimeoutMs;
    const start = Date.now();
    try {
      await client.connect(new ModernTransport(new URL(this.options.url)), { timeout });
      this.stats.record('initialize-modern', Date.now() - start);
    } catch (err) {
      this.stats.record('initialize-modern', Date.now() - start, err);
      await client.close().catch(() => undefined);
      await sleep(rand(300, 1500));
      return;
    }
    this.stats.sessionsOpened++;
    const until = this.lifetime();
    const listen = { on: true };
    let subscription: Awaited<ReturnType<ModernClient['listen']>> | undefined;
    // The listen stream stays open; when an instance dies under it, the client listens again.
    const keepListening = async () => {
      while (listen.on && !this.stopping) {
        subscription = await this.op('listen', () => client.listen({ resourcesListChanged: true, resourceSubscriptions: ['notes://index'] }, { timeout }));
        if (!subscription) {
          await sleep(rand(300, 1000));
          continue;
        }
        const how = await subscription.closed;
        if (how !== 'remote') return;
      }
    };
    const listener = keepListening();
    try {
      while (!this.stopping && Date.now() < until) {
        const what = pick<string>([
          ['search', 30],
          ['export', 12],
          ['read', 30],
          ['list', 15],
          ['complete', 5],
        ]);
        switch (what) {
          case 'search':
            await this.op('m-search', () => client.callTool({ name: 'search', arguments: { query: 'chaos', limit: 5 } }, { timeout }));
            break;
          case 'export': {
            const controller = new AbortController();
            const cancel = Math.random() < 0.2 ? setTimeout(() => controller.abort(CANCEL_REASON), rand(100, 800)) : undefined;
            await this.op(cancel ? 'm-export-cancel' : 'm-export', () =>
              client.callTool(
                { name: 'export', arguments: { format: 'json', delayMs: this.options.exportDelayMs } },
                { timeout, resetTimeoutOnProgress: true, signal: controller.signal, onprogress: () => void this.stats.progress++ },
              ),
            );
            clearTimeout(cancel);
            break;
          }
          case 'read':
            await this.op('m-read', () => client.readResource({ uri: Math.random() < 0.5 ? 'notes://index' : 'notes://notes/1' }, { timeout }));
            break;
          case 'list':
            await this.op('m-list', (): Promise<unknown> => (Math.random() < 0.5 ? client.listTools(undefined, { timeout }) : client.listResources(undefined, { timeout })));
            break;
          default:
            await this.op('m-complete', () => client.complete({ ref: { type: 'ref/resource', uri: 'notes://tags/{tag}' }, argument: { name: 'tag', value: 'c' } }, { timeout }));
        }
        await this.think();
      }
    } finally {
      listen.on = false;
      await subscription?.close().catch(() => undefined);
      await Promise.race([listener, sleep(2000)]);
      if (Math.random() < 0.8) this.stats.sessionsDeleted++;
      else this.stats.sessionsAbandoned++;
      await client.close().catch(() => undefined);
    }
  }
}

/** N clients doing traffic until stopped. */
export class Traffic {
  readonly stats = new TrafficStats();
  private workers: Worker[] = [];

  constructor(private readonly options: TrafficOptions) {}

  get modernCount(): number {
    return Math.round(this.options.clients * this.options.modernShare);
  }

  start(): void {
    const modern = this.modernCount;
    this.workers = Array.from({ length: this.options.clients }, (_, i) => (i < modern ? new ModernWorker(i, this.options, this.stats) : new LegacyWorker(i, this.options, this.stats)));
    for (const worker of this.workers) worker.start();
  }

  /** Every client ends its session (as it chose: DELETE, close, vanish); waits up to `deadlineMs`. */
  async stop(deadlineMs = 30_000): Promise<boolean> {
    const all = Promise.all(this.workers.map((worker) => worker.stop()));
    const finished = await Promise.race([all.then(() => true), sleep(deadlineMs).then(() => false)]);
    this.workers = [];
    return finished;
  }
}
