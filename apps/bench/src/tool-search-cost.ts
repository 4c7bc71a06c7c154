import path from 'node:path';
import type { ToolEntry } from '@mcpx/core/registry';
import { percentile } from './runner/stats';
import { PINNED, ThousandTools } from './thousand-tools';

/**
 * `npm run bench:search [-- --calls <n>]`: tool search on the generated 1,000-tool catalog, in process, on the
 * built code: the p50/p99 of a whole `tools/call search_tools` through the engine (the in-process test client),
 * the BM25 ranking alone, and how much smaller the tools/list a client receives gets. Prints one JSON object.
 */

const REPO = path.resolve(__dirname, '../../..');
const QUERIES = ['refund a payment', 'create invoice for customer billing', 'list open support tickets', 'export hr report', 'archive project document'];

interface Client {
  request<T>(method: string, params: Record<string, unknown>): Promise<T>;
  callTool(name: string, args: Record<string, unknown>): Promise<unknown>;
}

/** Not public: the test client and the ranking, from the built packages of this checkout. */
const { connect, quietOptions } = require(path.join(REPO, 'packages/testing/dist')) as {
  connect: (server: unknown, options: unknown) => Promise<Client & { engine: { registry: { tools: { values(): Iterable<ToolEntry> }; toolSearch?: unknown } } }>;
  quietOptions: () => Record<string, unknown>;
};
const { rank } = require(path.join(REPO, 'packages/core/dist/handlers/tool-search.js')) as { rank: (entries: ToolEntry[], query: string, limit: number) => ToolEntry[] };

/** Bytes of tools/list a client receives, over every page. */
async function listBytes(client: Client): Promise<number> {
  let bytes = 0;
  let cursor: string | undefined;
  do {
    const page = await client.request<{ tools: unknown[]; nextCursor?: string }>('tools/list', cursor ? { cursor } : {});
    bytes += Buffer.byteLength(JSON.stringify(page));
    cursor = page.nextCursor;
  } while (cursor);
  return bytes;
}

/** Each run's time in ms. */
function timed(n: number, run: (i: number) => unknown): number[] {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    run(i);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return times;
}

async function timedCalls(n: number, run: (i: number) => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    await run(i);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return times;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const at = argv.indexOf('--calls');
  const calls = at >= 0 ? Number(argv[at + 1]) : 5000;
  if (!Number.isInteger(calls) || calls < 1) throw new Error('--calls needs a positive integer');
  const searching = await connect(new ThousandTools(), quietOptions());
  const plain = await connect(new ThousandTools(), quietOptions());
  // The same catalog as a client without search pages through it: the threshold out of reach.
  plain.engine.registry.toolSearch = undefined;
  const fullBytes = await listBytes(plain);
  const listed = await searching.request<{ tools: { name: string }[] }>('tools/list', {});
  const searchedBytes = Buffer.byteLength(JSON.stringify(listed));
  const first = (await searching.callTool('search_tools', { query: 'create invoice billing' })) as { structuredContent: { tools: { name: string }[] } };

  const warm = Math.min(500, calls);
  await timedCalls(warm, (i) => searching.callTool('search_tools', { query: QUERIES[i % QUERIES.length]!, limit: 10 }));
  const call = await timedCalls(calls, (i) => searching.callTool('search_tools', { query: QUERIES[i % QUERIES.length]!, limit: 10 }));
  const entries = [...searching.engine.registry.tools.values()];
  const ranking = timed(calls, (i) => rank(entries, QUERIES[i % QUERIES.length]!, 10));
  const figures = (t: number[]) => ({ p50: percentile(t, 0.5), p99: percentile(t, 0.99) });
  const result = {
    tools: entries.length,
    calls,
    call: figures(call),
    ranking: figures(ranking),
    firstMatch: first.structuredContent.tools[0]?.name,
    listed: listed.tools.map((t) => t.name),
    pinned: PINNED,
    listBytes: { full: fullBytes, searched: searchedBytes, factor: fullBytes / searchedBytes },
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}

void main().catch((err: Error) => {
  process.stderr.write(`bench:search: ${err.stack ?? err.message}\n`);
  process.exit(1);
});
