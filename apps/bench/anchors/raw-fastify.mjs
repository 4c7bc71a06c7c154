// The ceiling: a bare Fastify route on 127.0.0.1:$PORT/mcp that answers a tools/call with the bytes
// an MCP server would send (the JSON-RPC result of `echo` or `big`), doing no MCP work at all:
// no session, no validation, no dispatch. Fastify parses the body and serializes the reply.
import Fastify from 'fastify';
import payload from '../dist/payload.js';

const app = Fastify({ logger: false, bodyLimit: 4 * 1024 * 1024 });
app.post('/mcp', async (request) => {
  const { id, params } = request.body;
  const text = params?.name === 'big' ? payload.BIG_TEXT : params?.arguments?.text;
  return { result: { content: [{ type: 'text', text }] }, jsonrpc: '2.0', id };
});
const port = Number(process.env.PORT ?? 3000);
await app.listen({ host: '127.0.0.1', port });
process.stderr.write(`raw fastify route on http://127.0.0.1:${port}/mcp\n`);
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => app.close().then(() => process.exit(0)));
