import type { AuthOptions } from './auth/options';
import { resolveCors, type CorsOptions, type ResolvedCorsOptions } from './cors';
import type { ServerCardOptions } from './server-card';
import type { EngineOptions } from '@mcpx/core';
import type { Clock, EventStore, RedisSettings } from '@mcpx/core/stores';
import { ENGINE_OPTION_KEYS, optionKeys } from '@mcpx/core/transport';

/** How the Streamable HTTP endpoint behaves. Every field has a safe default. */
export interface McpHttpOptions extends EngineOptions {
  /** OAuth 2.1 resource server: every MCP request needs a valid bearer token for this server (docs/authorization.md). */
  auth?: AuthOptions;
  /** The MCP endpoint, relative to where the plugin is mounted (default /mcp). */
  path?: string;
  /** No sessions: every POST is served on its own, GET and DELETE answer 405. */
  stateless?: boolean;
  /** Answer requests with one JSON body instead of an SSE stream. */
  jsonResponse?: boolean;
  /** Offer the standalone GET stream (default true; always off when stateless). */
  enableGetStream?: boolean;
  /** Origins allowed to call (exact, e.g. `https://app.example.com`, or `*`). Default: loopback origins only. */
  allowedOrigins?: string[];
  /**
   * CORS for browser clients (default off): the origins whose pages may call and read the answers.
   * Those origins are allowed by the Origin check as well; every other origin still gets 403.
   */
  cors?: CorsOptions;
  /**
   * Host header values allowed on connections that arrived on a loopback address (DNS-rebinding
   * protection): host names, with or without a port. Default: localhost, 127.0.0.1 and [::1].
   * Behind a reverse proxy on the same machine, list the public host names here.
   */
  allowedHosts?: string[];
  /** Sessions idle this long (no request, no open stream) are ended (default 30 min). */
  sessionIdleTimeoutMs?: number;
  /** The most sessions open at once; initialize beyond it answers 503 (default 10,000). */
  maxSessions?: number;
  /** Where SSE events are kept for Last-Event-ID replay (default: bounded, in memory); false disables resumption. */
  eventStore?: EventStore | false;
  /**
   * How long a request stream that reached its client in full stays resumable after it ended
   * (default 30 s); interrupted streams stay until the store evicts them or the session ends.
   */
  streamRetentionMs?: number;
  /**
   * Where session idle expiry and stream retention read the time and run their sweeps (default: the
   * system clock). Tests pass a ManualClock from @mcpx/core to expire sessions when they choose.
   */
  clock?: Clock;
  /** The `retry` hint sent to clients, in ms (default 1000). */
  retryMs?: number;
  /** Close every SSE connection after this long and let the client resume (polling); 0 = never (default). */
  sseMaxConnectionMs?: number;
  /** A comment line on idle SSE connections this often, for proxies (default 15 s; 0 = off). */
  sseHeartbeatMs?: number;
  /** The largest POST body accepted, in bytes (default 4 MiB); larger bodies answer 413. */
  maxBodyBytes?: number;
  /**
   * The 2026-07-28 `subscriptions/listen` streams one caller (its principal, else its address) may
   * hold open at once (default 100). They are bounded apart from `maxRequestsInFlight`, so open
   * listeners never crowd out a caller's other requests; one more is refused with 429 and -32004.
   */
  maxListenStreams?: number;
  /** One log line per HTTP request (default true). */
  requestLogging?: boolean;
  /** Also serve /healthz and /readyz next to the endpoint (default false in the plugin; listen() serves them at the root). */
  healthRoutes?: boolean;
  /**
   * Share sessions, the SSE event log, tasks and a bus with the other instances of this server
   * through Redis (a URL, or its settings), so that any instance serves any request: several
   * replicas behind a plain load balancer (docs/deployment.md). A single node, a Redis Cluster or a
   * primary behind Sentinel. Needs @mcpx/redis. listen() also reads the environment when this is not
   * given: MCPX_REDIS_URL, MCPX_REDIS_CLUSTER_NODES or MCPX_REDIS_SENTINELS (see redisFromEnv).
   */
  redis?: string | RedisSettings;
  /**
   * Starts the OpenTelemetry Node SDK with OTLP traces and metrics, configured by the standard
   * `OTEL_*` variables (docs/observability.md), and records this server's spans and metrics there.
   * Needs @mcpx/otel. listen() also reads MCPX_OTEL (`1` or `true`) when this is not given.
   */
  otel?: boolean;
  /**
   * Serves the metrics in the Prometheus text format at GET /metrics (default off): on this
   * server, next to the endpoint, or on a port of its own (`port`). Not behind the MCP auth
   * unless `auth` is true. Needs @mcpx/otel. listen() also reads MCPX_METRICS (`1` or `true`)
   * when this is not given.
   */
  metrics?: boolean | MetricsOptions;
  /**
   * Experimental: serves the MCP server card (a draft extension, SEP-2127) at `<path>/server-card`
   * and, at the app's root, /.well-known/mcp/server-card.json (default off): the server's name,
   * version, title, description and public URL, for any visitor, without a token (docs/transports.md).
   */
  serverCard?: boolean | ServerCardOptions;
}

/** Every key of McpHttpOptions, the engine's included: listen() and the plugin add their own. */
export const HTTP_OPTION_KEYS = optionKeys<McpHttpOptions>()(
  ...ENGINE_OPTION_KEYS,
  'auth',
  'path',
  'stateless',
  'jsonResponse',
  'enableGetStream',
  'allowedOrigins',
  'cors',
  'allowedHosts',
  'sessionIdleTimeoutMs',
  'maxSessions',
  'eventStore',
  'streamRetentionMs',
  'clock',
  'retryMs',
  'sseMaxConnectionMs',
  'sseHeartbeatMs',
  'maxBodyBytes',
  'maxListenStreams',
  'requestLogging',
  'healthRoutes',
  'redis',
  'otel',
  'metrics',
  'serverCard',
);

/** Where and how GET /metrics is served. */
export interface MetricsOptions {
  /** A port of its own for /metrics (0 picks a free one); default: the endpoint's own server. */
  port?: number;
  /** The address the separate port listens on (default: listen()'s host, else 127.0.0.1). */
  host?: string;
  /** The path (default /metrics), relative to where the plugin is mounted when served next to the endpoint. */
  path?: string;
  /** Scraping needs a bearer token as the MCP endpoint does (the `auth` option's verifier and required scopes); default false. */
  auth?: boolean;
}

/** The metrics endpoint once its options are checked. */
export interface ResolvedMetricsOptions {
  path: string;
  port?: number;
  host: string;
  auth: boolean;
}

export type ResolvedHttpOptions = Omit<McpHttpOptions, 'cors' | 'metrics'> & { cors?: ResolvedCorsOptions; metrics?: ResolvedMetricsOptions } & Required<
    Pick<
      McpHttpOptions,
      | 'path'
      | 'stateless'
      | 'jsonResponse'
      | 'enableGetStream'
      | 'sessionIdleTimeoutMs'
      | 'maxSessions'
      | 'retryMs'
      | 'sseMaxConnectionMs'
      | 'sseHeartbeatMs'
      | 'maxBodyBytes'
      | 'maxListenStreams'
      | 'requestLogging'
      | 'healthRoutes'
    >
  >;

export function resolveOptions(options: McpHttpOptions): ResolvedHttpOptions {
  const path = options.path ?? '/mcp';
  return {
    ...options,
    path: path.startsWith('/') ? path : `/${path}`,
    stateless: options.stateless ?? false,
    jsonResponse: options.jsonResponse ?? false,
    enableGetStream: (options.enableGetStream ?? true) && !options.stateless,
    sessionIdleTimeoutMs: positive(options.sessionIdleTimeoutMs, 30 * 60_000, 'sessionIdleTimeoutMs'),
    maxSessions: positive(options.maxSessions, 10_000, 'maxSessions'),
    retryMs: nonNegative(options.retryMs, 1000, 'retryMs'),
    sseMaxConnectionMs: nonNegative(options.sseMaxConnectionMs, 0, 'sseMaxConnectionMs'),
    sseHeartbeatMs: nonNegative(options.sseHeartbeatMs, 15_000, 'sseHeartbeatMs'),
    maxBodyBytes: positive(options.maxBodyBytes, 4 * 1024 * 1024, 'maxBodyBytes'),
    maxListenStreams: positive(options.maxListenStreams, 100, 'maxListenStreams'),
    requestLogging: options.requestLogging ?? true,
    healthRoutes: options.healthRoutes ?? false,
    cors: resolveCors(options.cors),
    metrics: resolveMetrics(options.metrics, options.auth !== undefined, path.startsWith('/') ? path : `/${path}`),
  };
}

function resolveMetrics(metrics: McpHttpOptions['metrics'], hasAuth: boolean, endpointPath: string): ResolvedMetricsOptions | undefined {
  if (!metrics) return undefined;
  const { port, host, path = '/metrics', auth = false } = metrics === true ? {} : metrics;
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw new RangeError(`metrics.port must be an integer from 0 to 65535, got ${port}`);
  if (auth && !hasAuth) throw new Error('metrics.auth needs the auth option: it is what checks the bearer token');
  const resolved = path.startsWith('/') ? path : `/${path}`;
  if (port === undefined && resolved === endpointPath) throw new Error(`metrics.path ${resolved} is the MCP endpoint's own path`);
  return { path: resolved, port, host: host ?? '127.0.0.1', auth };
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number, got ${value}`);
  return value;
}

function nonNegative(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be zero or more, got ${value}`);
  return value;
}
