// The ceiling: a bare Fastify route on 127.0.0.1:$PORT/mcp that answers with the bytes an MCP server
// would send (JSON responses), doing as little MCP work as a stateful server can: no validation and
// no dispatch beyond a switch. Fastify parses the body and serializes the reply.
//   initialize    → a session id (randomUUID) kept in a Map with a small record, in the
//                   Mcp-Session-Id header, and the InitializeResult;
//   notifications → 202; tools/list → the two tools; tools/call → the result of `echo` or `big`
//                   (each needs a known session: 400 without one, 404 for an unknown one);
//   DELETE        → forgets the session (200; 404 when unknown).
// The sessions are there so that the RSS of an open idle session has a floor to be held against.
// A 2026-07-28 request (its `_meta` names the protocol version) needs no session and gets the result
// a 2026 server sends: `resultType` and the server's identity in the result's `_meta`.
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import payload from '../dist/payload.js';

const MODERN_VERSION = 'io.modelcontextprotocol/protocolVersion';
const SERVER_INFO = { name: 'mcpx-bench', version: '1.0.0' };
const MODERN_META = { 'io.modelcontextprotocol/serverInfo': SERVER_INFO };
const TOOLS = payload.TOOLS;

/** Session id → what a server keeps of a session at the least. */
const sessions = new Map();

/** True when the request names a known session; otherwise the reply is the refusal. */
function inSession(request, reply) {
  const id = request.headers['mcp-session-id'];
  if (typeof id !== 'string') return void reply.code(400).send({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' } });
  if (!sessions.has(id)) return void reply.code(404).send({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });
  return true;
}

const app = Fastify({ logger: false, bodyLimit: 4 * 1024 * 1024 });
app.post('/mcp', async (request, reply) => {
  if (request.body === null || typeof request.body !== 'object') return reply.code(400).send({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } });
  const { id, method, params } = request.body;
  const modern = Boolean(params?._meta?.[MODERN_VERSION]);
  if (method === 'initialize') {
    const sessionId = randomUUID();
    sessions.set(sessionId, { protocolVersion: params?.protocolVersion, clientInfo: params?.clientInfo, createdAt: Date.now() });
    reply.header('mcp-session-id', sessionId);
    return { jsonrpc: '2.0', id, result: { protocolVersion: params?.protocolVersion ?? '2025-11-25', capabilities: { tools: {} }, serverInfo: SERVER_INFO } };
  }
  if (!modern && !inSession(request, reply)) return reply;
  if (id === undefined) return reply.code(202).send();
  if (method === 'tools/list') return { jsonrpc: '2.0', id, result: modern ? { tools: TOOLS, resultType: 'complete' } : { tools: TOOLS } };
  if (method !== 'tools/call') return { jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } };
  const text = params?.name === 'big' ? payload.BIG_TEXT : params?.arguments?.text;
  const content = [{ type: 'text', text }];
  if (modern) return { jsonrpc: '2.0', id, result: { resultType: 'complete', content, _meta: MODERN_META } };
  return { result: { content }, jsonrpc: '2.0', id };
});
app.delete('/mcp', async (request, reply) => {
  if (!inSession(request, reply)) return reply;
  sessions.delete(request.headers['mcp-session-id']);
  return reply.code(200).send();
});
const port = Number(process.env.PORT ?? 3000);
await app.listen({ host: '127.0.0.1', port });
process.stderr.write(`raw fastify route on http://127.0.0.1:${port}/mcp\n`);
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => app.close().then(() => process.exit(0)));
