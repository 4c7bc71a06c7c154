import 'reflect-metadata';
import { IsString } from 'class-validator';
import pino from 'pino';
import { TestClient, rpcErrorOf } from '@mcpx/testing';
import { McpServer, Prompt, Resource, ResourceTemplate, Tool, createEngine, type RequestContext } from '../src';
import { type McpEngine } from '../src/transport';

const quiet = { logger: pino({ level: 'silent' }) };

/** Lets queued deliveries (setImmediate) and microtasks (the coalesced flush) run. */
async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}

const TOOLS = 'notifications/tools/list_changed';
const RESOURCES = 'notifications/resources/list_changed';
const PROMPTS = 'notifications/prompts/list_changed';
const UPDATED = 'notifications/resources/updated';

const count = (client: TestClient, method: string) => client.notifications.filter((n) => n.method === method).length;
const methods = (client: TestClient) => client.notifications.map((n) => n.method);

class TopicArgs {
  @IsString() topic!: string;
}

class Live extends McpServer {
  @Tool()
  base(_input: void) {
    return 'base';
  }

  @Tool()
  touch(_input: void, ctx: RequestContext) {
    ctx.notifyResourceUpdated('mem://a');
    return 'touched';
  }

  @Resource({ uri: 'mem://a' })
  a() {
    return 'a';
  }

  @Resource({ uri: 'mem://b' })
  b() {
    return 'b';
  }

  @ResourceTemplate({ uriTemplate: 'mem://items/{id}' })
  item({ id }: { id: string }) {
    return id;
  }

  @Prompt()
  ask(args: TopicArgs) {
    return args.topic;
  }
}

describe('live registry', () => {
  let server: Live;
  let engine: McpEngine;
  let first: TestClient;
  let second: TestClient;
  let pending: TestClient;

  beforeEach(async () => {
    server = new Live();
    engine = createEngine(server, quiet);
    first = new TestClient(engine);
    second = new TestClient(engine);
    pending = new TestClient(engine); // never initialized
    await first.initialize();
    await second.initialize();
    await settle();
    expect(first.notifications).toEqual([]);
  });

  it('sends one tools/list_changed per burst of tool changes, to every initialized session', async () => {
    server.registry.addTool({ name: 'added', handler: () => 'added' });
    server.registry.addTool({ name: 'another', handler: () => 'another' });
    server.registry.tools.disable('base');
    server.registry.tools.enable('base');
    server.registry.tools.remove('another');
    await settle();
    expect(methods(first)).toEqual([TOOLS]);
    expect(methods(second)).toEqual([TOOLS]);
    expect(first.notifications[0]).toEqual({ jsonrpc: '2.0', method: TOOLS });
    expect(pending.notifications).toEqual([]);
  });

  it('sends one notification per burst, again for the next burst', async () => {
    server.registry.addTool({ name: 'x1', handler: () => 'x' });
    await settle();
    server.registry.tools.disable('x1');
    await settle();
    server.registry.tools.remove('x1');
    await settle();
    expect(count(first, TOOLS)).toBe(3);
    expect(count(second, TOOLS)).toBe(3);
  });

  it('makes changes visible to tools/list and tools/call at once', async () => {
    const waiting = first.nextNotification(TOOLS);
    server.registry.addTool({ name: 'fresh', description: 'new', handler: (_input, ctx) => `fresh via ${ctx.method}` });
    await waiting;
    expect((await first.listAll('tools')).map((t) => t.name)).toEqual(['base', 'touch', 'fresh']);
    expect(await first.callTool('fresh')).toEqual({ content: [{ type: 'text', text: 'fresh via tools/call' }] });
    server.registry.tools.disable('fresh');
    expect((await rpcErrorOf(first.callTool('fresh'))).code).toBe(-32602);
    server.registry.tools.remove('fresh');
    expect((await first.listAll('tools')).map((t) => t.name)).toEqual(['base', 'touch']);
  });

  it('sends nothing for changes that change nothing', async () => {
    server.registry.tools.enable('base');
    expect(server.registry.tools.remove('missing')).toBe(false);
    await settle();
    expect(first.notifications).toEqual([]);
    server.registry.tools.disable('base');
    await settle();
    server.registry.tools.disable('base');
    await settle();
    expect(count(first, TOOLS)).toBe(1);
  });

  it('refuses to add a duplicate without replace, and to toggle an unknown entry', () => {
    expect(() => server.registry.addTool({ name: 'base', handler: () => 'x' })).toThrow(/already registered/);
    expect(() => server.registry.tools.disable('missing')).toThrow(/not registered/);
  });

  it('coalesces resource and template changes into one resources/list_changed', async () => {
    server.registry.addResource({ uri: 'mem://c', name: 'c', handler: () => 'c' });
    server.registry.resources.disable('mem://a');
    server.registry.addResourceTemplate({ uriTemplate: 'mem://more/{id}', name: 'more', handler: ({ id }) => id });
    server.registry.templates.remove('mem://items/{id}');
    await settle();
    expect(methods(first)).toEqual([RESOURCES]);
    expect(methods(second)).toEqual([RESOURCES]);
    expect((await first.listAll('resources')).map((r) => r.uri)).toEqual(['mem://b', 'mem://c']);
    expect((await first.listAll('resourceTemplates')).map((t) => t.uriTemplate)).toEqual(['mem://more/{id}']);
    expect(await first.readResource('mem://more/7')).toEqual({ contents: [{ uri: 'mem://more/7', text: '7' }] });
  });

  it('sends one prompts/list_changed per burst of prompt changes', async () => {
    server.registry.addPrompt({ name: 'p2', handler: () => 'p2' });
    server.registry.prompts.disable('ask');
    server.registry.addPrompt({ name: 'p2', description: 'replaced', handler: () => 'p2b' }, { replace: true });
    await settle();
    expect(methods(first)).toEqual([PROMPTS]);
    expect(await first.listAll('prompts')).toEqual([{ name: 'p2', description: 'replaced' }]);
  });

  it('sends one of each kind for a mixed burst', async () => {
    server.registry.addPrompt({ name: 'p', handler: () => 'p' });
    server.registry.addTool({ name: 't', handler: () => 't' });
    server.registry.addResource({ uri: 'mem://r', name: 'r', handler: () => 'r' });
    server.registry.addTool({ name: 't2', handler: () => 't' });
    server.registry.addResourceTemplate({ uriTemplate: 'mem://x/{y}', name: 'x', handler: () => 'x' });
    await settle();
    expect([...methods(first)].sort()).toEqual([PROMPTS, RESOURCES, TOOLS].sort());
    expect([...methods(second)].sort()).toEqual([PROMPTS, RESOURCES, TOOLS].sort());
  });

  it('reaches a session once it has initialized, and no closed session', async () => {
    await pending.initialize();
    second.close();
    server.registry.addTool({ name: 'late', handler: () => 'late' });
    await settle();
    expect(methods(pending)).toEqual([TOOLS]);
    expect(methods(first)).toEqual([TOOLS]);
    expect(second.notifications).toEqual([]);
  });

  it('sends list_changed for runtime entries added from a tool', async () => {
    class Adder extends McpServer {
      @Tool()
      grow(_input: void) {
        this.registry.addTool({ name: 'grown', handler: () => 'grown' });
        return 'ok';
      }
    }
    const client = new TestClient(createEngine(new Adder(), quiet));
    await client.initialize();
    const changed = client.nextNotification(TOOLS);
    await client.callTool('grow');
    await changed;
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['grow', 'grown']);
  });

  describe('notifyResourceUpdated', () => {
    it('reaches only sessions subscribed to that URI', async () => {
      await first.subscribe('mem://a');
      await second.subscribe('mem://b');
      server.notifyResourceUpdated('mem://a');
      await settle();
      expect(first.notifications).toEqual([{ jsonrpc: '2.0', method: UPDATED, params: { uri: 'mem://a' } }]);
      expect(second.notifications).toEqual([]);
      server.notifyResourceUpdated('mem://b');
      server.notifyResourceUpdated('mem://unrelated');
      await settle();
      expect(first.notifications).toHaveLength(1);
      expect(second.notifications).toEqual([{ jsonrpc: '2.0', method: UPDATED, params: { uri: 'mem://b' } }]);
    });

    it('reaches every subscriber, including subscribers to template URIs', async () => {
      await first.subscribe('mem://items/1');
      await second.subscribe('mem://items/1');
      engine.notifyResourceUpdated('mem://items/1');
      await settle();
      expect(count(first, UPDATED)).toBe(1);
      expect(count(second, UPDATED)).toBe(1);
    });

    it('stops after unsubscribe', async () => {
      await first.subscribe('mem://a');
      await first.unsubscribe('mem://a');
      server.notifyResourceUpdated('mem://a');
      await settle();
      expect(first.notifications).toEqual([]);
    });

    it('can be sent from a handler through the request context', async () => {
      await second.subscribe('mem://a');
      await first.callTool('touch');
      await settle();
      expect(first.notifications).toEqual([]);
      expect(second.notifications).toEqual([{ jsonrpc: '2.0', method: UPDATED, params: { uri: 'mem://a' } }]);
    });
  });
});

describe('list_changed follows the declared capabilities', () => {
  it('sends no list_changed for a kind the server did not declare', async () => {
    class ToolsOnly extends McpServer {
      @Tool()
      only(_input: void) {
        return 'only';
      }
    }
    const server = new ToolsOnly();
    const client = new TestClient(createEngine(server, quiet));
    await client.initialize();
    server.registry.addPrompt({ name: 'p', handler: () => 'p' });
    server.registry.addResource({ uri: 'mem://r', name: 'r', handler: () => 'r' });
    await settle();
    expect(client.notifications).toEqual([]);
  });

  it('sends no tools/list_changed when the server declared listChanged: false', async () => {
    class Quiet extends McpServer {
      @Tool()
      only(_input: void) {
        return 'only';
      }
    }
    const server = new Quiet();
    const client = new TestClient(createEngine(server, { ...quiet, capabilities: { tools: { listChanged: false } } }));
    await client.initialize();
    expect(client.initializeResult?.capabilities.tools).toEqual({ listChanged: false });
    server.registry.addTool({ name: 'more', handler: () => 'more' });
    await settle();
    expect(client.notifications).toEqual([]);
  });
});
