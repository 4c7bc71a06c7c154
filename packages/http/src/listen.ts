import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import pino, { type Logger } from 'pino';
import { createEngine, type Servable } from '@mcpx/core';
import { getServerOptions } from '@mcpx/core/registry';
import { McpEngine, checkOptions, compileCacheStatus, envFlag, optionKeys } from '@mcpx/core/transport';
import { HTTP_OPTION_KEYS, type McpHttpOptions } from './options';
import { mcpx, registerHealthRoutes, type McpEndpointHandle } from './plugin';
import { registerProtectedResourceMetadata } from './auth/metadata';
import { serverUrl } from './server-url';
import { redisFromEnv } from '@mcpx/core/stores';
import { startRedisCluster } from './cluster/start-cluster';
import { lazySchemaCompilers } from './lazy-schema-compilers';
import { isPino, requestChild } from './request-logger';

export interface ListenOptions extends McpHttpOptions {
  /** Default: $HOST or 127.0.0.1 (loopback: only this machine can connect). */
  host?: string;
  /** Default: $PORT or 3000; 0 picks a free port. */
  port?: number;
  /** How long requests in flight may run on after SIGTERM/SIGINT or close() (default 10 s). */
  shutdownTimeoutMs?: number;
  /** Stop cleanly on SIGTERM and SIGINT and exit the process with 0 (default true). */
  handleSignals?: boolean;
  /** Idle socket timeout (default 60 s; SSE connections are exempt and send heartbeats). */
  connectionTimeoutMs?: number;
  /** Keep-alive timeout (default 65 s, longer than common load balancers' 60 s). */
  keepAliveTimeoutMs?: number;
  /** Time allowed to receive a whole request (default 30 s; guards against slow-loris clients). */
  requestTimeoutMs?: number;
  /** Anything else for Fastify (trustProxy, https, …). */
  fastify?: FastifyServerOptions;
}

/** listen()'s own keys, not the endpoint's: they are not passed on to the plugin. */
const LISTEN_OWN_KEYS = ['host', 'port', 'shutdownTimeoutMs', 'handleSignals', 'connectionTimeoutMs', 'keepAliveTimeoutMs', 'requestTimeoutMs', 'fastify'] as const;
const LISTEN_OPTION_KEYS = optionKeys<ListenOptions>()(...HTTP_OPTION_KEYS, ...LISTEN_OWN_KEYS);

export interface McpHttpServer {
  /** e.g. http://127.0.0.1:3000/mcp */
  readonly url: string;
  readonly app: FastifyInstance;
  readonly engine: McpEngine;
  readonly endpoint: McpEndpointHandle;
  /** Where GET /metrics is served, when it is (the `metrics` option or MCPX_METRICS). */
  readonly metricsUrl?: string;
  /** Drains (no new sessions, requests in flight finish up to the deadline, streams get a retry hint) and stops. */
  close(): Promise<void>;
  /** Resolves once the server has stopped. */
  readonly closed: Promise<void>;
}

/**
 * Serves a decorated server over Streamable HTTP on its own Fastify instance, with /healthz and
 * /readyz, and a graceful stop on SIGTERM/SIGINT.
 */
export async function listen(server: Servable, options: ListenOptions = {}): Promise<McpHttpServer> {
  checkOptions('listen()', options, LISTEN_OPTION_KEYS);
  const host = options.host ?? process.env.HOST ?? '127.0.0.1';
  const port = options.port ?? (process.env.PORT ? Number(process.env.PORT) : 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`port must be an integer from 0 to 65535, got ${port}`);
  const logger: Logger = options.logger ?? pino({ name: nameOf(server), level: options.logLevel ?? process.env.MCPX_LOG_LEVEL ?? 'info' });
  // Several instances sharing state through Redis: configured here, or by the environment (redisFromEnv).
  const redis = options.cluster ? undefined : (options.redis ?? redisFromEnv());
  // An engine is built once, with or without a cluster: one built without cannot share state later.
  if ((redis !== undefined || options.cluster) && server instanceof McpEngine && !server.cluster) {
    throw new Error(
      'listen(): Redis (the redis option or MCPX_REDIS_URL) needs the decorated server, not an engine built without it; pass the server itself, or build the engine with createEngine(server, { cluster })',
    );
  }
  const ownCluster = redis === undefined ? undefined : await startRedisCluster(redis, logger);
  const cluster = options.cluster ?? ownCluster;
  let engine: McpEngine;
  try {
    engine = createEngine(server, { ...options, logger, cluster });
    // requestState is sealed with the cluster's shared key (unless one is set): read it before serving.
    await engine.modern.keyReady;
  } catch (err) {
    await ownCluster?.close();
    throw err;
  }

  const trustsProxy = options.fastify?.trustProxy !== undefined && options.fastify.trustProxy !== false;
  const app = Fastify({
    loggerInstance: logger,
    // The endpoint writes its own single line per request.
    logController: new LogController({ disableRequestLogging: true }),
    connectionTimeout: options.connectionTimeoutMs ?? 60_000,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 65_000,
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    return503OnClosing: true,
    // close() runs after the drain: whatever connection is left (a keep-alive socket that went idle
    // after the drain started) is destroyed rather than waited on for its keep-alive timeout.
    forceCloseConnections: true,
    schemaController: { compilersFactory: lazySchemaCompilers() },
    // A request's own logger (its reqId, and unless a proxy is trusted, the caller's address, which
    // is then the socket's) only where request lines are written: below info a request's few lines
    // (warnings, errors) go out through the server's logger, and a call makes no child logger.
    childLoggerFactory: (parent, bindings, options, raw) => {
      if (!isPino(parent)) return parent.child(bindings, options);
      if (!parent.isLevelEnabled('info')) return parent;
      return requestChild(parent, bindings, options, trustsProxy ? false : raw.socket?.remoteAddress);
    },
    ...options.fastify,
  });
  // OpenTelemetry: configured here, or by MCPX_OTEL and MCPX_METRICS. A port of its own for /metrics listens where the server does, unless told otherwise.
  const otel = options.otel ?? envFlag(process.env.MCPX_OTEL);
  let metrics = options.metrics ?? envFlag(process.env.MCPX_METRICS);
  if (typeof metrics === 'object' && metrics.port !== undefined && metrics.host === undefined) metrics = { ...metrics, host };
  let endpoint!: McpEndpointHandle;
  await app.register(mcpx, { ...endpointOptions(options), otel, metrics, redis: undefined, cluster, server: engine, logger, onEndpoint: (h) => (endpoint = h) });
  registerHealthRoutes(app, endpoint);
  if (options.auth) registerProtectedResourceMetadata(app, options.auth, { cors: endpoint.options.cors });
  try {
    await app.listen({ host, port });
  } catch (err) {
    // The port is taken (or the host unknown): what the plugin started (OpenTelemetry, a metrics port) stops too.
    await app.close();
    await ownCluster?.close();
    throw err;
  }

  const address = app.server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  const url = serverUrl(host, boundPort, endpoint.options.path);
  const metricsOptions = endpoint.options.metrics;
  const metricsUrl = metricsOptions && (endpoint.metricsUrl ?? serverUrl(host, boundPort, metricsOptions.path));

  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let stopping: Promise<void> | undefined;
  const close = () =>
    (stopping ??= (async () => {
      await endpoint.drain(options.shutdownTimeoutMs ?? 10_000);
      await app.close();
      await ownCluster?.close();
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      logger.info('stopped');
      resolveClosed();
    })());
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'stopping: draining requests in flight');
    void close().then(() => {
      logger.flush?.();
      process.exit(0);
    });
  };
  if (options.handleSignals ?? true) {
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }
  logger.info(metricsUrl ? { url, metricsUrl } : { url }, 'serving MCP over Streamable HTTP');
  if (logger.isLevelEnabled('debug')) logger.debug({ compileCache: compileCacheStatus() }, 'compile cache');
  return { url, app, engine, endpoint, metricsUrl, close, closed };
}

/** The options the plugin takes: listen()'s own removed, so that its check passes them. */
function endpointOptions(options: ListenOptions): McpHttpOptions {
  const rest: Record<string, unknown> = { ...options };
  for (const key of LISTEN_OWN_KEYS) delete rest[key];
  return rest as McpHttpOptions;
}

function nameOf(server: Servable): string {
  const first = Array.isArray(server) ? server[0] : server;
  return (first && getServerOptions((first as object).constructor)?.name) || 'mcpx';
}
