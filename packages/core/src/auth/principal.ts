import { ErrorCode, McpError } from '../protocol/errors';

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

/** What an entry (tool, resource, template, prompt) needs before a principal may use it. */
export interface ScopedEntry {
  readonly scopes: readonly string[];
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
