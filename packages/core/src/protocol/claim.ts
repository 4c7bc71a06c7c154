import type { JsonRpcRequest } from './jsonrpc';

/** The `_meta` keys of 2026-07-28 (basic/index.md, "Per-request protocol fields"). */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** The version a request's `_meta` claims, if it claims one: a claim marks a request as modern. */
export function claimedVersion(request: Pick<JsonRpcRequest, 'params'>): unknown {
  const meta = request.params?._meta;
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return undefined;
  return (meta as Record<string, unknown>)[META.protocolVersion];
}
