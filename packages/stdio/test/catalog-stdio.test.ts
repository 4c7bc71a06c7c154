/**
 * Per-caller catalogs and tool search in a real stdio server process (fixtures/catalog-stdio-server.ts),
 * spawned by the official clients' stdio transports: sdk 1.x (2025-11-25, a session) and client 2.x
 * (2026-07-28, per request). Who the caller is comes from the client's own name.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fixtureServer } from './line-peer';

/** Spawning compiles the fixture and the packages it imports from source: slow on a busy machine. */
const SPAWN_TIMEOUT_MS = 90_000;
const SERVER = fixtureServer('catalog-stdio-server.ts');

interface Peer {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}
type Answer = { structuredContent?: { tools: { name: string; description?: string }[] }; content: { text?: string }[]; isError?: boolean };
const answer = (result: unknown) => result as Answer;

/** Calls a tool; an error the client raised (a JSON-RPC error) comes back as { rpcError }. */
async function call(peer: Peer, name: string, args: Record<string, unknown> = {}): Promise<Answer | { rpcError: { code: number; message: string } }> {
  try {
    return answer(await peer.callTool({ name, arguments: args }));
  } catch (err) {
    const e = err as { code: number; message: string };
    return { rpcError: { code: e.code, message: e.message } };
  }
}

const ERAS: [string, (name: string) => Promise<Peer>][] = [
  [
    '2025-11-25 (sdk 1.x spawns it)',
    async (name) => {
      const client = new LegacyClient({ name, version: '1.0.0' });
      await client.connect(new LegacyStdioTransport({ ...SERVER, stderr: 'pipe' }));
      return client as unknown as Peer;
    },
  ],
  [
    '2026-07-28 (client 2.x spawns it)',
    async (name) => {
      const client = new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      client.onerror = () => {};
      await client.connect(new StdioClientTransport({ ...SERVER, stderr: 'pipe' }), { timeout: SPAWN_TIMEOUT_MS });
      return client as unknown as Peer;
    },
  ],
];

describe.each(ERAS)('catalogs and tool search over stdio, %s', (_era, connectAs) => {
  let sales: Peer;
  let finance: Peer;

  beforeAll(async () => {
    [sales, finance] = await Promise.all([connectAs('sales-app'), connectAs('finance-app')]);
  }, SPAWN_TIMEOUT_MS);
  afterAll(async () => {
    await sales?.close();
    await finance?.close();
  });

  it('lists the pinned tool and search_tools once the caller sees more tools than the threshold', async () => {
    expect((await sales.listTools()).tools.map((t) => t.name)).toEqual(['help', 'search_tools']);
    expect((await finance.listTools()).tools.map((t) => t.name)).toEqual(['help', 'search_tools']);
  });

  it('ranks the obvious match first, and a found tool is called by its name', async () => {
    const found = answer(await sales.callTool({ name: 'search_tools', arguments: { query: 'create an invoice' } })).structuredContent!.tools;
    expect(found[0]).toMatchObject({ name: 'createInvoice', description: 'Creates an invoice for a customer' });
    expect(answer(await sales.callTool({ name: 'createInvoice', arguments: { customer: 'ACME' } })).content[0]!.text).toBe('invoice for ACME');
    // Not found by this search, still callable by name.
    expect(answer(await sales.callTool({ name: 'sendEmail', arguments: {} })).content[0]!.text).toBe('sent');
  });

  it('never shows a caller a tool hidden from it: not in search, and unknown when called', async () => {
    const salesFound = answer(await sales.callTool({ name: 'search_tools', arguments: { query: 'refund invoice payment' } })).structuredContent!.tools.map((t) => t.name);
    expect(salesFound).not.toContain('refundInvoice');
    const financeFound = answer(await finance.callTool({ name: 'search_tools', arguments: { query: 'refund invoice payment' } })).structuredContent!.tools.map((t) => t.name);
    expect(financeFound[0]).toBe('refundInvoice');

    const hidden = await call(sales, 'refundInvoice');
    const unknown = await call(sales, 'noSuchTool');
    // Exactly what an unknown name gets, whatever form the era gives it.
    expect(JSON.stringify(unknown)).toMatch(/Unknown tool: noSuchTool/);
    expect(JSON.stringify(hidden).replace('refundInvoice', 'X')).toBe(JSON.stringify(unknown).replace('noSuchTool', 'X'));
    expect(answer(await finance.callTool({ name: 'refundInvoice', arguments: {} })).content[0]!.text).toBe('refunded');
  });

  it('keeps a tool with an excluded tag from everyone', async () => {
    for (const peer of [sales, finance]) {
      const found = answer(await peer.callTool({ name: 'search_tools', arguments: { query: 'reindex invoice search index' } })).structuredContent!.tools.map((t) => t.name);
      expect(found).not.toContain('reindexInvoices');
      const excluded = await call(peer, 'reindexInvoices');
      const unknown = await call(peer, 'noSuchTool');
      expect(JSON.stringify(excluded).replace('reindexInvoices', 'X')).toBe(JSON.stringify(unknown).replace('noSuchTool', 'X'));
    }
  });
});
