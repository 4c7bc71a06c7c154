import { ErrorCode, McpError } from '../protocol/errors';
import type { ClientCapabilities, Implementation } from '../protocol/types';

/**
 * Who is calling: set from a verified access token over HTTP, or configured for stdio (where the
 * spec says credentials come from the environment). Handlers see it as `ctx.principal`.
 */
export interface Principal {
  /** The token's subject (`sub`): the user or service the token stands for. */
  subject: string;
  /** The OAuth client the token was issued to (`client_id` / `azp`), when known. */
  clientId?: string;
  /** The scopes the token grants. */
  scopes: string[];
  /** Every claim of the token (or introspection answer), for what the fields above do not cover. */
  claims: Record<string, unknown>;
}

/** Who asks, as an entry's `visible` rule sees it: per request in the 2026-07-28 era, per session in 2025-11-25. */
export interface Caller {
  readonly principal?: Principal;
  readonly era: 'legacy' | 'modern';
  readonly clientInfo?: Implementation;
  /** The 2025-11-25 session's id; undefined in the 2026-07-28 era. */
  readonly sessionId?: string;
  /** What the client declared it supports (the session's, or this request's in 2026-07-28). */
  readonly clientCapabilities?: ClientCapabilities;
}

/** Whether a caller may know an entry exists: hidden entries are absent from its lists and answer as unknown. */
export type VisibilityRule = (caller: Caller) => boolean | Promise<boolean>;

/** What an entry (tool, resource, template, prompt) needs before a principal may use it, and who may see it. */
export interface ScopedEntry {
  readonly scopes: readonly string[];
  /** Labels the server's `includeTags` / `excludeTags` select on. */
  readonly tags?: readonly string[];
  readonly visible?: VisibilityRule;
}

/** The scopes of `required` the principal lacks (none when there is no principal: auth is off). */
export function missingScopes(principal: Principal | undefined, required: readonly string[]): string[] {
  if (!principal || required.length === 0) return [];
  return required.filter((scope) => !principal.scopes.includes(scope));
}

/** JSON-RPC code for a call its principal lacks the scopes for (an implementation-defined server error). */
export const INSUFFICIENT_SCOPE = ErrorCode.InsufficientScope;

/**
 * The principal lacks scopes the call needs. Over HTTP this never reaches the engine (the
 * transport answers 403 with a step-up challenge first); over stdio it is the JSON-RPC error.
 */
export class InsufficientScopeError extends McpError {
  constructor(
    readonly required: string[],
    what: string,
  ) {
    super(INSUFFICIENT_SCOPE, `Insufficient scope: ${what} needs ${required.join(' ')}`, { requiredScopes: required });
    this.name = 'InsufficientScopeError';
  }
}
