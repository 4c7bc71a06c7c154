import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorCode } from '@mcpx/core';
import {
  LazyAbort,
  eraOf,
  encodeMessage,
  isModernProtocolVersion,
  isRefusal,
  readModernClaim,
  unsupportedVersion,
  type Admission,
  type EraFront,
  type InFlightScope,
  type Inbound,
  type JsonRpcErrorObject,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type ModernClaim,
  type ParsedMessage,
  type RequestId,
} from '@mcpx/core/transport';
import { ownerOf } from './auth/guard';
import { answeredAdmission, openConnection, type EndpointContext } from './exchange';
import { ConnectionChannel, JsonAnswerChannel } from './channels';
import { pipelineFailure, rpcErrorBody, sendHttpError, TRANSPORT_ERROR } from './http-errors';
import { checkModernHeaders, checkVersionHeader, PROTOCOL_VERSION_HEADER } from './modern-headers';
import { requestLogger } from './request-logger';
import { originOf, traceAcceptedNotification } from './telemetry/request-origin';
import { InFlightRequest, type ModernInFlight } from './modern-in-flight';
import type { SseConnection } from './sse';
import { atTurnEnd, type TurnEndWaiter } from './turn-end';

/**
 * Protocol 2026-07-28 over Streamable HTTP (transports/streamable-http.md): every request is its
 * own POST, served on its own, with no session. Its headers mirror its body and are checked
 * against it; it is answered with JSON or an SSE stream scoped to it (its notifications, then its
 * response); closing that stream cancels it. GET and DELETE have no use (405, see plugin.ts).
 */

/** The methods that answer with a stream whatever `jsonResponse` says: their notifications are the point. */
const STREAM_ONLY = new Set(['subscriptions/listen']);

/** A POST is modern when its body's `_meta` claims a protocol version, or its MCP-Protocol-Version header names a modern one. */
export function isModernPost(parsed: ParsedMessage, request: FastifyRequest): boolean {
  return eraOf(parsed, request.headers[PROTOCOL_VERSION_HEADER]) === 'modern';
}

/** A refusal of the request as a whole: its HTTP status and JSON-RPC error. */
interface Refusal {
  status: number;
  error: JsonRpcErrorObject;
}

/** Serves one POST of protocol 2026-07-28 or later: a promise only when something waits (a rate limit, a handler still running, a JSON answer). */
export function handleModernPost(ctx: EndpointContext, parsed: ParsedMessage, request: FastifyRequest, reply: FastifyReply): unknown {
  if (parsed.kind === 'invalid') {
    // A request refused for its params (not an object, over the message budget): its `_meta` cannot be trusted either.
    return answerRefusal(reply, { status: 400, error: parsed.error.error }, parsed.error.id);
  }
  if (parsed.kind === 'response') {
    return answerRefusal(reply, {
      status: 400,
      error: { code: ErrorCode.InvalidRequest, message: 'Bad Request: a 2026-07-28 client sends no JSON-RPC responses (the server asks for input in its results instead)' },
    });
  }
  // Notifications: the core protocol defines none from client to server over HTTP. notifications/cancelled
  // in particular means nothing here (closing the request's stream cancels it): accepted, ignored.
  if (parsed.kind === 'notification') {
    traceAcceptedNotification(ctx.engine, parsed.message, request);
    return reply.code(202).send();
  }

  const message = parsed.message;
  const checked = checkModernRequest(ctx, message, request);
  if ('status' in checked) return answerRefusal(reply, checked, message.id);
  if (ctx.sessions.draining) return sendHttpError(reply.header('retry-after', '5'), 503, 'Service Unavailable: the server is shutting down', TRANSPORT_ERROR, message.id);

  // request.ip is computed on each read (proxy-addr): read once.
  const origin = originOf(request);
  const caller = ownerOf(request.principal) ?? addressCaller(origin.clientAddress);
  // A listen stream stays open as long as its client likes: it is bounded apart (maxListenStreams), not as a request in flight.
  const inFlight =
    message.method === 'subscriptions/listen'
      ? new CallerInFlight(ctx.modern, `listen ${caller}`, { limit: 'maxListenStreams', max: ctx.options.maxListenStreams, holder: 'this client' })
      : new CallerInFlight(ctx.modern, caller);
  const front = ctx.engine.modern.front(checked.claim, { principal: request.principal, origin, inFlight });
  const inbound: Inbound = { request: message, principal: request.principal, logger: requestLogger(request), abort: new LazyAbort(), origin };
  const admitted = ctx.engine.pipeline.admit(front, inbound);
  if (!(admitted instanceof Promise)) return answerAdmitted(ctx, front, inbound, admitted, request, reply);
  return admitted.then((admission) => answerAdmitted(ctx, front, inbound, admission, request, reply));
}

function answerAdmitted(ctx: EndpointContext, front: EraFront, inbound: Inbound, admission: Admission, request: FastifyRequest, reply: FastifyReply): unknown {
  if (answeredAdmission(ctx, admission, request, reply, inbound.request.id)) return reply;
  const stream = !ctx.options.jsonResponse || STREAM_ONLY.has(inbound.request.method);
  return stream ? answerSse(ctx, front, inbound, admission, request, reply) : answerJson(ctx, front, inbound, admission, request, reply);
}

/** A caller's share of the endpoint's modern requests in flight, as the pipeline's admission counts it. */
class CallerInFlight extends InFlightRequest implements InFlightScope {
  constructor(
    private readonly all: ModernInFlight,
    caller: string,
    readonly bound?: InFlightScope['bound'],
  ) {
    super(caller);
  }

  enter(_id: RequestId, abort: LazyAbort, cap: number): 'ok' | 'full' {
    return this.all.admit(this, cap, abort) ? 'ok' : 'full';
  }

  leave(): void {
    this.all.release(this);
  }
}

let lastAddress: string | undefined;
let lastAddressCaller = '';

/** The caller an unauthenticated request counts for: one string per address seen last, not one per request (a map hashes it each time). */
function addressCaller(address: string | undefined): string {
  if (address !== lastAddress || lastAddressCaller === '') {
    lastAddress = address;
    lastAddressCaller = `address ${address}`;
  }
  return lastAddressCaller;
}

/**
 * The checks a modern request passes before dispatch, in this order: the `_meta` fields every
 * request carries (-32602), the MCP-Protocol-Version header equal to the `_meta` version (-32020),
 * a version this era serves (-32022), the other metadata headers against the body (-32020), then a
 * method this era has (404, -32601). A mismatch is told before an unsupported version: the
 * version a request asks for is only known once header and body agree on it.
 */
function checkModernRequest(ctx: EndpointContext, message: JsonRpcRequest, request: FastifyRequest): Refusal | { claim: ModernClaim } {
  const claim = readModernClaim(message, { anyVersion: true });
  if (isRefusal(claim)) return refusalOf(claim);
  const versionMismatch = checkVersionHeader(request.headers, claim.protocolVersion);
  if (versionMismatch) return { status: 400, error: { code: ErrorCode.HeaderMismatch, message: versionMismatch } };
  if (!isModernProtocolVersion(claim.protocolVersion)) return refusalOf(unsupportedVersion(claim.protocolVersion));
  const registry = ctx.engine.registry;
  const mismatch = checkModernHeaders(request.headers, message, (name) => registry.tools.get(name)?.headerParameters);
  if (mismatch) return { status: 400, error: { code: ErrorCode.HeaderMismatch, message: mismatch } };
  if (!ctx.engine.pipeline.serves('modern', message.method)) {
    return { status: 404, error: { code: ErrorCode.MethodNotFound, message: `Method not found: ${message.method} (protocol ${claim.protocolVersion})` } };
  }
  return { claim };
}

function refusalOf(refusal: { code: number; message: string; data?: unknown; httpStatus: number }): Refusal {
  const error: JsonRpcErrorObject = refusal.data === undefined ? { code: refusal.code, message: refusal.message } : { code: refusal.code, message: refusal.message, data: refusal.data };
  return { status: refusal.httpStatus, error };
}

function answerRefusal(reply: FastifyReply, refusal: Refusal, id?: RequestId | null): FastifyReply {
  return reply.code(refusal.status).header('content-type', 'application/json').send(rpcErrorBody(refusal.error, id));
}

/**
 * The HTTP status of a handler's answer: 200, except for the errors a modern client recognises
 * from their status as well (transports/streamable-http.md, "Backward Compatibility"): a missing
 * client capability (-32021) and an unsupported version (-32022) are 400.
 */
function statusOf(response: JsonRpcResponse): number {
  if (!('error' in response)) return 200;
  const code = response.error.code;
  return code === ErrorCode.MissingRequiredClientCapability || code === ErrorCode.UnsupportedProtocolVersion ? 400 : 200;
}

/**
 * Cancels the request when its client goes away before its answer was written: the response
 * closing early is the 2026-07-28 cancellation signal over HTTP. The close listener is added at the
 * end of this turn, if the request is still running then: one answered at once needs none.
 */
class CancelOnClose implements TurnEndWaiter {
  private listener?: () => void;
  private stopped = false;

  constructor(
    private readonly request: FastifyRequest,
    private readonly res: ServerResponse,
    private readonly abort: LazyAbort,
  ) {
    // The client may have left while the body was read.
    if (res.destroyed || res.socket?.destroyed) this.clientLeft();
    else atTurnEnd(this);
  }

  turnEnded(): void {
    if (this.stopped) return;
    if (this.res.destroyed) return this.clientLeft();
    this.listener = () => this.clientLeft();
    this.res.once('close', this.listener);
  }

  /** The answer is known: closing from now on cancels nothing. */
  stop(): void {
    this.stopped = true;
    if (this.listener) this.res.off('close', this.listener);
    this.listener = undefined;
  }

  private clientLeft(): void {
    if (!this.res.writableFinished) this.abort.abort(new Error(`Request cancelled: the client closed the stream of ${this.request.mcpMethod ?? 'its request'}`));
  }
}

/** Answers with an SSE stream: the request's notifications as they come, then its response; no event ids (nothing resumes in 2026-07-28). At once when the pipeline answers at once. */
function answerSse(ctx: EndpointContext, front: EraFront, inbound: Inbound, admission: Admission, request: FastifyRequest, reply: FastifyReply): void {
  const watch = new CancelOnClose(request, reply.raw, inbound.abort!);
  // No polling close: a client could not resume the stream (a long subscriptions/listen stays open, with heartbeats).
  const connection = openConnection(ctx, reply, { polling: false });
  const onError = (err: unknown) => (inbound.logger ?? ctx.engine.logger).error({ err }, 'message could not be serialised');
  const channel = new ConnectionChannel(connection, onError);
  let ran: JsonRpcResponse | null | Promise<JsonRpcResponse | null>;
  try {
    ran = ctx.engine.pipeline.run(front, inbound, channel, admission);
  } catch (err) {
    return endSse(reply, watch, connection, channel, onError, pipelineFailure(reply, inbound.request, err));
  }
  if (!(ran instanceof Promise)) return endSse(reply, watch, connection, channel, onError, ran);
  // Nothing is returned to Fastify, which gave the response up (hijacked): neither function throws.
  void ran.then(
    (response) => endSse(reply, watch, connection, channel, onError, response),
    (err: unknown) => endSse(reply, watch, connection, channel, onError, pipelineFailure(reply, inbound.request, err)),
  );
}

function endSse(reply: FastifyReply, watch: CancelOnClose, connection: SseConnection, channel: ConnectionChannel, onError: (err: unknown) => void, response: JsonRpcResponse | null): void {
  watch.stop();
  try {
    // Cancelled (the client left, or the server shut down): nothing more is sent for it.
    if (!response || connection.closed) return;
    const status = statusOf(response);
    if (status !== 200 && connection.release()) {
      // Nothing went out yet: the refusal gets its status, as a plain JSON answer.
      const text = encodeMessage(response, onError)!; // a response always encodes (at worst as an internal error)
      reply.raw.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
      return;
    }
    channel.send(response);
  } catch (err) {
    reply.log.error({ err }, 'mcp endpoint failed');
  } finally {
    connection.close();
  }
}

/** Answers with one JSON body. The request's notifications have nowhere to go (the client chose no stream). */
async function answerJson(ctx: EndpointContext, front: EraFront, inbound: Inbound, admission: Admission, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const watch = new CancelOnClose(request, reply.raw, inbound.abort!);
  const channel = new JsonAnswerChannel(reply.raw);
  const logger = inbound.logger;
  const message = inbound.request;
  let response: JsonRpcResponse | null;
  try {
    response = await ctx.engine.pipeline.run(front, inbound, channel, admission);
  } finally {
    watch.stop();
  }
  // Cancelled: the client left (the answer goes nowhere, but the exchange still ends), or the server shut down.
  if (!response) return sendHttpError(reply.header('retry-after', '5'), 503, 'Service Unavailable: the server shut down while serving this request', TRANSPORT_ERROR, message.id);
  const text = encodeMessage(response, (err) => (logger ?? ctx.engine.logger).error({ err }, 'response could not be serialised'));
  return reply.code(statusOf(response)).header('content-type', 'application/json').send(text);
}
