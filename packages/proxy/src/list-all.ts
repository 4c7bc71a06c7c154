import { ErrorCode } from '@mcpx/core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/** Each upstream's list the gateway asks for, in pages, at most this many pages (a bound on a looping cursor). */
const MAX_PAGES = 1000;

/** Every item of a paginated list: the pages followed by their cursors. */
async function listAll<P extends { nextCursor?: string }, T>(list: (cursor: string | undefined) => Promise<P>, items: (page: P) => T[]): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < MAX_PAGES; i++) {
    const page = await list(cursor);
    all.push(...items(page));
    cursor = page.nextCursor;
    if (!cursor) return all;
  }
  throw new Error(`its list did not end after ${MAX_PAGES} pages`);
}

const at = (cursor: string | undefined) => (cursor ? { cursor } : undefined);

/** An upstream's whole lists, page by page. */
export const listTools = (client: Client) =>
  listAll(
    (c) => client.listTools(at(c)),
    (page) => page.tools,
  );
export const listPrompts = (client: Client) =>
  listAll(
    (c) => client.listPrompts(at(c)),
    (page) => page.prompts,
  );
export const listResources = (client: Client) =>
  listAll(
    (c) => client.listResources(at(c)),
    (page) => page.resources,
  );

/** Its templates; none from an upstream that does not know the method (it has no templates). */
export const listTemplates = (client: Client) =>
  listAll(
    (c) => client.listResourceTemplates(at(c)),
    (page) => page.resourceTemplates,
  ).catch((err: unknown) => {
    if ((err as { code?: unknown }).code === ErrorCode.MethodNotFound) return [];
    throw err;
  });
