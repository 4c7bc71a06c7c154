import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Principal } from '@mcpx/core';
import { missingScopes } from '@mcpx/core/transport';
import { sendChallenge } from './challenge';
import type { AuthOptions } from './options';
import { InvalidTokenError } from './verifiers';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who sent the request, from its verified bearer token (auth on). */
    principal?: Principal;
  }
}

/**
 * Authenticates an MCP request before any work starts: the bearer token from the Authorization
 * header (never from the query string), checked by the verifier. Answers the challenge itself and
 * returns undefined when the request may not go on.
 */
export async function authenticate(request: FastifyRequest, reply: FastifyReply, auth: AuthOptions): Promise<Principal | undefined> {
  const query = request.query as Record<string, unknown> | undefined;
  if (query && typeof query === 'object' && 'access_token' in query) {
    sendChallenge(reply, auth, 400, { error: 'invalid_request', description: 'access tokens are accepted in the Authorization header only, never in the URL' });
    return undefined;
  }
  const header = request.headers.authorization;
  if (header === undefined) {
    sendChallenge(reply, auth, 401, { scope: auth.requiredScopes ?? auth.scopesSupported });
    return undefined;
  }
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  if (!match) {
    sendChallenge(reply, auth, 401, { error: 'invalid_request', description: 'the Authorization header must be: Bearer <token>' });
    return undefined;
  }
  let principal: Principal;
  try {
    principal = await auth.verifier(match[1]!);
  } catch (err) {
    const description = err instanceof InvalidTokenError ? err.message : 'the token could not be verified';
    if (!(err instanceof InvalidTokenError)) request.log.error({ err }, 'token verifier failed');
    sendChallenge(reply, auth, 401, { error: 'invalid_token', description });
    return undefined;
  }
  const required = auth.requiredScopes ?? [];
  if (missingScopes(principal, required).length > 0) {
    sendChallenge(reply, auth, 403, { error: 'insufficient_scope', scope: required, description: `this server needs the scopes ${required.join(' ')}` });
    return undefined;
  }
  return principal;
}

/** The identity a session is bound to: another principal presenting its id is told it does not exist. */
export function ownerOf(principal: Principal | undefined): string | undefined {
  return principal ? JSON.stringify([principal.claims.iss ?? null, principal.subject, principal.clientId ?? null]) : undefined;
}

/** Whether two principals are one owner, as ownerOf tells them apart; with string claims, without writing either key. */
export function sameOwner(a: Principal | undefined, b: Principal | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.subject !== b.subject || (a.clientId ?? null) !== (b.clientId ?? null)) return false;
  const [ia, ib] = [a.claims.iss ?? null, b.claims.iss ?? null];
  if ((ia === null || typeof ia === 'string') && (ib === null || typeof ib === 'string')) return ia === ib;
  return ownerOf(a) === ownerOf(b);
}
