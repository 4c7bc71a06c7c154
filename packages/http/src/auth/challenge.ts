import type { FastifyReply } from 'fastify';
import { metadataUrlOf, type AuthOptions } from './options';

/** A quoted-string for an auth-param: backslash and quote escaped, nothing that could break the header. */
function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, '\\$&').replace(/[\r\n]/g, ' ')}"`;
}

/** Sends an OAuth bearer challenge (RFC 6750 §3) pointing at the resource metadata (RFC 9728 §5.1). */
export function sendChallenge(
  reply: FastifyReply,
  auth: AuthOptions,
  status: 400 | 401 | 403,
  params: { error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope'; description?: string; scope?: readonly string[] },
): FastifyReply {
  const parts = [`resource_metadata=${quoted(metadataUrlOf(auth.resource))}`];
  if (params.scope && params.scope.length > 0) parts.push(`scope=${quoted(params.scope.join(' '))}`);
  if (params.error) parts.push(`error=${quoted(params.error)}`);
  if (params.description) parts.push(`error_description=${quoted(params.description)}`);
  const message = params.description ?? (status === 401 ? 'a bearer token is required' : 'the request is not allowed');
  return reply
    .code(status)
    .header('www-authenticate', `Bearer ${parts.join(', ')}`)
    .header('content-type', 'application/json')
    .send(JSON.stringify({ error: params.error ?? 'unauthorized', error_description: message }));
}
