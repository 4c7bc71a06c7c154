// The ceiling: a bare Fastify route on 127.0.0.1:$PORT/mcp that answers a tools/call with the bytes
// an MCP server would send (the JSON-RPC result of `echo` or `big`), doing no MCP work at all:
// no session, no validation, no dispatch. Fastify parses the body and serializes the reply.
// A 2026-07-28 request (its `_meta` names the protocol version) gets the result a 2026 server
// sends: `resultType` and the server's identity in the result's `_meta`.
import Fastify from 'fastify';
import payload from '../dist/payload.js';

const MODERN_VERSION = 'io.modelcontextprotocol/protocolVersion';
const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'mcpx-bench', version: '1.0.0' } };

const app = Fastify({ logger: false, bodyLimit: 4 * 1024 * 1024 });
app.post('/mcp', async (request) => {
  const { id, params } = request.body;
  const text = params?.name === 'big' ? payload.BIG_TEXT : params?.arguments?.text;
  const content = [{ type: 'text', text }];
  if (params?._meta?.[MODERN_VERSION]) return { jsonrpc: '2.0', id, result: { resultType: 'complete', content, _meta: SERVER_INFO } };
  return { result: { content }, jsonrpc: '2.0', id };
});
const port = Number(process.env.PORT ?? 3000);
await app.listen({ host: '127.0.0.1', port });
process.stderr.write(`raw fastify route on http://127.0.0.1:${port}/mcp\n`);
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => app.close().then(() => process.exit(0)));
