import 'reflect-metadata';
import { IsString } from 'class-validator';
import pino from 'pino';
import { connect, rpcErrorOf, type TestClient } from '@mcpx/testing';
import { Complete, McpServer, Prompt, Resource, ResourceTemplate, Server, Tool, UseMiddleware, createEngine, mount, type Middleware, type RequestContext } from '../src';

const quiet = { logger: pino({ level: 'silent' }) };
const seen: string[] = [];
const record =
  (name: string): Middleware =>
  async (ctx, next) => {
    seen.push(`${name} ${ctx.method} ${ctx.toolName ?? ctx.promptName ?? ctx.resourceUri ?? ''}`);
    return next();
  };

class Topic {
  @IsString() topic!: string;
}

@Server({ name: 'billing', version: '1.0.0', middleware: [record('billing server')] })
@UseMiddleware(record('billing class'))
class Billing extends McpServer {
  @Tool({ description: 'Finds an invoice' })
  find(input: Topic) {
    return `invoice about ${input.topic}`;
  }

  @Tool({ scopes: ['billing:write'] })
  refund() {
    return 'refunded';
  }

  @Tool()
  touch(_input: void, ctx: RequestContext) {
    ctx.notifyResourceUpdated('invoices://latest');
    return 'touched';
  }

  @Resource({ uri: 'invoices://latest', mimeType: 'text/plain' })
  latest() {
    return 'INV-7';
  }

  @Resource({ uri: 'urn:billing:terms' })
  terms() {
    return 'net 30';
  }

  @ResourceTemplate({ uriTemplate: 'invoices://{year}/{number}' })
  invoice({ year, number }: { year: string; number: string }) {
    return `invoice ${year}-${number}`;
  }

  @Complete({ template: 'invoices://{year}/{number}', argument: 'year' })
  years(value: string) {
    return ['2025', '2026'].filter((y) => y.startsWith(value));
  }

  @Prompt({ description: 'Explains an invoice' })
  explain(args: Topic) {
    return `Explain the invoice about ${args.topic}`;
  }
}

@Server({ name: 'support', version: '1.0.0' })
class Support {
  @Tool()
  triage() {
    return 'triaged';
  }
}

@Server({ name: 'desk', version: '2.0.0', mount: { billing: Billing, support: Support } })
class Desk extends McpServer {
  @Tool()
  hello() {
    return 'hello';
  }
}

describe.each(['2025-11-25', '2026-07-28'])('a server mounted under a namespace, %s', (protocolVersion) => {
  let desk: Desk;
  let client: TestClient;

  beforeEach(async () => {
    seen.length = 0;
    desk = new Desk();
    client = await connect(desk, { ...quiet, protocolVersion, principal: { subject: 'ana', scopes: ['billing:read'], claims: {} } });
  });

  it('lists its tools and prompts as <namespace>_<name> and its resource URIs under the namespace, the scheme kept', async () => {
    // billing_refund needs billing:write, which this caller lacks: not listed to it (as any entry it may not use).
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['hello', 'billing_find', 'billing_touch', 'support_triage']);
    expect((await client.request<{ prompts: { name: string }[] }>('prompts/list', {})).prompts.map((p) => p.name)).toEqual(['billing_explain']);
    expect((await client.request<{ resources: { uri: string }[] }>('resources/list', {})).resources.map((r) => r.uri)).toEqual(['invoices://billing/latest', 'urn:billing:billing:terms']);
    expect((await client.request<{ resourceTemplates: { uriTemplate: string }[] }>('resources/templates/list', {})).resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      'invoices://billing/{year}/{number}',
    ]);
  });

  it('calls, reads, gets and completes through the mounted names, with its validation', async () => {
    expect(await client.callTool('billing_find', { topic: 'rent' })).toMatchObject({ content: [{ type: 'text', text: 'invoice about rent' }] });
    expect((await client.callTool('billing_find', { topic: 5 })).isError).toBe(true);
    expect((await client.readResource('invoices://billing/latest')).contents).toEqual([{ uri: 'invoices://billing/latest', mimeType: 'text/plain', text: 'INV-7' }]);
    expect((await client.readResource('urn:billing:billing:terms')).contents[0]).toMatchObject({ text: 'net 30' });
    expect((await client.readResource('invoices://billing/2026/42')).contents[0]).toMatchObject({ uri: 'invoices://billing/2026/42', text: 'invoice 2026-42' });
    expect((await client.getPrompt('billing_explain', { topic: 'rent' })).messages[0]!.content).toEqual({ type: 'text', text: 'Explain the invoice about rent' });
    const completion = await client.complete({ type: 'ref/resource', uri: 'invoices://billing/{year}/{number}' }, { name: 'year', value: '202' });
    expect(completion.completion.values).toEqual(['2025', '2026']);
    // Its own names are not this server's.
    expect((await rpcErrorOf(client.callTool('find', { topic: 'x' }))).message).toMatch(/Unknown tool: find/);
  });

  it("runs the mounted server's own middleware (its @Server's, then its class's) around its entries only, and keeps its scopes", async () => {
    await client.callTool('billing_find', { topic: 'rent' });
    await client.callTool('hello', {});
    expect(seen).toEqual(['billing server tools/call billing_find', 'billing class tools/call billing_find']);
    expect((await rpcErrorOf(client.callTool('billing_refund', {}))).message).toMatch(/billing:write/);
  });

  it("tells the mounting server's clients of its resource updates, in their URIs", async () => {
    if (protocolVersion === '2025-11-25') await client.request('resources/subscribe', { uri: 'invoices://billing/latest' });
    else {
      void client.request('subscriptions/listen', { notifications: { resourceSubscriptions: ['invoices://billing/latest'] } }).catch(() => undefined);
      await client.nextNotification('notifications/subscriptions/acknowledged');
    }
    await client.callTool('billing_touch', {});
    expect((await client.nextNotification('notifications/resources/updated')).params).toMatchObject({ uri: 'invoices://billing/latest' });
  });
});

describe('a mounted server whose registry changes at run time', () => {
  it('is mirrored: an entry added there is listed and callable here under its name, and gone once removed', async () => {
    @Server({ name: 'host', version: '1.0.0' })
    class Host extends McpServer {}
    const host = new Host();
    const billing = new Billing();
    createEngine(host, quiet);
    mount(host, 'billing', billing);
    const client = await connect(host, quiet);
    billing.registry.addTool({ name: 'late', description: 'Added at run time', handler: () => 'late' });
    await client.nextNotification('notifications/tools/list_changed');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('billing_late');
    expect(await client.callTool('billing_late', {})).toEqual({ content: [{ type: 'text', text: 'late' }] });
    billing.registry.tools.disable('find');
    billing.registry.tools.remove('late');
    await client.nextNotification('notifications/tools/list_changed');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['billing_refund', 'billing_touch']);
    // What it logs to its clients reaches this server's.
    await client.request('logging/setLevel', { level: 'info' });
    billing.log('info', 'from billing');
    expect((await client.nextNotification('notifications/message')).params).toMatchObject({ level: 'info', data: 'from billing' });
  });
});

describe('mount()', () => {
  it('refuses a name either side already has, naming both', () => {
    @Server({ name: 'clash', version: '1.0.0' })
    class Clash extends McpServer {
      @Tool({ name: 'billing_find' })
      mine() {
        return 'mine';
      }
    }
    const host = createEngine(new Clash(), quiet);
    expect(() => mount(host, 'billing', new Billing())).toThrow(/mount "billing" \(billing\): tools "billing_find" \(Billing\.find\) clashes with "billing_find" \(Clash\.mine\)/);
  });

  it('refuses a namespace outside its rules and a server mounted twice', () => {
    const host = createEngine(new Support(), quiet);
    expect(() => mount(host, 'bad name', new Billing())).toThrow(/namespace "bad name" must be/);
    const billing = new Billing();
    mount(createEngine(new Desk(), quiet), 'again', billing);
    expect(() => mount(host, 'twice', billing)).toThrow(/is mounted already, as "again"/);
  });
});
