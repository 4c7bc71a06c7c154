import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode, isMcpxError } from '@mcpx/core';
import {
  decodeMessage,
  encodeMessage,
  isSupportedProtocolVersion,
  parseEventId,
  unsupportedVersion,
  type Admission,
  type Inbound,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type MessageChannel,
  type ParsedMessage,
  type RequestOrigin,
} from '@mcpx/core/transport';
import { ownerOf } from './auth/guard';
import { requestLogger } from './request-logger';
import { acceptsBoth, acceptsType, isJsonContentType, sessionIdOf } from './guards';
import { idOf, pipelineFailure, sendHttpError, sendMethodNotAllowed, rpcErrorBody, TRANSPORT_ERROR } from './http-errors';
import type { HttpSession } from './http-session';
import type { SseStream } from './sse-stream';
import type { ResolvedHttpOptions } from './options';
import { answeredAdmission, openConnection, type EndpointContext } from './exchange';
import { ConnectionChannel, JsonModeOutlet, UnresumableStream } from './channels';
import { handleModernPost, isModernPost } from './modern-endpoint';
import { PROTOCOL_VERSION_HEADER } from './modern-headers';
import { followShared, followStandalone } from './cluster/follow-shared-log';
import { originOf, traceAcceptedNotification } from './telemetry/request-origin';

export type { EndpointContext } from './exchange';

const SESSION_HEADER = 'mcp-session-id';
const NOWHERE: MessageChannel = { open: false, send() {} };

/**
 * POST: one JSON-RPC message. Notifications and responses → 202; requests → SSE stream or JSON.
 * Not async: a request answered at once returns nothing to Fastify (no promise for it to wait on);
 * only what waits (a shared session store, a rate limit, a handler still running) is a promise.
 */
export function handlePost(ctx: EndpointContext, request: FastifyRequest, reply: FastifyReply): unknown {
  if (!acceptsBoth(request.headers.accept)) {
    return sendHttpError(reply, 406, 'Not Acceptable: Accept must list both application/json and text/event-stream');
  }
  if (!isJsonContentType(request.headers['content-type'])) {
    return sendHttpError(reply, 415, 'Unsupported Media Type: Content-Type must be application/json');
  }
  const parsed = parseBody(ctx, request.body);
  // A message that is not a valid request is refused by the transport (400, echoing its id if it
  // has one). A request refused only for its params (-32602: not an object, or over the message
  // budget) is answered like any invalid argument, as a JSON-RPC error, once the session checks pass.
  if (parsed.kind === 'invalid' && !isParamsError(parsed)) {
    return reply.code(400).header('content-type', 'application/json').send(rpcErrorBody(parsed.error.error, parsed.error.id));
  }
  if (parsed.kind === 'request' || parsed.kind === 'notification') request.mcpMethod = parsed.message.method;
  // Protocol 2026-07-28 and later: no session; the request's headers and `_meta` say everything.
  if (isModernPost(parsed, request)) return handleModernPost(ctx, parsed, request, reply);
  // Refusals from here on concern a message whose id (if any) is known: they echo it.
  const id = idOf(parsed);
  // A version no era serves (a POST in a session was refused before its body was read): answered
  // as 2026-07-28 servers answer it, so a client probing for the modern era learns what we speak.
  const version = request.headers[PROTOCOL_VERSION_HEADER];
  if (version !== undefined && !isSupportedProtocolVersion(version)) return refuseVersion(reply, version);

  const origin = originOf(request);
  if (ctx.options.stateless) return postStateless(ctx, parsed, request, reply, origin);

  const isInitialize = parsed.kind === 'request' && parsed.message.method === 'initialize';
  const sessionId = sessionIdOf(request);
  if (isInitialize) {
    if (sessionId !== undefined) return sendHttpError(reply, 400, 'Bad Request: initialize starts a new session; send it without Mcp-Session-Id', TRANSPORT_ERROR, id);
    if (ctx.sessions.draining) return sendHttpError(reply.header('retry-after', '5'), 503, 'Service Unavailable: the server is shutting down', TRANSPORT_ERROR, id);
    if (ctx.sessions.full) {
      // A limit hit, though a 5xx: the refusal hook counts 4xx only.
      ctx.engine.telemetry.refused('limit', { status: 503, limit: 'maxSessions' });
      return sendHttpError(reply.header('retry-after', '5'), 503, 'Service Unavailable: too many open sessions', TRANSPORT_ERROR, id);
    }
    return initialize(ctx, parsed.message as JsonRpcRequest, request, reply, origin);
  }
  if (sessionId === undefined) return sendHttpError(reply, 400, 'Bad Request: Mcp-Session-Id header is required', TRANSPORT_ERROR, id);
  let found: HttpSession | undefined | Promise<HttpSession | undefined>;
  try {
    found = lookup(ctx, sessionId, request, origin);
  } catch (err) {
    return unavailable(ctx, reply, err, id);
  }
  if (!(found instanceof Promise)) return postInSession(ctx, parsed, request, reply, origin, found);
  return found.then(
    (http) => postInSession(ctx, parsed, request, reply, origin, http),
    (err: unknown) => unavailable(ctx, reply, err, id),
  );
}

/** A POST in the session it names (undefined: none it may use). */
function postInSession(ctx: EndpointContext, parsed: ParsedMessage, request: FastifyRequest, reply: FastifyReply, origin: RequestOrigin, http: HttpSession | undefined): unknown {
  if (!http) return sendHttpError(reply, 404, 'Session not found: it expired or was deleted; initialize a new one', TRANSPORT_ERROR, idOf(parsed));
  http.touch();

  if (parsed.kind === 'invalid') return answerJson(reply, parsed.error, http.session);
  if (parsed.kind !== 'request') {
    request.mcpLogged = true; // the engine logs notifications and responses at debug
    if (parsed.kind === 'response') return http.session.receive(parsed, http.outlet).then(() => reply.code(202).send());
    http.session.handleNotification(parsed.message, origin);
    return reply.code(202).send();
  }
  const inbound: Inbound = { request: parsed.message, principal: request.principal, logger: requestLogger(request), origin };
  const admitted = ctx.engine.pipeline.admit(http.session, inbound);
  if (!(admitted instanceof Promise)) return answerAdmitted(ctx, http, inbound, admitted, request, reply);
  return admitted.then((admission) => answerAdmitted(ctx, http, inbound, admission, request, reply));
}

function answerAdmitted(ctx: EndpointContext, http: HttpSession, inbound: Inbound, admission: Admission, request: FastifyRequest, reply: FastifyReply): unknown {
  if (answeredAdmission(ctx, admission, request, reply, inbound.request.id)) return reply;
  if (!ctx.options.jsonResponse) return answerSse(ctx, http, inbound, admission, reply);
  const ran = ctx.engine.pipeline.run(http.session, inbound, new JsonModeOutlet(http.outlet), admission);
  return ran instanceof Promise ? ran.then((response) => answerJson(reply, response, http.session)) : answerJson(reply, ran, http.session);
}

/** 400 with UnsupportedProtocolVersion (-32022), listing the versions served; no id, as the body's version did not matter. */
function refuseVersion(reply: FastifyReply, requested: string | string[]): FastifyReply {
  const { code, data } = unsupportedVersion(requested);
  const { supported } = data as { supported: string[] };
  const message = `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(requested)}; this server supports ${supported.join(', ')}`;
  return reply.code(400).header('content-type', 'application/json').send(rpcErrorBody({ code, message, data }));
}

/** The session with this id, if it exists and belongs to the request's principal (anyone else: as if it did not exist). */
function sessionOf(ctx: EndpointContext, sessionId: string, request: FastifyRequest): HttpSession | undefined {
  const http = ctx.sessions.get(sessionId);
  if (!http || !http.ownedBy(request.principal)) return undefined;
  return http;
}

/** The session a request names: from this process, or when instances share sessions, from the shared store. */
function lookup(ctx: EndpointContext, sessionId: string, request: FastifyRequest, origin?: RequestOrigin): HttpSession | undefined | Promise<HttpSession | undefined> {
  return ctx.sessions.shared ? ctx.sessions.load(sessionId, ownerOf(request.principal), origin) : sessionOf(ctx, sessionId, request);
}

/** The shared store cannot be reached: 503 with a JSON-RPC error, to retry shortly. Anything else is a real failure. */
function unavailable(ctx: EndpointContext, reply: FastifyReply, err: unknown, id?: JsonRpcRequest['id']): FastifyReply {
  // By code: @mcpx/redis may throw it from another copy of @mcpx/core than this package's.
  if (!isMcpxError(err, 'MCPX_CLUSTER_UNAVAILABLE')) throw err;
  ctx.engine.logger.warn({ err }, 'shared session store unreachable');
  const message = 'Service Unavailable: the shared session store cannot be reached; retry shortly';
  return sendHttpError(reply.header('retry-after', '1'), 503, message, ErrorCode.InternalError, id);
}

function isParamsError(parsed: ParsedMessage & { kind: 'invalid' }): boolean {
  return parsed.error.id !== undefined && parsed.error.error.code === ErrorCode.InvalidParams;
}

/** The body is checked against the message budget in one pass over its bytes before it is parsed. */
function parseBody(ctx: EndpointContext, body: unknown): ParsedMessage {
  return decodeMessage(Buffer.isBuffer(body) ? body : Buffer.alloc(0), ctx.engine.messageLimits);
}

/** initialize is answered as JSON: the session id goes out only once the session exists. */
async function initialize(ctx: EndpointContext, message: JsonRpcRequest, request: FastifyRequest, reply: FastifyReply, origin: RequestOrigin): Promise<unknown> {
  const http = ctx.sessions.create(origin);
  http.session.principal = request.principal;
  const response = await http.session.handleRequest(message, http.outlet, request.principal, requestLogger(request), origin);
  if (!response || 'error' in response) {
    ctx.sessions.close(http.id);
    return answerJson(reply, response, http.session);
  }
  if (ctx.sessions.shared) {
    // Other instances serve it from its record: the id goes out only once the record is written.
    try {
      await ctx.sessions.publish(http);
    } catch (err) {
      ctx.sessions.close(http.id);
      return unavailable(ctx, reply, err, message.id);
    }
  }
  reply.header(SESSION_HEADER, http.id);
  return answerJson(reply, response, http.session);
}

/** `owner`: whose logger reports a response that cannot be serialised (asked for only then: a session makes its logger on first use). */
function answerJson(reply: FastifyReply, response: JsonRpcMessage | null, owner: { readonly logger: { error: (o: object, m: string) => void } }): FastifyReply {
  // A cancelled request gets no response; the HTTP exchange still has to end.
  if (!response) return reply.code(202).send();
  const text = encodeMessage(response, (err) => owner.logger.error({ err }, 'response could not be serialised'));
  return reply.code(200).header('content-type', 'application/json').send(text);
}

/** Streams a request: priming event, everything the request causes, then its response (at once when the pipeline answers at once). */
function answerSse(ctx: EndpointContext, http: HttpSession, inbound: Inbound, admission: Admission, reply: FastifyReply): void {
  const stream = http.openRequestStream(inbound.request.id);
  stream.attach(openConnection(ctx, reply), ctx.options.retryMs);
  // Without an event store the client cannot resume: no polling close (ctx.closeStream answers false).
  const channel: MessageChannel = ctx.store ? stream : new UnresumableStream(stream);
  let ran: JsonRpcMessage | null | Promise<JsonRpcMessage | null>;
  try {
    ran = ctx.engine.pipeline.run(http.session, inbound, channel, admission);
  } catch (err) {
    return sendAndEnd(http, stream, reply, pipelineFailure(reply, inbound.request, err));
  }
  if (!(ran instanceof Promise)) return sendAndEnd(http, stream, reply, ran);
  // Nothing is returned to Fastify, which gave the response up (hijacked): neither function throws.
  void ran.then(
    (response) => sendAndEnd(http, stream, reply, response),
    (err: unknown) => sendAndEnd(http, stream, reply, pipelineFailure(reply, inbound.request, err)),
  );
}

function sendAndEnd(http: HttpSession, stream: SseStream, reply: FastifyReply, response: JsonRpcMessage | null): void {
  try {
    try {
      if (response) stream.send(response);
    } finally {
      endRequestStream(http, stream, reply, response);
    }
  } catch (err) {
    reply.log.error({ err }, 'mcp endpoint failed');
  }
}

function endRequestStream(http: HttpSession, stream: SseStream, reply: FastifyReply, response: JsonRpcMessage | null): void {
  if (response || http.session.state === 'closed' || reply.raw.destroyed) return stream.end();
  // Cancelled: no response is due, and a stream that ended without one makes clients resume it
  // in a loop. It stays open (heartbeats only) until the client lets go of it.
  reply.raw.once('close', () => stream.end());
}

/** Stateless: a fresh session per POST, as if initialized, closed when the exchange ends. */
async function postStateless(ctx: EndpointContext, parsed: ParsedMessage, request: FastifyRequest, reply: FastifyReply, origin: RequestOrigin): Promise<unknown> {
  if (parsed.kind === 'invalid') return reply.code(200).header('content-type', 'application/json').send(rpcErrorBody(parsed.error.error, parsed.error.id));
  if (parsed.kind !== 'request') {
    if (parsed.kind === 'notification') traceAcceptedNotification(ctx.engine, parsed.message, request);
    return reply.code(202).send();
  }
  const session = ctx.engine.createSession(NOWHERE, undefined, { stateless: true, principal: request.principal, origin });
  try {
    if (parsed.message.method !== 'initialize') {
      const header = request.headers['mcp-protocol-version'];
      session.assumeInitialized(typeof header === 'string' ? header : '2025-03-26');
    }
    const inbound: Inbound = { request: parsed.message, logger: requestLogger(request), origin };
    const admitted = ctx.engine.pipeline.admit(session, inbound);
    const admission = admitted instanceof Promise ? await admitted : admitted;
    if (answeredAdmission(ctx, admission, request, reply, parsed.message.id)) return reply;
    if (ctx.options.jsonResponse) return answerJson(reply, await ctx.engine.pipeline.run(session, inbound, NOWHERE, admission), session);
    // No resumption without sessions: a plain stream, no polling close.
    const connection = openConnection(ctx, reply, { polling: false });
    const channel = new ConnectionChannel(connection, (err) => session.logger.error({ err }, 'message could not be serialised'));
    const response = await ctx.engine.pipeline.run(session, inbound, channel, admission);
    if (response) channel.send(response);
    connection.close();
    return undefined;
  } finally {
    session.close();
  }
}

/** The methods the endpoint serves in its mode: the `Allow` header of every 405 it answers. */
export function allowedMethods(options: ResolvedHttpOptions): string[] {
  if (options.stateless) return ['POST'];
  return options.enableGetStream ? ['POST', 'GET', 'DELETE'] : ['POST', 'DELETE'];
}

/** GET: the standalone stream, or with Last-Event-ID, the resumption of any stream of the session. */
export async function handleGet(ctx: EndpointContext, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  if (!ctx.options.enableGetStream) {
    return sendMethodNotAllowed(reply, allowedMethods(ctx.options), 'Method Not Allowed: this server offers no GET stream');
  }
  if (!acceptsType(request.headers.accept, 'text/event-stream')) {
    return sendHttpError(reply, 406, 'Not Acceptable: Accept must list text/event-stream');
  }
  const sessionId = sessionIdOf(request);
  if (sessionId === undefined) return sendHttpError(reply, 400, 'Bad Request: Mcp-Session-Id header is required');
  let http: HttpSession | undefined;
  try {
    const found = lookup(ctx, sessionId, request, originOf(request));
    http = found instanceof Promise ? await found : found;
  } catch (err) {
    return unavailable(ctx, reply, err);
  }
  if (!http) return sendHttpError(reply, 404, 'Session not found: it expired or was deleted; initialize a new one');
  http.touch();

  const lastEventId = request.headers['last-event-id'];
  if (typeof lastEventId === 'string' && lastEventId !== '') return resume(ctx, http, lastEventId, reply);

  // Resuming stays allowed while draining (it may carry the last responses); a new stream is not.
  if (ctx.sessions.draining) return sendHttpError(reply.header('retry-after', '5'), 503, 'Service Unavailable: the server is shutting down');
  if (http.shared) {
    if (http.standaloneFollowers > 0) return sendHttpError(reply, 409, 'Conflict: this session already has a GET stream open');
    return followStandalone(ctx, http, reply);
  }
  const stream = http.standaloneStream();
  if (stream.connected) return sendHttpError(reply, 409, 'Conflict: this session already has a GET stream open');
  stream.attach(openConnection(ctx, reply), ctx.options.retryMs);
  return undefined;
}

async function resume(ctx: EndpointContext, http: HttpSession, lastEventId: string, reply: FastifyReply): Promise<unknown> {
  const position = parseEventId(lastEventId);
  if (!position || !ctx.store) return sendHttpError(reply, 400, `Bad Request: cannot resume from Last-Event-ID ${JSON.stringify(lastEventId)}`);
  // Shared: a stream this instance does not run is followed in the shared log, whoever writes it.
  if (http.shared && !http.liveStream(position.streamId)) {
    try {
      return await followShared(ctx, http, position.streamId, position.seq, reply);
    } catch (err) {
      return unavailable(ctx, reply, err);
    }
  }
  const stream = http.liveStream(position.streamId) ?? (position.streamId === '0' ? http.standaloneStream() : undefined);
  if (stream) {
    await stream.resume(openConnection(ctx, reply), position.seq);
    return undefined;
  }
  // The stream already ended: replay what the client missed, then end.
  const events = await ctx.store.eventsAfter(http.id, position.streamId, position.seq);
  if (!events) return sendHttpError(reply, 404, `Not Found: no stream to resume for Last-Event-ID ${JSON.stringify(lastEventId)}`);
  const connection = openConnection(ctx, reply, { polling: false });
  for (const e of events) {
    const data = e.data ?? encodeMessage(e.message);
    if (data !== undefined) connection.event(e.id, data);
  }
  connection.close();
  return undefined;
}

/** DELETE: the client ends its session. */
export async function handleDelete(ctx: EndpointContext, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  if (ctx.options.stateless) return sendMethodNotAllowed(reply, allowedMethods(ctx.options), 'Method Not Allowed: this server has no sessions');
  const sessionId = sessionIdOf(request);
  if (sessionId === undefined) return sendHttpError(reply, 400, 'Bad Request: Mcp-Session-Id header is required');
  if (!ctx.sessions.shared) {
    if (!sessionOf(ctx, sessionId, request) || !ctx.sessions.close(sessionId)) {
      return sendHttpError(reply, 404, 'Session not found: it expired or was already deleted');
    }
    return reply.code(200).send();
  }
  try {
    // Shared: whichever instance the DELETE reaches ends the session on all of them.
    if (!(await ctx.sessions.load(sessionId, ownerOf(request.principal))) || !(await ctx.sessions.delete(sessionId))) {
      return sendHttpError(reply, 404, 'Session not found: it expired or was already deleted');
    }
  } catch (err) {
    return unavailable(ctx, reply, err);
  }
  return reply.code(200).send();
}
