// Anchor: the two benchmark tools on the official SDK v2 (@modelcontextprotocol/server), served as its
// guides show: over HTTP, createMcpHandler (2026-07-28 natively, 2025 clients statelessly, its default)
// wrapped once with toNodeHandler and mounted on createMcpFastifyApp; over stdio (--stdio), serveStdio.
// HTTP on 127.0.0.1:$PORT/mcp.
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createMcpFastifyApp } from '@modelcontextprotocol/fastify';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { z } from 'zod';
import payload from '../dist/payload.js';

function buildServer() {
  const server = new McpServer({ name: 'sdk2-bench', version: '1.0.0' });
  server.registerTool('echo', { description: payload.ECHO_DESCRIPTION, inputSchema: z.object({ text: z.string().describe('The text to return') }) }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  server.registerTool('big', { description: payload.BIG_DESCRIPTION }, async () => ({
    content: [{ type: 'text', text: payload.BIG_TEXT }],
  }));
  return server;
}

if (process.argv.includes('--stdio')) {
  serveStdio(buildServer);
} else {
  const app = createMcpFastifyApp();
  const handler = toNodeHandler(createMcpHandler(buildServer));
  app.all('/mcp', async (request, reply) => {
    reply.hijack();
    await handler(request.raw, reply.raw, request.body);
  });
  await app.listen({ port: Number(process.env.PORT ?? 3000), host: '127.0.0.1' });
  process.stderr.write(`sdk v2 bench server on http://127.0.0.1:${app.server.address().port}/mcp\n`);
}
