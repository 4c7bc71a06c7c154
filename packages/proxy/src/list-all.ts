import { ErrorCode } from '@mcpx/core';
import type { Client } from '@modelcontextprotocol/client';

/**
 * An upstream's whole lists. Called without a cursor, the client walks every page itself (at most
 * `listMaxPages`, set by Upstream). Always asked of the upstream, never served from the client's
 * cache: the gateway lists again because it was told a list changed.
 */
const FRESH = { cacheMode: 'refresh' } as const;

export const listTools = async (client: Client) => (await client.listTools(undefined, FRESH)).tools;
export const listPrompts = async (client: Client) => (await client.listPrompts(undefined, FRESH)).prompts;
export const listResources = async (client: Client) => (await client.listResources(undefined, FRESH)).resources;

/** Its templates; none from an upstream that does not know the method (it has no templates). */
export const listTemplates = async (client: Client) => {
  try {
    return (await client.listResourceTemplates(undefined, FRESH)).resourceTemplates;
  } catch (err) {
    if ((err as { code?: unknown }).code === ErrorCode.MethodNotFound) return [];
    throw err;
  }
};
