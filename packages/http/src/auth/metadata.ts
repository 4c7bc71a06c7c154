import type { FastifyInstance } from 'fastify';
import type { AuthOptions } from './options';

/**
 * Serves the Protected Resource Metadata (RFC 9728) at /.well-known/oauth-protected-resource and
 * at its form with the MCP path appended, where MCP clients look first. Register it on the app
 * root (listen() does); a plugin mounted under a prefix cannot reach /.well-known itself.
 */
export function registerProtectedResourceMetadata(app: FastifyInstance, auth: AuthOptions): void {
  const document = JSON.stringify({
    resource: auth.resource,
    authorization_servers: auth.authorizationServers,
    ...(auth.scopesSupported ? { scopes_supported: auth.scopesSupported } : {}),
    bearer_methods_supported: ['header'],
    ...(auth.resourceName ? { resource_name: auth.resourceName } : {}),
  });
  const path = new URL(auth.resource).pathname.replace(/\/$/, '');
  const routes = new Set(['/.well-known/oauth-protected-resource', `/.well-known/oauth-protected-resource${path}`]);
  for (const url of routes) {
    app.get(url, async (_request, reply) => reply.header('content-type', 'application/json').header('cache-control', 'max-age=300').send(document));
  }
}
