import { ErrorCode, McpError, ToolError, isMcpxError, type RequestContext } from '@mcpx/core';

/**
 * What a request's `_meta` carries on to the upstream: the application's keys. Not the progress
 * token (the gateway gives the upstream request one of its own), nor the keys MCP reserves
 * (`io.modelcontextprotocol/…`, `mcp.dev/…`): they describe the downstream hop (its protocol
 * version, client, capabilities, request state) and the gateway's own connection says those upstream.
 */
export function forwardedMeta(meta: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  return meta && metaWithout(meta, (key) => key === 'progressToken' || isReservedKey(key));
}

/**
 * An upstream's result without the `_meta` keys MCP reserves (its serverInfo, its protocol
 * version): they describe the upstream hop, and the gateway says its own downstream.
 */
export function withoutReservedMeta<T>(result: T): T {
  const meta = (result as { _meta?: Record<string, unknown> } | undefined)?._meta;
  if (!meta || typeof meta !== 'object' || !Object.keys(meta).some(isReservedKey)) return result;
  const { _meta: _dropped, ...rest } = result as Record<string, unknown>;
  const kept = metaWithout(meta, isReservedKey);
  return (kept ? { ...rest, _meta: kept } : rest) as T;
}

/** `meta`'s keys but those `drop` says, as own data properties (`__proto__` stays a key); undefined when none is left. */
function metaWithout(meta: Record<string, unknown>, drop: (key: string) => boolean): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  let any = false;
  for (const key of Object.keys(meta)) {
    if (drop(key)) continue;
    Object.defineProperty(out, key, { value: meta[key], enumerable: true, writable: true, configurable: true });
    any = true;
  }
  return any ? out : undefined;
}

/**
 * A `_meta` key MCP keeps for itself: its prefix has a `modelcontextprotocol` or `mcp` label
 * (`modelcontextprotocol.io/`, `mcp.dev/`, and `io.modelcontextprotocol/`, which 2026-07-28 uses).
 */
function isReservedKey(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return false;
  return key
    .slice(0, slash)
    .split('.')
    .some((label) => label === 'modelcontextprotocol' || label === 'mcp');
}

/** An "MCP error -32602: " some clients put before the upstream's own message. */
const SDK_PREFIX = /^MCP error -?\d+: /;
/** The client's codes for a request that never reached the upstream or lost it on the way. */
const TRANSPORT_CODES = new Set(['CONNECTION_CLOSED', 'SEND_FAILED', 'NOT_CONNECTED']);

/**
 * An upstream's failure as the downstream client sees it. A JSON-RPC error the upstream answered
 * goes on as it is (code, message, data). A failure of the way there (the connection closed, a
 * network error) names the upstream: a tool error for a tool, the model can try again; a -32603
 * for a prompt or a read. A cancelled request's error is left as it is: nobody reads it.
 */
export function forwardedError(err: unknown, label: string, kind: 'tool' | 'other'): unknown {
  if (err instanceof Error && err.name === 'AbortError') return err;
  // The round ends to ask the client (2026-07-28): not a failure, the request is retried with the answer.
  if (isMcpxError(err, 'MCPX_INPUT_PENDING') || isMcpxError(err, 'MCPX_INPUT_REQUIRED')) return err;
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message.replace(SDK_PREFIX, '') : String(err);
  if (typeof code === 'number' && Number.isInteger(code)) return new McpError(code, message, (err as { data?: unknown }).data);
  const told = `The upstream server ${label} failed during the request: ${message.split('\n')[0]!.slice(0, 300)}`;
  return kind === 'tool' ? new ToolError(told) : new McpError(ErrorCode.InternalError, told);
}

/** A failure of the way to the upstream (no JSON-RPC answer, not a cancellation): it is down. */
export function isTransportFailure(err: unknown, ctx: RequestContext): boolean {
  if (ctx.aborted || !(err instanceof Error) || err.name === 'AbortError') return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && TRANSPORT_CODES.has(code)) return true;
  if (code !== undefined) return false; // the upstream answered, or the client refused the request itself
  return err.name === 'TypeError' || /fetch failed|ECONNREFUSED|ECONNRESET|socket hang up|Error POSTing|not connected/i.test(err.message);
}
