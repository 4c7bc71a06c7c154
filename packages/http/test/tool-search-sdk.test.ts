import 'reflect-metadata';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpHttpServer } from '@mcpx/http';
import { startServer } from './http-kit';
import { SearchCatalog } from '../../core/test/search-catalog';

// Tool search and per-caller visibility through the official clients: the SDK 1.x (2025-11-25, a session) and the
// SDK 2.x (2026-07-28, per request). The hidden tool is shown only to a client calling itself "finance-app".

interface Searchable {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
}
type Found = { structuredContent?: { tools: { name: string; inputSchema: object }[] }; content: { text?: string }[]; isError?: boolean };
const textOf = (result: unknown) => (result as Found).content[0]?.text;
const found = async (client: Searchable, query: string) => ((await client.callTool({ name: 'search_tools', arguments: { query } })) as Found).structuredContent!.tools;

describe.each(['2025-11-25 (SDK 1.x)', '2026-07-28 (SDK 2.x)'])('tool search with the official client, %s', (era) => {
  let server: McpHttpServer;
  const closers: (() => Promise<void>)[] = [];

  async function connectAs(name: string): Promise<Searchable> {
    if (era.startsWith('2025')) {
      const client = new LegacyClient({ name, version: '1.0.0' });
      await client.connect(new LegacyTransport(new URL(server.url)));
      closers.push(() => client.close());
      return client as unknown as Searchable;
    }
    const client = new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    client.onerror = () => {};
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)), { timeout: 10_000 });
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    closers.push(() => client.close());
    return client as unknown as Searchable;
  }

  beforeAll(async () => {
    server = await startServer(new SearchCatalog());
  });
  afterAll(async () => {
    for (const close of closers) await close();
    await server.close();
  });

  it('lists the pinned tool and search_tools once over the threshold', async () => {
    const client = await connectAs('sales-app');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['help', 'search_tools']);
  });

  it('ranks the obvious match first and calls it by name', async () => {
    const client = await connectAs('sales-app');
    const tools = await found(client, 'create an invoice');
    expect(tools[0]!.name).toBe('createInvoice');
    expect(tools[0]!.inputSchema).toMatchObject({ properties: { customer: { type: 'string' } } });
    expect(textOf(await client.callTool({ name: 'createInvoice', arguments: { customer: 'ACME' } }))).toBe('invoice for ACME');
    expect(textOf(await client.callTool({ name: 'sendEmail', arguments: {} }))).toBe('sent');
  });

  it('never finds a hidden tool, which answers as unknown; the caller it is meant for finds it', async () => {
    const sales = await connectAs('sales-app');
    expect((await found(sales, 'refund invoice payment')).map((t) => t.name)).not.toContain('refundInvoice');
    await expect(sales.callTool({ name: 'refundInvoice', arguments: {} })).rejects.toThrow('Unknown tool: refundInvoice');
    const finance = await connectAs('finance-app');
    expect((await found(finance, 'refund invoice payment'))[0]!.name).toBe('refundInvoice');
    expect(textOf(await finance.callTool({ name: 'refundInvoice', arguments: {} }))).toBe('refunded');
  });
});
