import type { Logger } from 'pino';
import type { Principal } from '../../auth/principal';
import { McpError, UrlElicitationRequiredError } from '../../protocol/errors';
import { errorResponse, resultResponse, type JsonRpcErrorResponse, type JsonRpcRequest, type JsonRpcResponse } from '../../protocol/jsonrpc';
import type { MessageChannel } from '../../context/channel';
import { RequestContext } from '../../context/request-context';
import { errorResponseFor } from '../../context/error-responses';
import type { MethodHandler } from '../../context/handler-types';
import { InputRequired, type InputRequest } from '../../protocol/input-required';
import { checkInputCapability } from '../../context/input-rounds';
import type { LazyAbort } from '../../context/lazy-abort';
import type { RequestEnv } from '../../context/request-env';
import { ErrorCode } from '../../protocol/errors';
import type { EraFront, InFlightScope, Inbound, Outcome } from '../../pipeline/era-front';
import type { RequestOrigin } from '../../telemetry/origin';
import type { RequestTrace } from '../../telemetry/telemetry';
import { isRefusal, type ModernClaim, type ModernRefusal } from './meta';
import { MRTR_METHODS } from './methods';
import { ModernHost } from './modern-host';
import { requestDigest, type StatePayload } from './request-state';
import { completeResult } from './result-shape';
import type { ServerServices } from '../../context/services';
import type { CacheHint } from '../../protocol/cache-hint';
import type { ServerCapabilities } from '../../protocol/types';
import { toModernError } from './modern-errors';

/** What a front needs of the modern era's requests service (ModernRequests): kept narrow so the two do not import each other. */
export interface ModernRounds {
  readonly engine: ServerServices;
  readonly cache: CacheHint;
  capabilities(): ServerCapabilities;
  /** Opens the state a retry brings back and takes the answers to what its round asked. */
  openRound(
    params: Record<string, unknown>,
    digest: () => string,
    principal: Principal | undefined,
  ): { round?: StatePayload; answers?: Record<string, unknown>; responses?: Record<string, unknown> };
  /** The InputRequiredResult of a round that asks the client, its state sealed. */
  inputRequired(requests: Record<string, InputRequest>, answers: Record<string, unknown>, digest: () => string, principal: Principal | undefined, state: unknown): Record<string, unknown>;
}

/** Where a modern request runs besides its claim: who calls, from where, and where it counts in flight. */
export interface ModernFrontOptions {
  principal?: Principal;
  origin?: RequestOrigin;
  /** Where the request counts against the in-flight cap (a stdio stream, an HTTP caller). */
  inFlight?: InFlightScope;
}

/**
 * One 2026-07-28 request as the pipeline's EraFront: the client comes from its `_meta` claim, the
 * handler runs with a RequestEnv built from it, and the outcome is shaped as the era wants it
 * (`resultType`, `serverInfo`, caching hints), or becomes an InputRequiredResult when the handler
 * waits on the client (multi round-trip requests). Made per request: it carries that request's round.
 */
export class ModernFront implements EraFront {
  readonly era = 'modern' as const;
  readonly logSessionId = undefined;
  readonly telemetrySessionId = undefined;
  readonly principal: Principal | undefined;
  readonly origin: RequestOrigin | undefined;
  readonly inFlight: InFlightScope | undefined;
  private host?: ModernHost;
  private round?: StatePayload;
  // Hashing the params costs: only a round that opens or seals a state needs it.
  private digested?: string;

  constructor(
    private readonly modern: ModernRounds,
    private readonly claim: ModernClaim | ModernRefusal,
    options: ModernFrontOptions = {},
  ) {
    this.principal = options.principal;
    this.origin = options.origin;
    this.inFlight = options.inFlight;
  }

  get protocolVersion(): string | undefined {
    return isRefusal(this.claim) ? undefined : this.claim.protocolVersion;
  }

  refuse(request: JsonRpcRequest, handler: MethodHandler | undefined): JsonRpcErrorResponse | undefined {
    const claim = this.claim;
    if (isRefusal(claim)) return errorResponse(request.id, claim.code, claim.message, claim.data);
    if (!handler) return errorResponse(request.id, ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    return undefined;
  }

  open(request: JsonRpcRequest, inbound: Inbound, channel: MessageChannel, abort: LazyAbort, logger: Logger, trace: RequestTrace | undefined): RequestContext | JsonRpcResponse {
    const claim = this.claim as ModernClaim;
    const { id, method } = request;
    const params = request.params ?? {};
    const principal = inbound.principal ?? this.principal;
    const env: RequestEnv = {
      era: 'modern',
      protocolVersion: claim.protocolVersion,
      clientInfo: claim.clientInfo,
      clientCapabilities: claim.clientCapabilities,
      logLevel: claim.logLevel,
      principal,
      serverCapabilities: this.modern.capabilities(),
    };
    // A retry of a multi round-trip request brings its state and the answers to the last round.
    const canAsk = MRTR_METHODS.has(method);
    let answers: Record<string, unknown> | undefined;
    let responses: Record<string, unknown> | undefined;
    if (canAsk && (params.requestState !== undefined || params.inputResponses !== undefined)) {
      try {
        ({ round: this.round, answers, responses } = this.modern.openRound(params, () => this.digest(method, params), principal));
      } catch (err) {
        if (err instanceof McpError) return errorResponse(id, err.code, err.message, err.data);
        throw err;
      }
    }
    // A first round has no answers yet: its questions all become input requests.
    if (canAsk) answers ??= {};
    this.host = new ModernHost(this.modern.engine, logger, method, answers);
    const meta = params._meta as Record<string, unknown> | undefined;
    const ctx = new RequestContext(this.host, env, id, method, meta, abort, channel);
    // Only a sealed round hands the handler anything: a first call's inputResponses answer nothing asked.
    if (this.round) ctx.input = { responses, state: this.round.state };
    ctx.trace = trace;
    return ctx;
  }

  invoke(handler: MethodHandler, params: Record<string, unknown>, ctx: RequestContext): Record<string, unknown> | Promise<Record<string, unknown>> {
    return handler(params, ctx);
  }

  answer(request: JsonRpcRequest, ctx: RequestContext, outcome: Outcome, logger: Logger): JsonRpcResponse | null {
    if (ctx.aborted) return null;
    const { id, method } = request;
    const host = this.host!;
    const params = request.params ?? {};
    const principal = ctx.principal;
    const round = this.round;
    const inputRequired = (requests: Record<string, InputRequest>, carried: Record<string, unknown>, state: unknown) =>
      resultResponse(
        id,
        this.modern.inputRequired(requests, carried, () => this.digest(method, params), principal, state),
      );
    const failure = outcome.ok ? undefined : outcome.error;
    // Questions the run could not answer end the round, whatever the handler (or a middleware) made of their rejection.
    if (host.pendingCount > 0 && !(failure instanceof InputRequired)) return inputRequired(host.pending, host.used, round?.state);
    if (outcome.ok) {
      const cache = this.modern.cache;
      return resultResponse(id, completeResult(method, outcome.result, this.modern.engine.serverInfo, ctx.cacheHint ? { ...cache, ...ctx.cacheHint } : cache));
    }
    const canAsk = MRTR_METHODS.has(method);
    if (canAsk && failure instanceof UrlElicitationRequiredError && ctx.env.clientCapabilities.elicitation?.url) {
      // The 2025 error becomes this era's question: visit these URLs, then retry.
      const requests: Record<string, InputRequest> = {};
      failure.elicitations.forEach((e, i) => (requests[`url-${i + 1}`] = { method: 'elicitation/create', params: { mode: 'url', message: e.message, url: e.url } }));
      return inputRequired(requests, host.used, round?.state);
    }
    if (canAsk && failure instanceof InputRequired) {
      const requests = failure.input.inputRequests ?? {};
      try {
        for (const asked of Object.values(requests)) checkInputCapability(ctx.env.clientCapabilities, asked);
      } catch (refused) {
        return errorResponseFor(id, method, toModernError(refused), logger);
      }
      // The lower-level form keeps its own state: no answers of ours to carry.
      return inputRequired(requests, {}, failure.input.state);
    }
    return errorResponseFor(id, method, toModernError(failure), logger);
  }

  private digest(method: string, params: Record<string, unknown>): string {
    return (this.digested ??= requestDigest(method, params));
  }
}
