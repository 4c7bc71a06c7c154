import 'reflect-metadata';
import { IsString } from 'class-validator';
import pino from 'pino';
import { McpError, McpServer, Prompt, Resource, ResourceTemplate, Server, Tool, createEngine, text, type RequestContext } from '@mcpx/core';
import { RpcError, TestClient, connect } from '@mcpx/testing';

const quiet = { logger: pino({ level: 'silent' }) };

async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}

class TopicArgs {
  @IsString() topic!: string;
}

@Server({ name: 'client-fixture', version: '1.2.3', instructions: 'be nice' })
class Fixture extends McpServer {
  release?: () => void;

  @Tool()
  one(_input: void) {
    return 'one';
  }
  @Tool()
  two(_input: void) {
    return 'two';
  }
  @Tool()
  three(_input: void) {
    return 'three';
  }

  @Tool()
  notifyAll(_input: void, ctx: RequestContext) {
    ctx.log.info('first');
    ctx.notifyResourceUpdated('mem://a');
    ctx.log.warning('second');
    this.registry.addTool({ name: 'added', handler: () => 'added' });
    return 'ok';
  }

  @Tool()
  progress(_input: void, ctx: RequestContext) {
    ctx.progress(1, 3, 'a');
    ctx.progress(2, 3, 'b');
    return String(ctx.progressToken);
  }

  @Tool()
  async hang(_input: void, ctx: RequestContext) {
    await new Promise<void>((resolve) => {
      this.release = resolve;
      ctx.signal.addEventListener('abort', () => resolve());
    });
    return 'released';
  }

  @Tool()
  refuse(_input: void): string {
    throw new McpError(-32042, 'Visit the URL first', { url: 'https://example.com/auth' });
  }

  @Tool()
  unserialisable(_input: void) {
    return { content: [text('x')], _meta: { big: BigInt(1) } };
  }

  @Resource({ uri: 'mem://a', mimeType: 'text/plain' })
  a() {
    return 'A';
  }
  @Resource({ uri: 'mem://b' })
  b() {
    return 'B';
  }
  @ResourceTemplate({ uriTemplate: 'mem://t/{x}' })
  t({ x }: { x: string }) {
    return x;
  }
  @ResourceTemplate({ uriTemplate: 'mem://u/{x}' })
  u({ x }: { x: string }) {
    return x;
  }
  @Prompt()
  ask(args: TopicArgs) {
    return `About ${args.topic}`;
  }
  @Prompt()
  tell(_args: void) {
    return 'tell';
  }
}

describe('connect', () => {
  it('returns an initialized client with the initialize result', async () => {
    const client = await connect(new Fixture(), quiet);
    expect(client).toBeInstanceOf(TestClient);
    expect(client.initializeResult).toMatchObject({
      protocolVersion: '2025-11-25',
      serverInfo: { name: 'client-fixture', version: '1.2.3' },
      instructions: 'be nice',
    });
    await settle();
    expect(client.session.state).toBe('ready');
    expect(client.session.clientInfo).toEqual({ name: 'mcpx-test-client', version: '0.0.0' });
    expect(await client.ping()).toEqual({});
  });

  it('passes clientInfo, capabilities, protocolVersion and engine options', async () => {
    const client = await connect(new Fixture(), {
      ...quiet,
      clientInfo: { name: 'custom', version: '5' },
      capabilities: { sampling: {} },
      protocolVersion: '2025-06-18',
      pageSize: 1,
    });
    expect(client.initializeResult?.protocolVersion).toBe('2025-06-18');
    expect(client.session.clientInfo).toEqual({ name: 'custom', version: '5' });
    expect(client.session.clientCapabilities).toEqual({ sampling: {} });
    const page = await client.listTools();
    expect(page.tools).toHaveLength(1);
    expect(typeof page.nextCursor).toBe('string');
  });

  it('can leave the session uninitialized', async () => {
    const client = await connect(new Fixture(), { ...quiet, initialize: false });
    expect(client.initializeResult).toBeUndefined();
    expect(client.session.state).toBe('new');
    await expect(client.listTools()).rejects.toMatchObject({ code: -32600 });
    await client.initialize();
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('serves an existing engine', async () => {
    const engine = createEngine(new Fixture(), quiet);
    const client = await connect(engine);
    expect(client.engine).toBe(engine);
    expect(engine.getSession(client.session.id)).toBe(client.session);
  });
});

describe('listAll', () => {
  it.each([
    ['tools', ['one', 'two', 'three', 'notifyAll', 'progress', 'hang', 'refuse', 'unserialisable']],
    ['resources', ['a', 'b']],
    ['resourceTemplates', ['t', 'u']],
    ['prompts', ['ask', 'tell']],
  ] as const)('follows every page of %s', async (key, names) => {
    const client = await connect(new Fixture(), { ...quiet, pageSize: 1 });
    const sent: string[] = [];
    const request = client.request.bind(client);
    client.request = ((method: string, params?: Record<string, unknown>) => {
      sent.push(method);
      return request(method, params);
    }) as typeof client.request;
    const items = await client.listAll(key);
    expect(items.map((i) => i.name)).toEqual(names);
    expect(sent).toHaveLength(names.length);
  });
});

describe('notifications', () => {
  it('records every notification in order', async () => {
    const client = await connect(new Fixture(), quiet);
    await client.setLogLevel('info');
    await client.subscribe('mem://a');
    await client.callTool('notifyAll');
    await settle();
    expect(client.notifications.map((n) => n.method)).toEqual(['notifications/message', 'notifications/resources/updated', 'notifications/message', 'notifications/tools/list_changed']);
    expect(client.notifications[1]).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'mem://a' } });
  });

  it('nextNotification waits for the next one of a method', async () => {
    const client = await connect(new Fixture(), quiet);
    await client.subscribe('mem://a');
    const updated = client.nextNotification('notifications/resources/updated');
    let resolved = false;
    void updated.then(() => (resolved = true));
    await settle();
    expect(resolved).toBe(false);
    client.engine.notifyResourceUpdated('mem://a');
    expect(await updated).toMatchObject({ params: { uri: 'mem://a' } });
  });

  it('nextNotification also returns one received earlier and not yet awaited, once', async () => {
    const client = await connect(new Fixture(), quiet);
    await client.setLogLevel('info');
    await client.callTool('notifyAll');
    await settle();
    // tools/list_changed arrived during the call: it is still there to be awaited
    const changed = await client.nextNotification('notifications/tools/list_changed');
    expect(changed.method).toBe('notifications/tools/list_changed');
    const first = await client.nextNotification('notifications/message');
    const second = await client.nextNotification('notifications/message');
    expect(first.params).toMatchObject({ level: 'info', data: 'first' });
    expect(second.params).toMatchObject({ level: 'warning', data: 'second' });
    // both were handed out: a third waits for a new one
    let third = false;
    void client.nextNotification('notifications/message').then(() => (third = true));
    await settle();
    expect(third).toBe(false);
  });

  it('hands each notification to one waiter', async () => {
    const client = await connect(new Fixture(), quiet);
    await client.subscribe('mem://a');
    const a = client.nextNotification('notifications/resources/updated');
    const b = client.nextNotification('notifications/resources/updated');
    client.engine.notifyResourceUpdated('mem://a');
    expect(await a).toBe(client.notifications[0]);
    let bResolved = false;
    void b.then(() => (bResolved = true));
    await settle();
    expect(bResolved).toBe(false);
    client.engine.notifyResourceUpdated('mem://a');
    expect(await b).toBe(client.notifications[1]);
  });
});

describe('requests', () => {
  it('rejects with an RpcError carrying code, message and data', async () => {
    const client = await connect(new Fixture(), quiet);
    const error = await client.callTool('refuse').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: 'RpcError', code: -32042, message: 'Visit the URL first', data: { url: 'https://example.com/auth' } });
    const unknown = await client.request('no/such/method').catch((e: unknown) => e);
    expect(unknown).toMatchObject({ code: -32601, data: undefined });
  });

  it('asks for progress with onProgress and reports it', async () => {
    const client = await connect(new Fixture(), quiet);
    const seen: unknown[] = [];
    const result = await client.callTool('progress', {}, { onProgress: (p) => seen.push(p) });
    const token = Number((result.content[0] as { text: string }).text);
    expect(Number.isInteger(token)).toBe(true);
    expect(seen).toEqual([
      { progressToken: token, progress: 1, total: 3, message: 'a' },
      { progressToken: token, progress: 2, total: 3, message: 'b' },
    ]);
    const none = await client.callTool('progress');
    expect((none.content[0] as { text: string }).text).toBe('undefined');
  });

  it('cancels on abort: rejects and sends notifications/cancelled', async () => {
    const server = new Fixture();
    const client = await connect(server, quiet);
    const notified: unknown[] = [];
    const notify = client.notify.bind(client);
    client.notify = (method, params) => {
      notified.push({ method, params });
      notify(method, params);
    };
    const controller = new AbortController();
    const pending = client.callTool('hang', {}, { signal: controller.signal });
    await settle();
    expect(client.session.requestsInFlight).toBe(1);
    controller.abort('stop');
    await expect(pending).rejects.toThrow('Request aborted by the client');
    expect(notified).toEqual([{ method: 'notifications/cancelled', params: { requestId: expect.any(Number), reason: 'stop' } }]);
    await settle();
    // the server heard it: the handler was aborted and the request is no longer in flight
    expect(client.session.requestsInFlight).toBe(0);
  });

  it('ignores an abort after the response', async () => {
    const client = await connect(new Fixture(), quiet);
    const sent: unknown[] = [];
    const controller = new AbortController();
    await expect(client.callTool('one', {}, { signal: controller.signal })).resolves.toEqual({ content: [{ type: 'text', text: 'one' }] });
    const notify = client.notify.bind(client);
    client.notify = (method, params) => {
      sent.push(method);
      notify(method, params);
    };
    controller.abort();
    expect(sent).toEqual([]);
  });

  it('rejects pending requests on close', async () => {
    const client = await connect(new Fixture(), quiet);
    const pending = client.callTool('hang');
    await settle();
    client.close();
    await expect(pending).rejects.toThrow('Client closed');
    expect(client.session.state).toBe('closed');
  });

  it('fails a request whose response does not serialise', async () => {
    const client = await connect(new Fixture(), quiet);
    await expect(client.callTool('unserialisable')).rejects.toThrow(/does not serialise/);
    expect(await client.ping()).toEqual({});
  });

  it('maps the convenience methods to their MCP methods', async () => {
    const client = await connect(new Fixture(), quiet);
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['mem://a', 'mem://b']);
    expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(['mem://t/{x}', 'mem://u/{x}']);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['ask', 'tell']);
    expect(await client.readResource('mem://a')).toEqual({ contents: [{ uri: 'mem://a', mimeType: 'text/plain', text: 'A' }] });
    expect((await client.getPrompt('ask', { topic: 'cats' })).messages[0]).toEqual({ role: 'user', content: { type: 'text', text: 'About cats' } });
    expect(await client.complete({ type: 'ref/prompt', name: 'ask' }, { name: 'topic', value: 'c' })).toEqual({
      completion: { values: [], total: 0, hasMore: false },
    });
    expect(await client.setLogLevel('debug')).toEqual({});
    expect(client.session.logLevel).toBe('debug');
    expect(await client.subscribe('mem://b')).toEqual({});
    expect(client.session.subscriptions.has('mem://b')).toBe(true);
    expect(await client.unsubscribe('mem://b')).toEqual({});
    expect(client.session.subscriptions.has('mem://b')).toBe(false);
  });
});
