import 'reflect-metadata';
import { IsString } from 'class-validator';
import { Field, Server, Tool, type Principal } from '@mcpx/core';
import { connect, quietOptions, rpcErrorOf, type ConnectOptions } from '@mcpx/testing';

class InvoiceInput {
  @Field({ description: 'The customer to bill' }) @IsString() customer!: string;
}

@Server({ name: 'big-catalog', version: '1.0.0', toolSearch: { threshold: 3, pinned: ['help'] } })
class BigCatalog {
  @Tool({ description: 'How to use this server' })
  help() {
    return 'search first';
  }

  @Tool({ description: 'Creates an invoice for a customer' })
  createInvoice(input: InvoiceInput) {
    return `invoice for ${input.customer}`;
  }

  @Tool({ description: 'Lists open support tickets' })
  listTickets() {
    return 'tickets';
  }

  @Tool({ description: 'Sends an email message' })
  sendEmail() {
    return 'sent';
  }

  @Tool({ description: 'Refunds an invoice payment', visible: (caller) => caller.principal?.claims.role === 'finance' })
  refundInvoice() {
    return 'refunded';
  }
}

@Server({ name: 'small-catalog', version: '1.0.0', toolSearch: { threshold: 10 } })
class SmallCatalog {
  @Tool()
  one() {
    return 1;
  }
}

const user = (role: string): Principal => ({ subject: role, scopes: [], claims: { role } });
const eras: [string, ConnectOptions][] = [
  ['2025-11-25', {}],
  ['2026-07-28', { protocolVersion: '2026-07-28' }],
];

interface Found {
  tools: { name: string; inputSchema: object; description?: string }[];
}

describe.each(eras)('tool search (%s)', (_era, eraOptions) => {
  const as = (who?: Principal) => connect(new BigCatalog(), { ...quietOptions(), ...eraOptions, ...(who ? { principal: who } : {}) });

  it('over the threshold, tools/list shows the pinned tools and search_tools', async () => {
    const client = await as(user('sales'));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['help', 'search_tools']);
    expect(tools[1]!.inputSchema).toMatchObject({ required: ['query'] });
  });

  it('under the threshold, the whole catalog is listed', async () => {
    const client = await connect(new SmallCatalog(), { ...quietOptions(), ...eraOptions });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['one']);
  });

  it('ranks the obvious match first, with its full definition, and the found tool is callable by name', async () => {
    const client = await as(user('sales'));
    const result = (await client.callTool('search_tools', { query: 'create an invoice for a customer' })) as unknown as { structuredContent: Found };
    const found = result.structuredContent.tools;
    expect(found[0]!.name).toBe('createInvoice');
    expect(found[0]!.inputSchema).toMatchObject({ properties: { customer: { type: 'string' } } });
    expect(await client.callTool('createInvoice', { customer: 'ACME' })).toMatchObject({ content: [{ type: 'text', text: 'invoice for ACME' }] });
    // Unlisted and never searched for: still callable.
    expect(await client.callTool('sendEmail')).toMatchObject({ content: [{ type: 'text', text: 'sent' }] });
    const limited = (await client.callTool('search_tools', { query: 'invoice tickets email', limit: 1 })) as unknown as { structuredContent: Found };
    expect(limited.structuredContent.tools).toHaveLength(1);
  });

  it('never finds a tool hidden from the caller, and finds it for a caller who may see it', async () => {
    const sales = (await (await as(user('sales'))).callTool('search_tools', { query: 'refund invoice payment' })) as unknown as { structuredContent: Found };
    expect(sales.structuredContent.tools.map((t) => t.name)).not.toContain('refundInvoice');
    const finance = (await (await as(user('finance'))).callTool('search_tools', { query: 'refund invoice payment' })) as unknown as { structuredContent: Found };
    expect(finance.structuredContent.tools[0]!.name).toBe('refundInvoice');
    expect((await rpcErrorOf((await as(user('sales'))).callTool('refundInvoice'))).message).toBe('Unknown tool: refundInvoice');
  });
});
