import type { Logger } from 'pino';
import type { Principal } from '../../auth/principal';
import { ErrorCode, McpError, UrlElicitationRequiredError } from '../../protocol/errors';
import { errorResponse, resultResponse, type JsonRpcRequest, type JsonRpcResponse } from '../../protocol/jsonrpc';
import type { ServerCapabilities } from '../../protocol/types';
import type { MessageChannel } from '../../engine/channel';
import { RequestContext } from '../../engine/context';
import { errorResponseFor } from '../../engine/dispatch';
import type { McpEngine } from '../../engine/engine';
import { ClientCapabilityError } from '../../engine/client-requests';
import { InputNeeded, InputRequired, type InputRequest } from '../../engine/input-required';
import { LazyAbort } from '../../engine/lazy-abort';
import { checkInputCapability } from '../../engine/input-rounds';
import { loggedChannel, logMessage, type MessageLogTarget } from '../../engine/message-log';
import type { RequestEnv } from '../../engine/request-env';
import { logRequest } from '../../engine/request-log';
import { isRefusal, readModernClaim, type ModernClaim } from './meta';
import { modernMethods, MRTR_METHODS } from './methods';
import { ModernHost } from './modern-host';
import { RequestStateError, RequestStateSealer, requestDigest, type StatePayload } from './request-state';
import { checkCacheHint, completeResult, type CacheHint } from './result-shape';
import type { RequestOrigin } from '../../telemetry/origin';
import type { RequestTrace } from '../../telemetry/telemetry';

export interface ModernOptions {
  /** The key requestState is sealed with; every instance of a deployment must share it. Default: MCPX_REQUEST_STATE_KEY, else a random key per process. */
  requestStateKey?: string | Uint8Array;
  /** How long a requestState stays valid after it is issued (default 10 minutes). */
  requestStateTtlMs?: number;
  /** Caching hints on cacheable results (default ttlMs 0, cacheScope private); a resource may set its own. */
  cache?: Partial<CacheHint>;
}

export interface ModernRequestOptions {
  /** Who is calling (HTTP with auth). */
  principal?: Principal;
  /** The transport's logger for this request; by default the engine's. */
  logger?: Logger;
  /** The transport's abort for this request (its stream closed; stdio: notifications/cancelled). */
  abort?: LazyAbort;
  /** The `_meta` claim, when the transport already read it (HTTP reads it to check headers). */
  claim?: ModernClaim;
  /** Where the request came from (telemetry's `network.*` and the HTTP headers' trace context). */
  origin?: RequestOrigin;
}

/** How long a requestState is honoured by default. */
const DEFAULT_STATE_TTL_MS = 10 * 60_000;

/**
 * Where a modern (2026-07-28) request is dispatched. Each request is served on its own: the client
 * comes from its `_meta`, the handler runs with a RequestEnv built from it, and the result is shaped
 * as the era wants it (`resultType`, `serverInfo`, caching hints), or becomes an
 * InputRequiredResult when the handler waits on the client (MRTR).
 */
export class ModernRequests {
  readonly methods = modernMethods;
  readonly cache: CacheHint;
  private readonly sealer: RequestStateSealer;
  private readonly stateTtlMs: number;
  private offered?: ServerCapabilities;

  constructor(
    private readonly engine: McpEngine,
    options: ModernOptions = {},
  ) {
    checkCacheHint(options.cache, 'cache');
    this.cache = { ttlMs: options.cache?.ttlMs ?? 0, cacheScope: options.cache?.cacheScope ?? 'private' };
    const key = options.requestStateKey ?? (process.env.MCPX_REQUEST_STATE_KEY || undefined);
    this.sealer = new RequestStateSealer(key);
    this.stateTtlMs = options.requestStateTtlMs ?? DEFAULT_STATE_TTL_MS;
    if (!Number.isSafeInteger(this.stateTtlMs) || this.stateTtlMs < 1) throw new RangeError(`requestStateTtlMs must be a positive integer, got ${this.stateTtlMs}`);
  }

  /** What the server offers modern clients: derived from the registry, as server/discover tells it. */
  capabilities(): ServerCapabilities {
    return (this.offered ??= this.engine.modernCapabilities());
  }

  /** Registry changes may change what is offered. */
  invalidateCapabilities(): void {
    this.offered = undefined;
  }

  /** Serves one modern request to its response; null when it was cancelled (no response is due). */
  async handle(request: JsonRpcRequest, channel: MessageChannel, options: ModernRequestOptions = {}): Promise<JsonRpcResponse | null> {
    const engine = this.engine;
    const trace = engine.telemetry.startRequest(request.method, request.id, request.params, { origin: options.origin });
    let logger = options.logger ?? engine.logger;
    const traced = trace?.logFields();
    if (traced) logger = logger.child(traced);
    const claim = options.claim ?? readModernClaim(request);
    const startedAt = logger.isLevelEnabled('info') ? performance.now() : -1;
    const messages: MessageLogTarget | undefined = startedAt >= 0 && logger.isLevelEnabled('debug') ? { logger, session: undefined, maxBytes: engine.debugMessageBytes } : undefined;
    if (messages) {
      logMessage(messages, 'in', request);
      channel = loggedChannel(channel, messages);
    }
    let response: JsonRpcResponse | null;
    try {
      response = await (trace ? trace.run(() => this.respond(request, channel, options, logger, claim, trace)) : this.respond(request, channel, options, logger, claim, trace));
    } catch (err) {
      // What escapes (the transport answers it with -32603) still ends the span and the in-flight count.
      trace?.exception(err);
      trace?.end(errorResponse(request.id, ErrorCode.InternalError, err instanceof Error ? err.message : String(err)), isRefusal(claim) ? undefined : claim.protocolVersion);
      throw err;
    }
    if (messages && response) logMessage(messages, 'out', response);
    if (startedAt >= 0) logRequest(logger, undefined, request, response, startedAt);
    trace?.end(response, isRefusal(claim) ? undefined : claim.protocolVersion);
    return response;
  }

  private async respond(
    request: JsonRpcRequest,
    channel: MessageChannel,
    options: ModernRequestOptions,
    logger: Logger,
    claim: ModernClaim | ReturnType<typeof readModernClaim>,
    trace: RequestTrace | undefined,
  ): Promise<JsonRpcResponse | null> {
    const { id, method } = request;
    if (isRefusal(claim)) return errorResponse(id, claim.code, claim.message, claim.data);
    const handler = this.methods.get(method);
    if (!handler) return errorResponse(id, ErrorCode.MethodNotFound, `Method not found: ${method}`);
    const params = request.params ?? {};
    const env: RequestEnv = {
      era: 'modern',
      protocolVersion: claim.protocolVersion,
      clientInfo: claim.clientInfo,
      clientCapabilities: claim.clientCapabilities,
      logLevel: claim.logLevel,
      principal: options.principal,
      serverCapabilities: this.capabilities(),
    };

    // A retry of a multi round-trip request brings its state and the answers to the last round.
    const canAsk = MRTR_METHODS.has(method);
    let round: StatePayload | undefined;
    let answers: Record<string, unknown> | undefined;
    let responses: Record<string, unknown> | undefined;
    // Hashing the params costs: only a round that opens or seals a state needs it.
    let digested: string | undefined;
    const digest = () => (digested ??= requestDigest(method, params));
    if (canAsk && (params.requestState !== undefined || params.inputResponses !== undefined)) {
      try {
        ({ round, answers, responses } = this.openRound(params, digest, options.principal));
      } catch (err) {
        if (err instanceof McpError) return errorResponse(id, err.code, err.message, err.data);
        throw err;
      }
    }
    const engine = this.engine;
    // A first round has no answers yet: its questions all become input requests.
    if (canAsk) answers ??= {};
    const host = new ModernHost(engine, logger, method, answers);
    const abort = options.abort ?? new LazyAbort();
    const meta = params._meta as Record<string, unknown> | undefined;
    const ctx = new RequestContext(host, env, id, method, meta, abort, channel);
    if (round || responses) ctx.input = { responses, state: round?.state };
    ctx.trace = trace;
    let result: Record<string, unknown> | undefined;
    let failure: unknown;
    let failed = false;
    try {
      result = await handler(params, ctx);
    } catch (err) {
      failed = true;
      failure = err;
      trace?.exception(err);
    } finally {
      ctx.done = true;
    }
    if (abort.aborted) return null;
    const inputRequired = (requests: Record<string, InputRequest>, carried: Record<string, unknown>, state: unknown) =>
      resultResponse(id, this.inputRequired(requests, carried, digest, options.principal, state));
    // Questions the run could not answer end the round, whatever the handler made of their rejection.
    if (host.pendingCount > 0 && !(failure instanceof InputRequired)) return inputRequired(host.pending, host.used, round?.state);
    if (!failed) return resultResponse(id, completeResult(method, result!, engine.serverInfo, ctx.cacheHint ? { ...this.cache, ...ctx.cacheHint } : this.cache));
    if (canAsk && failure instanceof UrlElicitationRequiredError && env.clientCapabilities.elicitation?.url) {
      // The 2025 error becomes this era's question: visit these URLs, then retry.
      const requests: Record<string, InputRequest> = {};
      failure.elicitations.forEach((e, i) => (requests[`url-${i + 1}`] = { method: 'elicitation/create', params: { mode: 'url', message: e.message, url: e.url } }));
      return inputRequired(requests, host.used, round?.state);
    }
    if (canAsk && failure instanceof InputRequired) {
      const requests = failure.input.inputRequests ?? {};
      try {
        for (const request of Object.values(requests)) checkInputCapability(env.clientCapabilities, request);
      } catch (refused) {
        return errorResponseFor(id, method, toModernError(refused), logger);
      }
      // The lower-level form keeps its own state: no answers of ours to carry.
      return inputRequired(requests, {}, failure.input.state);
    }
    return errorResponseFor(id, method, toModernError(failure), logger);
  }

  /** Opens the state a retry brings back (refused with -32602 when it fails any check) and merges the new answers in. */
  private openRound(params: Record<string, unknown>, digest: () => string, principal: Principal | undefined) {
    const sealed = params.requestState;
    const given = params.inputResponses;
    if (sealed !== undefined && typeof sealed !== 'string') throw McpError.invalidParams('requestState must be a string, as the server issued it');
    if (given !== undefined && (given === null || typeof given !== 'object' || Array.isArray(given))) {
      throw McpError.invalidParams('inputResponses must be an object mapping each input request key to its result');
    }
    let round: StatePayload | undefined;
    if (sealed !== undefined) {
      try {
        round = this.sealer.open(sealed, { request: digest(), principal: principalKey(principal), now: Date.now() });
      } catch (err) {
        if (err instanceof RequestStateError) throw McpError.invalidParams(err.message);
        throw err;
      }
    }
    const answers: Record<string, unknown> = { ...round?.answers };
    const responses = given as Record<string, unknown> | undefined;
    if (responses) {
      for (const [key, value] of Object.entries(responses)) {
        if (value === null || typeof value !== 'object' || Array.isArray(value)) throw McpError.invalidParams(`inputResponses["${key}"] must be an object (the result of the input request)`);
        // Only what the last round asked is taken: anything else is ignored, as the spec says.
        if (!round || round.asked.includes(key)) answers[key] = value;
      }
    }
    return { round, answers, responses };
  }

  private inputRequired(
    requests: Record<string, InputRequest>,
    answers: Record<string, unknown>,
    digest: () => string,
    principal: Principal | undefined,
    state: unknown,
  ): Record<string, unknown> {
    const asked = Object.keys(requests);
    const requestState = this.sealer.seal({
      request: digest(),
      principal: principalKey(principal),
      expiresAt: Date.now() + this.stateTtlMs,
      answers,
      asked,
      state,
    });
    const result: Record<string, unknown> = { resultType: 'input_required', requestState };
    if (asked.length > 0) result.inputRequests = requests;
    return result;
  }
}

/** The 2026-07-28 form of an error: resource not found is -32602; a missing client capability is -32021. */
function toModernError(err: unknown): unknown {
  if (err instanceof ClientCapabilityError) return err.toMcpError();
  if (err instanceof UrlElicitationRequiredError) {
    return new McpError(ErrorCode.MissingRequiredClientCapability, 'This request needs the user to visit a URL, and the client does not support URL elicitation', {
      requiredCapabilities: { elicitation: { url: {} } },
    });
  }
  if (err instanceof McpError && err.code === ErrorCode.ResourceNotFound) return new McpError(ErrorCode.InvalidParams, err.message, err.data);
  if (err instanceof InputNeeded) return new McpError(ErrorCode.InvalidRequest, 'This request cannot wait on the client for input');
  return err;
}

/** Who a requestState is bound to: the principal's issuer, subject and client; '' without auth. */
function principalKey(principal: Principal | undefined): string {
  return principal ? `${principal.claims?.iss ?? ''}\u0000${principal.subject}\u0000${principal.clientId ?? ''}` : '';
}
