import Fastify from 'fastify';
import { mcpx } from '@mcpx/http';
import { TeamServer } from './tools-input';
import { WeatherServer } from './tools-output-class';

export async function buildApp() {
  const app = Fastify({ logger: true });
  app.get('/', async () => ({ hello: 'world' })); // the app's own routes are untouched

  // The endpoint at /api/mcp; two decorated objects served as one MCP server.
  await app.register(mcpx, {
    server: [new TeamServer(), new WeatherServer()],
    prefix: '/api',
    path: '/mcp',
    healthRoutes: true, // /api/healthz and /api/readyz
    onEndpoint: (endpoint) => app.addHook('onClose', () => endpoint.drain(5000)),
  });
  return app;
}

if (require.main === module) void buildApp().then((app) => app.listen({ port: 3000 }));
