import { InsufficientScopeError, missingScopes, type Principal, type ScopedEntry } from '../auth/principal';
import { ErrorCode } from '../protocol/errors';
import { errorResponse, type JsonRpcErrorResponse, type RequestId } from '../protocol/jsonrpc';
import type { Registry } from '../registry/registry';
import { dependsOnCaller, passesTags } from '../registry/entry-visibility';

/**
 * Admission: what a request must pass before any middleware or handler runs, decided once in the
 * pipeline for every era and transport. Transports map a refusal's `kind` to their own form (HTTP:
 * 403 with a step-up challenge for `scope`, 429 with Retry-After for `in-flight` and `rate`); everything else
 * is answered as the JSON-RPC error it carries.
 */
export type RefusalKind = 'era' | 'method' | 'scope' | 'in-flight' | 'rate';

export interface Refusal {
  readonly kind: RefusalKind;
  readonly response: JsonRpcErrorResponse;
  /** `scope`: every scope the request needs. */
  readonly requiredScopes?: readonly string[];
  /** `rate`: how long until one more request is allowed (HTTP's Retry-After, rounded up to seconds). */
  readonly retryAfterMs?: number;
  /** `rate`: the limits that applied, as HTTP's RateLimit-Policy header gives them. */
  readonly policy?: string;
  /** `rate`: the limit's store could not be reached (HTTP: 503, not 429). */
  readonly unavailable?: boolean;
}

/**
 * The entry a request names and the words that name it in a refusal, for the methods that name one.
 * An entry the caller may not see must answer as unknown, so one hidden by the server's tags, or
 * with a `visible` rule, is not scope-checked here: the handler decides visibility first.
 */
function scopedSubject(registry: Registry, method: string, params: Record<string, unknown> | undefined): { entry: ScopedEntry; what: string } | undefined {
  const subject = namedSubject(registry, method, params);
  return subject && (dependsOnCaller(subject.entry) || !passesTags(subject.entry, registry.tagFilter)) ? undefined : subject;
}

function namedSubject(registry: Registry, method: string, params: Record<string, unknown> | undefined): { entry: ScopedEntry; what: string } | undefined {
  if (!params) return undefined;
  switch (method) {
    case 'tools/call': {
      const name = params.name;
      const entry = typeof name === 'string' ? registry.tools.get(name) : undefined;
      return entry && { entry, what: `tool "${name}"` };
    }
    case 'prompts/get': {
      const name = params.name;
      const entry = typeof name === 'string' ? registry.prompts.get(name) : undefined;
      return entry && { entry, what: `prompt "${name}"` };
    }
    case 'completion/complete': {
      const ref = params.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
      if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
        const entry = registry.prompts.get(ref.name);
        return entry && { entry, what: `prompt "${ref.name}"` };
      }
      if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
        const entry = registry.templates.get(ref.uri);
        return entry && { entry, what: `resource template ${ref.uri}` };
      }
      return undefined;
    }
    case 'resources/read':
    case 'resources/subscribe': {
      const uri = params.uri;
      const entry = typeof uri === 'string' ? registry.entryForUri(uri) : undefined;
      return entry && { entry, what: `resource ${uri}` };
    }
    default:
      return undefined;
  }
}

/** The scopes a request needs for the entry it names; empty for everything else. */
export function requiredScopes(registry: Registry, method: string, params: Record<string, unknown> | undefined): readonly string[] {
  return scopedSubject(registry, method, params)?.entry.scopes ?? [];
}

/** The scope refusal of a request whose principal lacks scopes its entry needs (none without a principal: auth is off). */
export function scopeRefusal(registry: Registry, id: RequestId, method: string, params: Record<string, unknown> | undefined, principal: Principal | undefined): Refusal | undefined {
  if (!principal) return undefined;
  const subject = scopedSubject(registry, method, params);
  if (!subject || missingScopes(principal, subject.entry.scopes).length === 0) return undefined;
  const error = new InsufficientScopeError([...subject.entry.scopes], subject.what);
  return { kind: 'scope', response: errorResponse(id, error.code, error.message, error.data), requiredScopes: subject.entry.scopes };
}

/** The same check where no response is built: a middleware changed what the request names, and the new entry must be allowed too. */
export function checkScopes(registry: Registry, method: string, params: Record<string, unknown>, principal: Principal | undefined): void {
  if (!principal) return;
  const subject = scopedSubject(registry, method, params);
  if (subject && missingScopes(principal, subject.entry.scopes).length > 0) throw new InsufficientScopeError([...subject.entry.scopes], subject.what);
}

/** A bound on what runs at once, as a refusal names it: its option, its value, and who is at it ("this session", "this client"). */
export interface InFlightBound {
  readonly limit: string;
  readonly max: number;
  readonly holder: string;
}

/** The message and data of the -32004 answer to a request over its in-flight cap (`holder`: who reached it; "this session" by default). */
export function tooManyInFlight(cap: number, bound: Partial<InFlightBound> = {}): [string, { limit: string; max: number }] {
  const limit = bound.limit ?? 'maxRequestsInFlight';
  const holder = bound.holder ?? 'this session';
  const message =
    limit === 'maxRequestsInFlight'
      ? `Too many requests in flight: ${holder} already has ${cap} requests running (maxRequestsInFlight); wait for some to finish`
      : `Too many streams open: ${holder} already has ${cap} open (${limit}); close one first`;
  return [message, { limit, max: cap }];
}

/** The refusal of a request its in-flight scope did not take. */
export function inFlightRefusal(id: RequestId, verdict: 'taken' | 'full', cap: number, bound: Partial<InFlightBound> = {}): Refusal {
  if (verdict === 'taken') return { kind: 'era', response: errorResponse(id, ErrorCode.InvalidRequest, `Request id ${JSON.stringify(id)} is already in use by a request in flight`) };
  return { kind: 'in-flight', response: errorResponse(id, ErrorCode.LimitExceeded, ...tooManyInFlight(cap, bound)) };
}
