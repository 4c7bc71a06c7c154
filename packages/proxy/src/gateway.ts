import { McpServer, Server, createEngine } from '@mcpx/core';
import { APP_MIME_TYPE, UI_EXTENSION_ID } from '@mcpx/core/protocol';
import { Namespace } from '@mcpx/core/registry';
import type { Logger } from 'pino';
import { labelOf, loadProxyConfig, parseProxyConfig, type ProxyConfig, type UpstreamConfig } from './config';
import { Downstream } from './downstream';
import { Mirror } from './mirror';
import { Upstream } from './upstream';

export interface GatewayOptions {
  /** How long one forwarded request may wait for its answer; progress restarts the wait. Default 10 min. */
  requestTimeoutMs?: number;
  /** The first wait before an upstream is started again; it doubles up to `maxBackoffMs`. Default 500 ms. */
  backoffMs?: number;
  /** Default 30 s. */
  maxBackoffMs?: number;
  /** How long starting an upstream may take. Default 30 s. */
  connectTimeoutMs?: number;
  /** How often an HTTP upstream is pinged while up, to notice it gone between calls. Default 15 s; 0: never. */
  pingIntervalMs?: number;
}

/** The upstreams a server serves: each one's state, and a way to stop them all. */
export class Gateway {
  constructor(readonly upstreams: readonly Upstream[]) {}

  /** Resolves when every upstream has been tried once: each is up, or down and waiting to start again. */
  async ready(timeoutMs = 60_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (this.upstreams.some((u) => !u.settled) && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
  }

  /** Stops every upstream (their processes end, their connections close). */
  async close(): Promise<void> {
    await Promise.all(this.upstreams.map((u) => u.close()));
  }
}

/**
 * Serves the upstreams of `config` inside `server`: each one's entries under its prefix (through
 * `mount`, so names and URIs follow the rules of a mounted server) or, with no prefix, as they
 * are; its own handlers, scopes, middleware and rate limits apply to them like to any entry.
 * Call it from `onServerInit()` (or later); it returns at once and starts the upstreams.
 */
export function addUpstreams(server: McpServer, config: ProxyConfig, options: GatewayOptions = {}): Gateway {
  const engine = server.engine;
  const logger = engine.logger.child({ component: 'proxy' });
  const clientInfo = { name: `${engine.serverInfo.name} (mcpx proxy)`, version: engine.serverInfo.version };
  // Offered before any upstream is up: a client that initializes first still gets them, then list_changed.
  for (const kind of ['tools', 'prompts', 'resources', 'tasks'] as const) server.registry.offer(kind);
  const upstreams = config.upstreams.map((upstreamConfig) => connectUpstream(server, upstreamConfig, { ...options, logger, clientInfo }));
  for (const upstream of upstreams) upstream.start();
  return new Gateway(upstreams);
}

function connectUpstream(server: McpServer, config: UpstreamConfig, options: GatewayOptions & { logger: Logger; clientInfo: { name: string; version: string } }): Upstream {
  let target: McpServer = server;
  if (config.prefix !== undefined) {
    // One server per prefixed upstream, mounted: its entries are the upstream's under their own names.
    class UpstreamServer extends McpServer {}
    Server({ name: config.key, version: '0.0.0' })(UpstreamServer);
    target = new UpstreamServer();
    createEngine(target, { logger: options.logger.child({ upstream: config.key }) });
    server.mount(config.prefix, target);
  }
  let upstream: Upstream | undefined;
  const downstream = new Downstream();
  const label = labelOf(config);
  const mirror = new Mirror(config, {
    downstream,
    registry: target.registry,
    notifyUpdated: (uri) => target.notifyResourceUpdated(uri),
    logger: options.logger,
    requestTimeoutMs: options.requestTimeoutMs ?? 600_000,
    client: () => upstream?.client,
    label,
    reason: () => upstream?.reason ?? 'starting',
    lost: (reason) => upstream?.lost(reason),
  });
  upstream = new Upstream(config, mirror, {
    ...options,
    logger: options.logger,
    // What the gateway can pass on to a downstream client; one that lacks it answers the upstream with an error.
    // App views (MCP Apps) are passed on too: the gateway shows them to the clients that render them.
    capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: {}, extensions: { [UI_EXTENSION_ID]: { mimeTypes: [APP_MIME_TYPE] } } },
    onClient: (client) => downstream.install(client, label),
  });
  server.registry.explainAbsence(absenceOf(config, mirror, () => upstream!));
  return upstream;
}

/** Says "the upstream is down" for a name or URI that is, or was last time it was up, one of its entries. */
function absenceOf(config: UpstreamConfig, mirror: Mirror, upstream: () => Upstream) {
  const ns = config.prefix !== undefined ? new Namespace(config.prefix) : undefined;
  return (kind: 'tool' | 'prompt' | 'resource', key: string): string | undefined => {
    const u = upstream();
    if (u.state === 'up' || u.state === 'closed') return undefined;
    const own = ns ? (kind === 'resource' ? ns.originalUri(key) : key.startsWith(`${ns.name}_`) ? key.slice(ns.name.length + 1) : undefined) : key;
    if (own === undefined || !mirror.hadEntry(kind, own)) return undefined;
    return `${kind === 'resource' ? `Resource ${key}` : `${kind === 'tool' ? 'Tool' : 'Prompt'} "${key}"`} is unavailable: the upstream server ${u.label} is ${u.state === 'starting' ? 'starting' : `down (${u.reason})`}; try again shortly`;
  };
}

/** Options of proxyServer: the gateway's own name and version, and the upstreams' settings. */
export interface ProxyServerOptions extends GatewayOptions {
  name?: string;
  version?: string;
}

/**
 * A server that is a gateway and nothing else: its entries are the upstreams'. `config` is a CONFIG
 * file's path, its content (`{ mcpServers: {...} }`), or a parsed ProxyConfig. Serve it with
 * `listen()`, `serveStdio()` or `mcpx proxy`.
 */
export async function proxyServer(config: string | ProxyConfig | Record<string, unknown>, options: ProxyServerOptions = {}): Promise<McpServer & { gateway: Gateway }> {
  const parsed = typeof config === 'string' ? await loadProxyConfig(config) : isParsed(config) ? config : parseProxyConfig(config);
  class ProxyServer extends McpServer {
    gateway!: Gateway;
    override onServerInit(): void {
      this.gateway = addUpstreams(this, parsed, options);
    }
  }
  Server({ name: options.name ?? 'mcpx-proxy', version: options.version ?? '0.1.0' })(ProxyServer);
  return new ProxyServer();
}

function isParsed(config: object): config is ProxyConfig {
  return Array.isArray((config as ProxyConfig).upstreams);
}
