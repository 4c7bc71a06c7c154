import type { FastifyInstance } from 'fastify';
import type { AuthOptions } from './options';
import { registerCors, resolveCors, type CorsOptions, type ResolvedCorsOptions } from '../cors';

const WELL_KNOWN = '/.well-known';

/**
 * Serves the Protected Resource Metadata (RFC 9728) at /.well-known/oauth-protected-resource and
 * at its form with the MCP path appended, where MCP clients look first. Register it on the app
 * root (listen() does); a plugin mounted under a prefix cannot reach /.well-known itself.
 *
 * With `cors` (the endpoint's CORS options), pages from those origins may read it too: a browser
 * client fetches it when a 401 points there. The routes then live in a context of their own under
 * /.well-known, so @fastify/cors (and its catch-all OPTIONS route) reaches nothing else.
 */
export function registerProtectedResourceMetadata(app: FastifyInstance, auth: AuthOptions, options: { cors?: CorsOptions | ResolvedCorsOptions } = {}): void {
  const document = JSON.stringify({
    resource: auth.resource,
    authorization_servers: auth.authorizationServers,
    ...(auth.scopesSupported ? { scopes_supported: auth.scopesSupported } : {}),
    bearer_methods_supported: ['header'],
    ...(auth.resourceName ? { resource_name: auth.resourceName } : {}),
  });
  const path = new URL(auth.resource).pathname.replace(/\/$/, '');
  const routes = new Set([`${WELL_KNOWN}/oauth-protected-resource`, `${WELL_KNOWN}/oauth-protected-resource${path}`]);
  const serve = (scope: FastifyInstance, prefix: string) => {
    for (const url of routes) {
      scope.get(url.slice(prefix.length), async (_request, reply) => reply.header('content-type', 'application/json').header('cache-control', 'max-age=300').send(document));
    }
  };
  const cors = resolveCors(options.cors);
  if (!cors) return serve(app, '');
  void app.register(
    async (scope) => {
      await registerCors(scope, cors, (request) => routes.has(request.url.split('?')[0]!));
      serve(scope, WELL_KNOWN);
    },
    { prefix: WELL_KNOWN },
  );
}
