/** The MCP messages the load generators send, and how they read the answers (JSON or SSE). */

export const PROTOCOL_VERSION = '2025-11-25';
/** The modern era's version: no session, the client in every request's `_meta`. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** The `_meta` every modern request carries. */
export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'mcpx-bench', version: '1.0.0' },
};

/** Headers of a modern tools/call POST (2026-07-28): version, method and tool name mirrored from the body. */
export function modernCallHeaders(tool: 'echo' | 'big'): Record<string, string> {
  return { ...postHeaders(), 'mcp-protocol-version': MODERN_PROTOCOL_VERSION, 'mcp-method': 'tools/call', 'mcp-name': tool };
}

/** Headers of a POST before a session exists. A new object each time: autocannon writes Content-Length into it. */
export function postHeaders(): Record<string, string> {
  return { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
}

/** Headers of every request after initialize (the session id is added when there is one). */
export function sessionHeaders(sessionId: string | undefined): Record<string, string> {
  const headers = { ...postHeaders(), 'mcp-protocol-version': PROTOCOL_VERSION };
  return sessionId ? { ...headers, 'mcp-session-id': sessionId } : headers;
}

export function initializeBody(id: number): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'mcpx-bench', version: '1.0.0' } },
  });
}

export const INITIALIZED_BODY = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });

export function listToolsBody(id: number): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' });
}

export function callBody(id: number, tool: 'echo' | 'big', text?: string, modern = false): string {
  const params: Record<string, unknown> = tool === 'echo' ? { name: 'echo', arguments: { text } } : { name: 'big', arguments: {} };
  if (modern) params._meta = MODERN_META;
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params });
}

interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: number | string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** The JSON-RPC response with `id` in a body that is either one JSON message or an SSE stream. */
export function findResponse(body: string, id: number): JsonRpcResponse | undefined {
  const trimmed = body.trimStart();
  if (trimmed.startsWith('{')) {
    const message = JSON.parse(trimmed) as JsonRpcResponse;
    return message.id === id ? message : undefined;
  }
  for (const line of body.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (!data) continue; // priming events
    const message = JSON.parse(data) as JsonRpcResponse;
    if (message.id === id && (message.result || message.error)) return message;
  }
  return undefined;
}

/** A header value, whatever case the server wrote its name in. */
export function headerOf(headers: Record<string, unknown>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? String(value[0]) : String(value);
  }
  return undefined;
}
