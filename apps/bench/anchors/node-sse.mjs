// The floor: what answering like a stateful MCP server with SSE responses costs on bare node:http,
// with no framework and no MCP library, on 127.0.0.1:$PORT/mcp. It reads the POST body to its end,
// JSON.parse's it, and answers:
//   initialize         → a session id (randomUUID) kept in a Map with a small record, in the
//                        Mcp-Session-Id header, and the InitializeResult as a one-event SSE stream;
//   notifications      → 202 (a known session needed);
//   tools/list         → the two tools; tools/call → echo or big, each as a one-event SSE stream
//                        (a known session needed: 400 without one, 404 for an unknown one);
//   DELETE             → forgets the session (200; 404 when unknown).
// A 2026-07-28 request (its params._meta names the protocol version) needs no session and gets the
// result a 2026 server sends, byte for byte what raw-fastify.mjs answers. Each answer leaves in one
// write with a Content-Length, as mcpx sends an SSE answer that is ready at once. No validation and
// no dispatch beyond a switch: any MCP server does at least this much work per request.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import payload from '../dist/payload.js';

const MODERN_VERSION = 'io.modelcontextprotocol/protocolVersion';
const SERVER_INFO = { name: 'mcpx-bench', version: '1.0.0' };
const MODERN_META = { 'io.modelcontextprotocol/serverInfo': SERVER_INFO };
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
const TOOLS = payload.TOOLS;

/** Session id → what a server keeps of a session at the least. */
const sessions = new Map();

// writeHead stores the headers at once: without a Content-Length there, end() would send the body chunked.
function sse(res, message, headers = {}) {
  const body = `event: message\ndata: ${JSON.stringify(message)}\n\n`;
  res.writeHead(200, { ...SSE_HEADERS, ...headers, 'content-length': Buffer.byteLength(body) }).end(body);
}

function refuse(res, status, message) {
  const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
}

/** The session the request names, or undefined once it has been refused. */
function sessionOf(req, res) {
  const id = req.headers['mcp-session-id'];
  if (typeof id !== 'string') return void refuse(res, 400, 'Bad Request: Mcp-Session-Id header is required');
  const session = sessions.get(id);
  if (!session) return void refuse(res, 404, 'Session not found');
  return session;
}

function toolResult(params, modern) {
  const text = params?.name === 'big' ? payload.BIG_TEXT : params?.arguments?.text;
  const content = [{ type: 'text', text }];
  return modern ? { resultType: 'complete', content, _meta: MODERN_META } : { content };
}

function answer(req, res, message) {
  const { id, method, params } = message;
  const modern = Boolean(params?._meta?.[MODERN_VERSION]);
  if (method === 'initialize') {
    const sessionId = randomUUID();
    sessions.set(sessionId, { protocolVersion: params?.protocolVersion, clientInfo: params?.clientInfo, createdAt: Date.now() });
    const result = { protocolVersion: params?.protocolVersion ?? '2025-11-25', capabilities: { tools: {} }, serverInfo: SERVER_INFO };
    return sse(res, { jsonrpc: '2.0', id, result }, { 'mcp-session-id': sessionId });
  }
  if (!modern && !sessionOf(req, res)) return;
  if (id === undefined) return void res.writeHead(202).end();
  if (method === 'tools/call') {
    // The key order of raw-fastify.mjs's answers, so both send the same bytes.
    return sse(res, modern ? { jsonrpc: '2.0', id, result: toolResult(params, true) } : { result: toolResult(params, false), jsonrpc: '2.0', id });
  }
  if (method === 'tools/list') return sse(res, { jsonrpc: '2.0', id, result: modern ? { tools: TOOLS, resultType: 'complete' } : { tools: TOOLS } });
  sse(res, { jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } });
}

const server = http.createServer((req, res) => {
  if (!req.url.startsWith('/mcp')) return void res.writeHead(404).end();
  if (req.method === 'DELETE') {
    if (!sessionOf(req, res)) return;
    sessions.delete(req.headers['mcp-session-id']);
    return void res.writeHead(200).end();
  }
  if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST, DELETE' }).end();
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    let message;
    try {
      message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return refuse(res, 400, 'Parse error');
    }
    // One JSON-RPC message per POST (batches are gone since 2025-06-18).
    if (message === null || typeof message !== 'object' || Array.isArray(message)) return refuse(res, 400, 'Invalid Request');
    answer(req, res, message);
  });
});
const port = Number(process.env.PORT ?? 3000);
server.listen(port, '127.0.0.1', () => process.stderr.write(`bare node:http SSE server on http://127.0.0.1:${server.address().port}/mcp\n`));
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => server.close(() => process.exit(0)));
