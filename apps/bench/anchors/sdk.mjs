// Anchor: the two benchmark tools on the official SDK's McpServer, served the way its documentation
// shows: Streamable HTTP, stateful (one transport and one McpServer per session, on node:http with
// no framework in front), or stdio with --stdio. HTTP on 127.0.0.1:$PORT/mcp.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import payload from '../dist/payload.js';

function buildServer() {
  const server = new McpServer({ name: 'sdk-bench', version: '1.0.0' });
  server.registerTool('echo', { description: payload.ECHO_DESCRIPTION, inputSchema: { text: z.string().describe('The text to return') } }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  server.registerTool('big', { description: payload.BIG_DESCRIPTION }, async () => ({
    content: [{ type: 'text', text: payload.BIG_TEXT }],
  }));
  return server;
}

if (process.argv.includes('--stdio')) {
  await buildServer().connect(new StdioServerTransport());
} else {
  const transports = new Map();
  const httpServer = http.createServer(async (req, res) => {
    if (!req.url.startsWith('/mcp')) return void res.writeHead(404).end();
    const sessionId = req.headers['mcp-session-id'];
    let transport = sessionId ? transports.get(sessionId) : undefined;
    if (!transport) {
      if (sessionId) return void res.writeHead(404).end('unknown session');
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      transport.onclose = () => transports.delete(transport.sessionId);
      await buildServer().connect(transport);
    }
    await transport.handleRequest(req, res);
  });
  httpServer.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => process.stderr.write(`sdk bench server on http://127.0.0.1:${httpServer.address().port}/mcp\n`));
}
