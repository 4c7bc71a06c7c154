import type { Logger } from 'pino';
import type { Principal } from '../../auth/principal';
import { McpError } from '../../protocol/errors';
import type { JsonRpcRequest, JsonRpcResponse } from '../../protocol/jsonrpc';
import type { ServerCapabilities } from '../../protocol/types';
import type { MessageChannel } from '../../context/channel';
import type { ServerServices } from '../../context/services';
import type { InputRequest } from '../../protocol/input-required';
import type { LazyAbort } from '../../context/lazy-abort';
import type { InFlightScope } from '../../pipeline/era-front';
import { readModernClaim, type ModernClaim, type ModernRefusal } from './meta';
import type { ListenSubscriptions } from './subscriptions';
import { modernMethods } from './methods';
import { ModernFront, type ModernFrontOptions } from './modern-front';
import { RequestStateError, RequestStateSealer, type StatePayload } from './request-state';
import { checkCacheHint, type CacheHint } from './result-shape';
import type { RequestOrigin } from '../../telemetry/origin';
import type { Cluster } from '../../cluster/cluster';

export interface ModernOptions {
  /**
   * The key requestState is sealed with; every instance of a deployment must share it. Default:
   * MCPX_REQUEST_STATE_KEY, else the cluster's shared secret (followed as it changes), else a
   * random key per process. A key set here or in the environment always wins.
   */
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
  /** Where the request counts against the in-flight cap (a stdio stream, an HTTP caller). */
  inFlight?: InFlightScope;
}

/** How often the cluster's shared key is looked at (the cluster itself re-reads it once a lease). */
/** The name of the cluster's shared secret requestState is sealed with. */
const SHARED_KEY_NAME = 'request-state';

const SHARED_KEY_CHECK_MS = 1000;

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
  private keyWatch?: NodeJS.Timeout;
  /** Settles once requestState is sealed with the deployment's key (at once unless it comes from the cluster). */
  readonly keyReady: Promise<void>;

  constructor(
    readonly engine: ServerServices,
    options: ModernOptions = {},
    cluster?: Pick<Cluster, 'secret'>,
  ) {
    checkCacheHint(options.cache, 'cache');
    this.cache = { ttlMs: options.cache?.ttlMs ?? 0, cacheScope: options.cache?.cacheScope ?? 'private' };
    const key = options.requestStateKey ?? (process.env.MCPX_REQUEST_STATE_KEY || undefined);
    this.sealer = new RequestStateSealer(key);
    this.keyReady = key === undefined && cluster ? this.followSharedKey(cluster) : Promise.resolve();
    this.stateTtlMs = options.requestStateTtlMs ?? DEFAULT_STATE_TTL_MS;
    if (!Number.isSafeInteger(this.stateTtlMs) || this.stateTtlMs < 1) throw new RangeError(`requestStateTtlMs must be a positive integer, got ${this.stateTtlMs}`);
  }

  /**
   * Seals with the cluster's shared secret, and keeps following it: if Redis loses it, the first
   * instance to look writes it back (or a restarted one a new one) and every instance converges on
   * the one stored, still opening states sealed with the keys it replaced.
   */
  private async followSharedKey(cluster: Pick<Cluster, 'secret'>): Promise<void> {
    this.sealer.rotate(await cluster.secret(SHARED_KEY_NAME));
    this.keyWatch = setInterval(() => {
      cluster.secret(SHARED_KEY_NAME).then(
        (secret) => {
          if (this.sealer.rotate(secret)) this.engine.logger.info('requestState: now sealing with the shared key stored in Redis');
        },
        (err: unknown) => this.engine.logger.debug({ err }, 'requestState: could not read the shared key; keeping the current one'),
      );
    }, SHARED_KEY_CHECK_MS);
    this.keyWatch.unref();
  }

  /** Stops following the shared key. */
  close(): void {
    clearInterval(this.keyWatch);
  }

  /** What the server offers modern clients: derived from the registry, as server/discover tells it. */
  capabilities(): ServerCapabilities {
    return (this.offered ??= this.engine.modernCapabilities());
  }

  /** Registry changes may change what is offered. */
  invalidateCapabilities(): void {
    this.offered = undefined;
  }

  /** The pipeline's front for one modern request: its claim, and who calls from where. */
  front(claim: ModernClaim | ModernRefusal, options: ModernFrontOptions = {}): ModernFront {
    return new ModernFront(this, claim, options);
  }

  /** Serves one modern request through the pipeline to its response; null when it was cancelled (no response is due). */
  handle(request: JsonRpcRequest, channel: MessageChannel, options: ModernRequestOptions = {}): Promise<JsonRpcResponse | null> {
    const front = this.front(options.claim ?? readModernClaim(request), options);
    return this.engine.pipeline.handle(front, { request, principal: options.principal, logger: options.logger, abort: options.abort, origin: options.origin }, channel);
  }

  /** Opens the state a retry brings back (refused with -32602 when it fails any check) and merges the new answers in. */
  openRound(params: Record<string, unknown>, digest: () => string, principal: Principal | undefined) {
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
    // Answers count only for the questions the sealed round asked: without a round (a first call)
    // none is taken, and keys the round did not ask are ignored unchecked, as the spec says.
    // `responses` (ctx.inputResponses) holds the same answers: a handler never sees the rest.
    let responses: Record<string, unknown> | undefined;
    if (round && given !== undefined) {
      const offered = given as Record<string, unknown>;
      responses = {};
      for (const key of round.asked) {
        if (!Object.hasOwn(offered, key)) continue;
        const value = offered[key];
        if (value === null || typeof value !== 'object' || Array.isArray(value)) throw McpError.invalidParams(`inputResponses["${key}"] must be an object (the result of the input request)`);
        answers[key] = responses[key] = value;
      }
    }
    return { round, answers, responses };
  }

  inputRequired(requests: Record<string, InputRequest>, answers: Record<string, unknown>, digest: () => string, principal: Principal | undefined, state: unknown): Record<string, unknown> {
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

/** Who a requestState is bound to: the principal's issuer, subject and client; '' without auth. */
function principalKey(principal: Principal | undefined): string {
  return principal ? `${principal.claims?.iss ?? ''}\u0000${principal.subject}\u0000${principal.clientId ?? ''}` : '';
}

declare module '../../context/services' {
  interface ServerServices {
    /** Where 2026-07-28 requests get their front, their requestState and their caching hints. */
    readonly modern: ModernRequests;
    /** The open subscriptions/listen streams. */
    readonly subscriptions: ListenSubscriptions;
  }
}
