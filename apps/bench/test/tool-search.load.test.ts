/**
 * Tool search on a generated catalog of 1,000 tools, in process: the p99 of a search_tools call through the
 * whole request path, and how much smaller the tools/list a client receives gets (every page of the full
 * catalog against the pinned tools plus search_tools). It prints figures for docs/performance.md and asserts
 * only that search answers correctly: `npx jest apps/bench/test/tool-search.load.test.ts --testPathIgnorePatterns=/node_modules/`.
 */
import 'reflect-metadata';
import { McpServer, Server } from '@mcpx/core';
import { connect, quietOptions, type TestClient } from '@mcpx/testing';
import type { ToolEntry } from '@mcpx/core/registry';
// The ranking alone, without the request path around it (not a public export).
import { rank } from '../../../packages/core/src/handlers/tool-search';

const VERBS = ['create', 'list', 'get', 'update', 'delete', 'archive', 'export', 'import', 'search', 'sync'];
const NOUNS = ['invoice', 'customer', 'ticket', 'order', 'payment', 'report', 'user', 'project', 'task', 'document'];
const AREAS = ['billing', 'support', 'sales', 'crm', 'hr', 'ops', 'finance', 'legal', 'marketing', 'admin'];

@Server({ name: 'thousand-tools', version: '1.0.0', toolSearch: { threshold: 50, pinned: ['billing_get_invoice', 'support_list_ticket'] } })
class Thousand extends McpServer {
  override onServerInit(): void {
    for (const area of AREAS) {
      for (const verb of VERBS) {
        for (const noun of NOUNS) {
          this.registry.addTool({
            name: `${area}_${verb}_${noun}`,
            title: `${verb} ${noun} (${area})`,
            description: `${verb[0]!.toUpperCase()}${verb.slice(1)}s a ${noun} in the ${area} system. Use it when the user asks to ${verb} ${noun}s for ${area}.`,
            inputSchema: {
              type: 'object',
              properties: {
                [`${noun}Id`]: { type: 'string', description: `The ${noun}'s identifier in ${area}` },
                note: { type: 'string', description: 'A free-text note kept with the change' },
              },
            },
            handler: () => `${verb} ${noun}`,
          });
        }
      }
    }
  }
}

async function fullCatalogBytes(client: TestClient): Promise<number> {
  let bytes = 0;
  let cursor: string | undefined;
  do {
    const page = await client.request<{ tools: unknown[]; nextCursor?: string }>('tools/list', cursor ? { cursor } : {});
    bytes += Buffer.byteLength(JSON.stringify(page));
    cursor = page.nextCursor;
  } while (cursor);
  return bytes;
}

const p = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

it('searches 1,000 tools and shrinks tools/list', async () => {
  const client = await connect(new Thousand(), quietOptions());
  const plain = await connect(new Thousand(), { ...quietOptions() });
  // The full catalog as a client without search would page through it: the same tools with the threshold out of reach.
  (plain as unknown as { engine: { registry: { toolSearch?: unknown } } }).engine.registry.toolSearch = undefined;
  const full = await fullCatalogBytes(plain);
  const searched = Buffer.byteLength(JSON.stringify(await client.request('tools/list', {})));

  const queries = ['refund a payment', 'create invoice for customer billing', 'list open support tickets', 'export hr report', 'archive project document'];
  const first = (await client.callTool('search_tools', { query: 'create invoice billing' })) as unknown as { structuredContent: { tools: { name: string }[] } };
  expect(first.structuredContent.tools[0]!.name).toBe('billing_create_invoice');
  for (let i = 0; i < 200; i++) await client.callTool('search_tools', { query: queries[i % queries.length]! });
  const times: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const start = process.hrtime.bigint();
    await client.callTool('search_tools', { query: queries[i % queries.length]!, limit: 10 });
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  const entries = [...(client as unknown as { engine: { registry: { tools: { values(): Iterable<ToolEntry> } } } }).engine.registry.tools.values()];
  const ranks: number[] = [];
  for (let i = 0; i < 5000; i++) {
    const start = process.hrtime.bigint();
    rank(entries, queries[i % queries.length]!, 10);
    ranks.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  ranks.sort((a, b) => a - b);
  console.log(`ranking alone, 1,000 tools: p50 ${p(ranks, 0.5).toFixed(3)} ms, p99 ${p(ranks, 0.99).toFixed(3)} ms`);
  console.log(
    `tool search, 1,000 tools: p50 ${p(times, 0.5).toFixed(3)} ms, p99 ${p(times, 0.99).toFixed(3)} ms; tools/list ${full} bytes over all pages -> ${searched} bytes (${(full / searched).toFixed(0)}x smaller)`,
  );
});
