import type { Tool } from '../protocol/types';
import type { ToolEntry } from '../registry/entry-types';
import type { RequestContext } from '../context/request-context';
import { McpError } from '../protocol/errors';
import { visibleEntries } from './list-page';

/** The name of the tool that stands for a large catalog in tools/list. */
export const SEARCH_TOOL = 'search_tools';

const SEARCH_DEFINITION: Tool = {
  name: SEARCH_TOOL,
  title: 'Search tools',
  description: 'This server has more tools than it lists. Search them by what you want to do: returns the full definitions of the best matching tools, which you can then call by name.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'Words describing the task, e.g. "create invoice" or "list open tickets"' },
      limit: { type: 'integer', minimum: 1, maximum: 50, description: 'How many tools to return (default 10)' },
    },
    required: ['query'],
  },
};

/** Words of a text: camelCase, snake_case and dotted names split, lower-cased. */
export function tokenize(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length > 0);
}

/** What a tool is searched by: name, title, description, and its parameters' names and descriptions. */
function documentOf(tool: Tool): string[] {
  const parts = [tool.name, tool.name, tool.title ?? '', tool.description ?? ''];
  const properties = (tool.inputSchema as { properties?: Record<string, { description?: unknown }> }).properties ?? {};
  for (const [name, schema] of Object.entries(properties)) parts.push(name, typeof schema?.description === 'string' ? schema.description : '');
  return tokenize(parts.join(' '));
}

interface Indexed {
  readonly entry: ToolEntry;
  readonly terms: Map<string, number>;
  readonly length: number;
}

/**
 * Okapi BM25 (k1 1.2, b 0.75) over the caller's visible tools. The documents are each tool's words, tokenized once per
 * entry and kept in a WeakMap (entries are immutable: a replaced tool is a new entry); document frequencies are counted
 * over what this caller sees, so a hidden tool weighs nothing, not even in the statistics.
 */
const indexed = new WeakMap<ToolEntry, Indexed>();
function indexOf(entry: ToolEntry): Indexed {
  let doc = indexed.get(entry);
  if (!doc) {
    const terms = new Map<string, number>();
    const words = documentOf(entry.definition);
    for (const word of words) terms.set(word, (terms.get(word) ?? 0) + 1);
    doc = { entry, terms, length: words.length };
    indexed.set(entry, doc);
  }
  return doc;
}

export function rank(entries: readonly ToolEntry[], query: string, limit: number): ToolEntry[] {
  const words = [...new Set(tokenize(query))];
  if (words.length === 0 || entries.length === 0) return [];
  const docs = entries.map(indexOf);
  const avg = docs.reduce((sum, d) => sum + d.length, 0) / docs.length || 1;
  const df = new Map<string, number>();
  for (const word of words)
    df.set(
      word,
      docs.reduce((n, d) => n + (d.terms.has(word) ? 1 : 0), 0),
    );
  const scored: { doc: Indexed; score: number }[] = [];
  for (const doc of docs) {
    let score = 0;
    for (const word of words) {
      const tf = doc.terms.get(word);
      if (!tf) continue;
      const n = df.get(word)!;
      const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
      score += (idf * tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * doc.length) / avg));
    }
    if (score > 0) scored.push({ doc, score });
  }
  scored.sort((x, y) => y.score - x.score);
  return scored.slice(0, limit).map((s) => s.doc.entry);
}

/** Whether tools/list shows search instead of the catalog for this caller's visible tools. */
export function searchApplies(ctx: RequestContext, visibleCount: number): boolean {
  const options = ctx.engine.registry.toolSearch;
  return options !== undefined && visibleCount > options.threshold && !ctx.engine.registry.tools.has(SEARCH_TOOL);
}

/** tools/list for a catalog over the threshold: the pinned tools the caller may see, then search_tools. */
export function searchListing(visible: readonly ToolEntry[], ctx: RequestContext, view: (entry: ToolEntry) => Tool): { tools: Tool[] } {
  const pinned = new Set(ctx.engine.registry.toolSearch?.pinned ?? []);
  return { tools: [...visible.filter((e) => pinned.has(e.definition.name)).map(view), SEARCH_DEFINITION] };
}

/** A call to search_tools: the caller's visible tools that match, best first, as full definitions. */
export async function callSearch(
  args: Record<string, unknown>,
  ctx: RequestContext,
  view: (entry: ToolEntry) => Tool,
): Promise<{ content: { type: 'text'; text: string }[]; structuredContent: { tools: Tool[] } }> {
  const { query, limit = 10 } = args;
  if (typeof query !== 'string') throw McpError.invalidParams('search_tools: "query" must be a string');
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) throw McpError.invalidParams('search_tools: "limit" must be a positive integer');
  const found = visibleEntries(ctx.engine.registry.tools, ctx);
  const tools = rank(found instanceof Promise ? await found : found, query, Math.min(limit, 50)).map(view);
  return { content: [{ type: 'text', text: JSON.stringify({ tools }) }], structuredContent: { tools } };
}
