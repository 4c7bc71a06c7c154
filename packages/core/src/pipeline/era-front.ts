import type { Logger } from 'pino';
import type { Principal } from '../auth/principal';
import type { JsonRpcErrorResponse, JsonRpcRequest, JsonRpcResponse, RequestId } from '../protocol/jsonrpc';
import type { MessageChannel } from '../context/channel';
import type { RequestContext } from '../context/request-context';
import type { MethodHandler } from '../context/handler-types';
import type { LazyAbort } from '../context/lazy-abort';
import type { Era } from '../context/request-env';
import type { RequestOrigin } from '../telemetry/origin';
import type { RequestTrace } from '../telemetry/telemetry';

/** One request as its transport hands it to the pipeline. */
export interface Inbound {
  readonly request: JsonRpcRequest;
  /** Who is calling, when the transport authenticates (a request's own token may be newer than its session's). */
  readonly principal?: Principal;
  /** Where the client is (telemetry), when the request brings its own. */
  readonly origin?: RequestOrigin;
  /** The transport's logger for this request (an HTTP request id...); the engine's by default. */
  readonly logger?: Logger;
  /** The transport's abort for this request (its stream closed); the pipeline makes one otherwise. */
  readonly abort?: LazyAbort;
}

/** How a handler's run ended, before its era shapes it into a response. */
export type Outcome = { readonly ok: true; readonly result: Record<string, unknown> } | { readonly ok: false; readonly error: unknown };

/** The requests in flight where a request counts (a session, a stream, a caller): the in-flight bound of admission. */
export interface InFlightScope {
  /** Counts a request in: `taken` when its id is in use there, `full` at the cap. */
  enter(id: RequestId, abort: LazyAbort, cap: number): 'ok' | 'taken' | 'full';
  leave(id: RequestId, abort: LazyAbort): void;
  /** Its own bound, when not the engine's `maxRequestsInFlight` (an HTTP caller's listen streams): the cap passed to `enter`, and what a refusal names. */
  readonly bound?: { readonly limit: string; readonly max: number; readonly holder?: string };
}

/**
 * What one protocol era contributes to the pipeline for a request: its admission rules, its
 * request context, how it runs a handler and how it shapes the outcome. The legacy era's front is
 * the session; the modern era makes one per request from its `_meta`.
 */
export interface EraFront {
  readonly era: Era;
  /** The session as logs name it (legacy); undefined where there is none. */
  readonly logSessionId: string | undefined;
  /** `mcp.session.id` in telemetry. */
  readonly telemetrySessionId: string | undefined;
  /** Where the client is, unless the request brings its own. */
  readonly origin?: RequestOrigin;
  /** Who the era knows is calling (a legacy session's principal), unless the request brings its own. */
  readonly principal?: Principal;
  /** The protocol version a span records. */
  readonly protocolVersion: string | undefined;
  /** Where the request counts against the in-flight cap; undefined: the transport bounds it. */
  readonly inFlight: InFlightScope | undefined;
  /** The era's own refusal of a request before anything runs (session state, `_meta` claim), in its order. */
  refuse(request: JsonRpcRequest, handler: MethodHandler | undefined): JsonRpcErrorResponse | undefined;
  /** The handler's context for an admitted request, or the error it is answered with (a retry's state fails verification). */
  open(request: JsonRpcRequest, inbound: Inbound, channel: MessageChannel, abort: LazyAbort, logger: Logger, trace: RequestTrace | undefined): RequestContext | JsonRpcResponse;
  /** Runs the handler as the era runs it (the legacy era answers a handler's InputRequired on the stream); at once when the handler answers at once. */
  invoke(handler: MethodHandler, params: Record<string, unknown>, ctx: RequestContext): Record<string, unknown> | Promise<Record<string, unknown>>;
  /** Shapes the outcome into the response (null: cancelled, no response is due). */
  answer(request: JsonRpcRequest, ctx: RequestContext, outcome: Outcome, logger: Logger): JsonRpcResponse | null;
}
