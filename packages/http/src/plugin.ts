import { METHODS } from 'node:http';
import pino from 'pino';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest, RegisterOptions } from 'fastify';
import { ErrorCode, InMemoryEventStore, createEngine, isMcpxError, type Servable } from '@mcpx/core';
import { McpEngine, checkOptions, isModernProtocolVersion, optionKeys, sessionLogId } from '@mcpx/core/transport';
import { checkHost, checkOrigin, checkProtocolVersion, originHostPolicy, sessionIdOf } from './guards';
import { sendHttpError, sendMethodNotAllowed } from './http-errors';
import { bodyParser, type BodyTooLarge } from './body-reader';
import { HTTP_OPTION_KEYS, resolveOptions, type McpHttpOptions, type ResolvedHttpOptions } from './options';
import { allowedMethods, handleDelete, handleGet, handlePost, type EndpointContext } from './endpoint';
import { ModernInFlight } from './modern-in-flight';
import { PROTOCOL_VERSION_HEADER } from './modern-headers';
import { SessionManager } from './session-manager';
import { Heartbeats } from './sse';
import { authenticate } from './auth/guard';
import { hasAddress, isPino } from './request-logger';
import { registerCors } from './cors';
import { startRedisCluster } from './cluster/start-cluster';
import { startOtelFor, type OtelHandle } from '@mcpx/core/transport';
import { serveMetrics, type MetricsEndpoint } from './telemetry/metrics-endpoint';
import { refusalCounter } from './telemetry/refusals';
import { isServerCardRoute, resolveServerCard, serveServerCard, type ResolvedServerCard } from './server-card';

export interface McpPluginOptions extends McpHttpOptions {
  /** What to serve: a decorated object, several composed into one server, or an engine. */
  server: Servable;
  /** Receives the endpoint's handle (sessions, drain) once mounted. */
  onEndpoint?: (handle: McpEndpointHandle) => void;
}

/** The plugin's keys, and Fastify's own for any plugin (`prefix`...), which reach the plugin too. */
const PLUGIN_OPTION_KEYS = optionKeys<McpPluginOptions & RegisterOptions>()(...HTTP_OPTION_KEYS, 'server', 'onEndpoint', 'prefix', 'logSerializers');

declare module 'fastify' {
  interface FastifyRequest {
    /** The MCP method of a POSTed message, for the request log line. */
    mcpMethod: string | null;
    /** Whether the engine logged the message this request carried (then the HTTP line is debug). */
    mcpLogged: boolean;
  }
}

/** What the host application can do with a mounted endpoint. */
export interface McpEndpointHandle {
  readonly engine: McpEngine;
  readonly sessions: SessionManager;
  readonly options: ResolvedHttpOptions;
  /**
   * Stop taking new sessions (and new 2026-07-28 requests), end subscriptions/listen streams with
   * their response, let requests in flight finish (up to `deadlineMs`), then cancel what is left and
   * close every stream and session.
   */
  drain(deadlineMs?: number): Promise<void>;
  /** Where GET /metrics is served when it has a port of its own (the `metrics` option's `port`). */
  readonly metricsUrl?: string;
}

/**
 * The Streamable HTTP endpoint as a Fastify plugin: POST, GET and DELETE on one path. Encapsulated:
 * its body parser, hooks and error handler apply to its own routes only, so it mounts inside any app
 * (`app.register(mcpx, { server, prefix: '/tools' })`).
 */
export const mcpx: FastifyPluginAsync<McpPluginOptions> = async (app, pluginOptions) => {
  checkOptions('app.register(mcpx)', pluginOptions, PLUGIN_OPTION_KEYS);
  const { server, onEndpoint, ...rest } = pluginOptions;
  const options = resolveOptions(rest);
  // Fastify's logger is pino: the engine logs through the app's own logger unless told otherwise
  // (an app without a logger has a stand-in that logs nothing; so does the engine then).
  const logger = options.logger ?? (isPino(app.log) ? app.log : pino({ level: 'silent' }));
  // State shared with other instances: a cluster given, or one this plugin starts from `redis`
  // (unless the server is an engine that has one already, as listen() makes).
  let cluster = options.cluster;
  const startsCluster = !cluster && options.redis !== undefined && !(server instanceof McpEngine && server.cluster);
  if (startsCluster) cluster = await startRedisCluster(options.redis!, logger);
  const engine = createEngine(server, { ...options, logger, cluster });
  let card: ResolvedServerCard | undefined;
  // requestState is sealed with the cluster's shared key (unless one is set): read it before serving.
  try {
    await engine.modern.keyReady;
    // The server card is checked before anything is served: one that cannot be made stops the start.
    card = resolveServerCard(options.serverCard, engine.serverInfo, options.auth);
  } catch (err) {
    if (startsCluster) await cluster!.close();
    throw err;
  }
  // OpenTelemetry for this endpoint (the otel and metrics options), on before anything is served.
  let otel: OtelHandle | undefined;
  if (options.otel || options.metrics) {
    try {
      otel = await startOtelFor(engine, { otlp: options.otel === true, prometheus: options.metrics !== undefined }, 'the otel and metrics options, MCPX_OTEL, MCPX_METRICS');
    } catch (err) {
      if (startsCluster) await cluster!.close();
      throw err;
    }
  }
  // Shared, the event log is the cluster's: a client resumes on any instance.
  const shared = engine.cluster?.cluster.events;
  const store = options.eventStore === false ? undefined : (shared ?? options.eventStore ?? new InMemoryEventStore());
  // Redis out of reach (a failover, a restart) loses what was being stored for resumption, not the
  // answer itself: a warning, like the 503s the endpoint sends meanwhile. Anything else is an error.
  const onError = (err: unknown) =>
    isMcpxError(err, 'MCPX_CLUSTER_UNAVAILABLE')
      ? engine.logger.warn({ err }, 'shared event log unreachable: an event was not stored for resumption')
      : engine.logger.error({ err }, 'mcp endpoint error');
  const sessions = new SessionManager(engine, store, options.maxSessions, options.sessionIdleTimeoutMs, onError, options.streamRetentionMs, options.clock);
  const policy = originHostPolicy(options.allowedOrigins, options.allowedHosts, options.cors?.origins);
  const heartbeats = options.sseHeartbeatMs > 0 ? new Heartbeats(options.sseHeartbeatMs) : undefined;
  const modern = new ModernInFlight();
  const ctx: EndpointContext = { engine, sessions, options, store, heartbeats, modern, onError };
  // The bytes of SSE events the endpoint holds in memory for resumption (a shared log is measured by its own store).
  const unobserveStore = store instanceof InMemoryEventStore ? engine.telemetry.observeEventStore(() => store.bytes) : undefined;
  let metricsEndpoint: MetricsEndpoint | undefined;

  const handle: McpEndpointHandle = {
    engine,
    sessions,
    options,
    get metricsUrl() {
      return metricsEndpoint?.url;
    },
    async drain(deadlineMs = 10_000) {
      sessions.draining = true;
      // subscriptions/listen streams would never finish on their own: they end now, each with its response.
      for (const abort of modern.requests) engine.subscriptions.closeRequest(abort.signal);
      const until = Date.now() + deadlineMs;
      while ((sessions.requestsInFlight > 0 || modern.size > 0) && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
      modern.abortAll(new Error('Request cancelled: the server is shutting down'));
      sessions.closeConnections(options.retryMs);
      sessions.closeAll();
    },
  };
  onEndpoint?.(handle);
  app.decorateRequest('mcpMethod', null);
  app.decorateRequest('mcpLogged', false);
  // Once: when the app closes, or when mounting fails after this point.
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      modern.abortAll(new Error('Request cancelled: the server is shutting down'));
      sessions.closeAll();
      heartbeats?.stop();
      unobserveStore?.();
      if (startsCluster) await cluster!.close();
      // Last: the sessions' durations, recorded as they closed, are in the final export.
      await metricsEndpoint?.close();
      await otel?.shutdown();
    })());
  app.addHook('onClose', stop);

  // Bodies arrive as bytes: the endpoint checks the media type and parses JSON itself, to answer
  // with the transport's status codes and JSON-RPC errors rather than Fastify's defaults. A body
  // over maxBodyBytes is scanned (bounded) for its request's id, which its 413 then carries.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', bodyParser(options.maxBodyBytes));

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, request, reply) => {
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      const id = (err as Partial<BodyTooLarge>).requestId;
      return sendHttpError(reply, 413, `Payload Too Large: the body exceeds ${options.maxBodyBytes} bytes`, ErrorCode.InvalidRequest, id);
    }
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) request.log.error({ err }, 'mcp endpoint failed');
    return sendHttpError(reply, status, status === 500 ? 'Internal server error' : `Bad Request: ${err.message}`, status === 500 ? ErrorCode.InternalError : ErrorCode.InvalidRequest);
  });

  // Origin and Host come first, before anything else is read (DNS-rebinding protection).
  const refusedSite = (request: FastifyRequest, reply: FastifyReply): boolean => {
    // The server card is for any page to read (CORS *): the Origin check does not apply to it.
    const refused = (isServerCardRoute(request) ? undefined : checkOrigin(request, policy)) ?? checkHost(request, policy);
    if (!refused) return false;
    request.log.warn({ origin: request.headers.origin, host: request.headers.host }, refused);
    sendHttpError(reply, 403, refused);
    return true;
  };
  const refusedVersion = (request: FastifyRequest, reply: FastifyReply): boolean => {
    // 2026-07-28 has no GET stream and no sessions to delete (transports/streamable-http.md, "Backward Compatibility").
    const version = request.headers[PROTOCOL_VERSION_HEADER];
    if ((request.method === 'GET' || request.method === 'DELETE') && isModernProtocolVersion(version) && isEndpointRoute(request)) {
      if (sessionIdOf(request) === undefined) {
        sendMethodNotAllowed(reply, ['POST'], `Method Not Allowed: protocol ${version} serves POST only (no GET stream, no sessions to delete)`);
        return true;
      }
      // A session is 2025-11-25 or older: a modern header contradicts it, refused as a POST with the same mismatch is.
      sendHttpError(reply, 400, `Bad Request: MCP-Protocol-Version ${version} does not match the session's protocol (sessions are 2025-11-25 and older)`, ErrorCode.HeaderMismatch);
      return true;
    }
    const badVersion = checkProtocolVersion(request);
    if (!badVersion) return false;
    sendHttpError(reply, 400, badVersion);
    return true;
  };
  // Callback-style hooks, as few as the options allow: an async hook costs a promise on every
  // request, and each hook a turn of Fastify's hook runner.
  if (options.cors) {
    app.addHook('onRequest', (request, reply, done) => {
      if (!refusedSite(request, reply)) done();
    });
    // CORS comes next: preflights from its origins are answered here, and its headers go on every
    // other answer below, refusals included (a page must read a 401's WWW-Authenticate). Its
    // catch-all OPTIONS route (other paths under the prefix) gets no CORS: those keep their 404.
    await registerCors(app, options.cors, (request) => !request.routeOptions.url?.endsWith('*') && !isServerCardRoute(request));
    app.addHook('onRequest', (request, reply, done) => {
      if (!refusedVersion(request, reply)) done();
    });
  } else {
    app.addHook('onRequest', (request, reply, done) => {
      if (!refusedSite(request, reply) && !refusedVersion(request, reply)) done();
    });
  }

  // With auth, every MCP request is authenticated before any work starts (health routes stay open).
  const auth = options.auth;
  if (auth) {
    app.addHook('onRequest', async (request, reply) => {
      if (!isEndpointRoute(request) || reply.sent) return;
      const principal = await authenticate(request, reply, auth);
      if (principal) request.principal = principal;
    });
  }

  // One onResponse hook: refusals are counted, and (when on) the exchange gets its log line.
  const refusals = refusalCounter(engine.telemetry);
  if (options.requestLogging) {
    app.addHook('onResponse', (request, reply, done) => {
      refusals(request, reply);
      // A message the engine logged has its own line (its MCP outcome): the HTTP exchange's is debug then.
      const level = request.mcpLogged ? 'debug' : 'info';
      if (isPino(request.log) && request.log.isLevelEnabled(level)) logRequest(request, reply.statusCode, reply.elapsedTime, level);
      done();
    });
  } else {
    app.addHook('onResponse', (request, reply, done) => {
      refusals(request, reply);
      done();
    });
  }

  // `config.mcp` marks the endpoint's own routes (the auth hook checks only those, wherever the plugin is mounted).
  const config = { mcp: true };
  app.post(options.path, { config }, (request, reply) => handlePost(ctx, request, reply));
  // No automatic HEAD route: it would run the GET handler (and open a stream no one reads).
  app.get(options.path, { config, exposeHeadRoute: false }, (request, reply) => handleGet(ctx, request, reply));
  app.delete(options.path, { config }, (request, reply) => handleDelete(ctx, request, reply));
  // Every other method on the endpoint's path: 405 with Allow. With CORS on, OPTIONS stays on this
  // list: a preflight from a CORS origin is answered by the CORS hook before this route's own hook.
  refuseOtherMethods(
    app,
    options.path,
    allowedMethods(options),
    routableMethods(app).filter((m) => !ENDPOINT_METHODS.has(m)),
  );

  if (options.healthRoutes) registerHealthRoutes(app, handle);
  // Outside the auth hook (no `config.mcp`), with CORS headers of its own.
  if (card) serveServerCard(app, card, { path: options.path, fullPath: `${app.prefix}${options.path}`, wellKnown: app.prefix === '', policy, logger: engine.logger });

  if (options.metrics) {
    try {
      metricsEndpoint = await serveMetrics(app, options.metrics, { prometheus: otel!.prometheus!, telemetry: engine.telemetry, auth: options.auth, policy, logger });
    } catch (err) {
      await stop();
      throw err;
    }
  }
};

/** Whether a request is for one of the endpoint's own routes (`config.mcp`), not a health route or the app's. */
function isEndpointRoute(request: FastifyRequest): boolean {
  return (request.routeOptions.config as { mcp?: boolean } | undefined)?.mcp === true;
}

/** The methods the endpoint has routes for (GET and DELETE answer 405 themselves when the mode has no use for them). */
const ENDPOINT_METHODS = new Set(['POST', 'GET', 'DELETE']);

/**
 * Every method a request can arrive with: Node's parser accepts those of http.METHODS (anything
 * else gets its 400), less CONNECT, which Node never hands to Fastify (it emits 'connect').
 * Fastify routes a fixed set of them; the others (WebDAV's PROPFIND, MKCOL, ..., M-SEARCH, ...)
 * are added as body-less methods, which Fastify already treats unknown methods as: only routing
 * them is new, on this path alone (other paths keep their 404). Methods the app added itself are
 * kept as they are.
 */
function routableMethods(app: FastifyInstance): string[] {
  for (const method of METHODS) {
    if (method !== 'CONNECT' && !app.supportedMethods.includes(method)) app.addHttpMethod(method);
  }
  return app.supportedMethods.filter((m) => m !== 'CONNECT');
}

/**
 * 405 for `methods` on `path`, answered in onRequest: after the Origin/Host checks (a cross-site
 * caller gets 403, not the list of methods), before any body is read or parsed (no 413/415 first).
 * No `config.mcp`: naming the allowed methods needs no credentials.
 */
function refuseOtherMethods(app: FastifyInstance, path: string, allow: readonly string[], methods: readonly string[]): void {
  const onRequest = (request: FastifyRequest, reply: FastifyReply) => {
    sendMethodNotAllowed(reply, allow, `Method Not Allowed: ${request.method} is not supported by this endpoint`);
  };
  for (const method of methods) {
    try {
      // `config.countRefusals`: its 405s count as the endpoint's refusals (telemetry/refusals.ts).
      app.route({ method, url: path, config: { countRefusals: true }, onRequest, handler: () => undefined });
    } catch (err) {
      // A method Node parses that this Fastify's router does not know yet, or a route the app
      // itself declared for this method and path: either keeps what the app would answer.
      app.log.debug({ err, method }, 'mcp endpoint: no 405 route for this method');
    }
  }
}

function logSessionOf(request: FastifyRequest): string | undefined {
  const id = sessionIdOf(request);
  return id === undefined ? undefined : sessionLogId(id);
}

/**
 * One line per HTTP exchange: what was asked, of which session, by whom, and how it ended. Info
 * for the exchanges the engine did not log (GET streams, DELETE, refusals); debug for the others.
 */
export function logRequest(request: FastifyRequest, status: number, durationMs: number, level: 'info' | 'debug' = 'info'): void {
  request.log[level](
    {
      method: request.method,
      // A token sent in the URL is refused, and must not be written to the log either.
      url: request.url.includes('access_token=') ? request.url.replace(/access_token=[^&#]*/g, 'access_token=[redacted]') : request.url,
      mcpMethod: request.mcpMethod ?? undefined,
      session: logSessionOf(request),
      remoteAddress: hasAddress(request.log) ? undefined : request.ip,
      status,
      durationMs: Math.round(durationMs * 100) / 100,
    },
    'http request',
  );
}

/**
 * /healthz: the process is alive. /readyz: it takes new sessions (false while draining, and while
 * the store it shares with other instances cannot be reached).
 */
export function registerHealthRoutes(app: FastifyInstance, handle: Pick<McpEndpointHandle, 'sessions' | 'engine'>): void {
  app.get('/healthz', async (_request, reply: FastifyReply) => reply.send({ status: 'ok' }));
  app.get('/readyz', async (_request, reply: FastifyReply) => {
    if (handle.sessions.draining) return reply.code(503).send({ ready: false, reason: 'draining' });
    const cluster = handle.engine.cluster?.cluster;
    if (cluster && !cluster.ready) return reply.code(503).send({ ready: false, reason: 'shared store unavailable' });
    return reply.send({ ready: true, sessions: handle.sessions.size });
  });
}
