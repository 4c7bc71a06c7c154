/**
 * subscriptions/listen (2026-07-28): the acknowledgment first, with the subset the server honours;
 * then list changes and resource updates the stream opted in to, each tagged with the request id;
 * the request stays open until the client cancels it (no response) or the server ends it (a
 * complete result). The legacy era's subscriptions and list_changed are unchanged beside it.
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import pino from 'pino';
import { TestClient } from '@mcpx/testing';
import { McpServer, Prompt, Resource, ResourceTemplate, Tool, createEngine, type Principal, type RequestContext } from '../src';
import type { JsonRpcMessage, JsonRpcResponse, McpEngine, MessageChannel } from '../src/transport';
import { CancelledError } from '../src/context/error-responses';
import { LazyAbort } from '../src/context/lazy-abort';
import { MAX_RESOURCE_SUBSCRIPTIONS } from '../src/eras/modern/handlers/listen';

const quiet = { logger: pino({ level: 'silent' }) };
const SUB = 'io.modelcontextprotocol/subscriptionId';
const ACK = 'notifications/subscriptions/acknowledged';
const TOOLS = 'notifications/tools/list_changed';
const PROMPTS = 'notifications/prompts/list_changed';
const RESOURCES = 'notifications/resources/list_changed';
const UPDATED = 'notifications/resources/updated';

class TopicArgs {
  @IsString() topic!: string;
}

class Watched extends McpServer {
  @Tool()
  touch(_input: void, ctx: RequestContext) {
    ctx.notifyResourceUpdated('mem://a');
    return 'touched';
  }

  @Tool()
  chatty(_input: void, ctx: RequestContext) {
    ctx.log.info('working');
    ctx.progress(1, 2);
    return 'done';
  }

  @Resource({ uri: 'mem://a' })
  a() {
    return 'a';
  }

  @Resource({ uri: 'mem://b' })
  b() {
    return 'b';
  }

  @Resource({ uri: 'mem://secret', scopes: ['secret:read'] })
  secret() {
    return 'secret';
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

class ToolsOnly extends McpServer {
  @Tool()
  only(_input: void) {
    return 'only';
  }
}

/** A channel that records what is written to it and lets a test wait for a message. */
class Recorder implements MessageChannel {
  readonly sent: JsonRpcMessage[] = [];
  open = true;
  private waiters: { match: (m: JsonRpcMessage) => boolean; resolve: (m: JsonRpcMessage) => void }[] = [];

  send(message: JsonRpcMessage): void {
    this.sent.push(message);
    for (const waiter of [...this.waiters]) {
      if (waiter.match(message)) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve(message);
      }
    }
  }

  /** The next message with this method (or one already sent and not yet waited for). */
  next(method: string, after = 0): Promise<Record<string, any>> {
    const match = (m: JsonRpcMessage) => 'method' in m && m.method === method;
    const already = this.sent.slice(after).find(match);
    if (already) return Promise.resolve(already as Record<string, any>);
    return new Promise((resolve) => this.waiters.push({ match, resolve: resolve as (m: JsonRpcMessage) => void }));
  }

  methods(): string[] {
    return this.sent.map((m) => ('method' in m ? m.method : 'response'));
  }
}

const meta = (extra: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  ...extra,
});

interface Listening {
  channel: Recorder;
  abort: LazyAbort;
  response: Promise<JsonRpcResponse | null>;
  /** Resolves with the acknowledgment's params. */
  acked: Promise<Record<string, any>>;
}

function listen(engine: McpEngine, id: number | string, notifications: unknown, options: { principal?: Principal; meta?: Record<string, unknown> } = {}): Listening {
  const channel = new Recorder();
  const abort = new LazyAbort();
  const params: Record<string, unknown> = { _meta: meta(options.meta) };
  if (notifications !== undefined) params.notifications = notifications;
  const response = engine.modern.handle({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params }, channel, { abort, principal: options.principal });
  return { channel, abort, response, acked: channel.next(ACK).then((m) => m.params) };
}

/** Lets the coalesced list_changed flush (a microtask) and the dispatcher's continuations run. */
async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}

const principal = (...scopes: string[]): Principal => ({ subject: 'alice', scopes, claims: { sub: 'alice' } });

describe('subscriptions/listen', () => {
  let server: Watched;
  let engine: McpEngine;

  beforeEach(() => {
    server = new Watched();
    engine = createEngine(server, quiet);
  });

  afterEach(() => engine.close());

  it('acknowledges first, with the subset it honours and the request id as subscription id', async () => {
    const sub = listen(engine, 7, {
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: false,
      resourceSubscriptions: ['mem://a', 'mem://items/7', 'mem://nope', 'mem://secret', 'mem://a'],
      somethingNew: { ignored: true },
    });
    const ack = await sub.acked;
    expect(sub.channel.sent).toHaveLength(1);
    expect(sub.channel.sent[0]).toEqual({
      jsonrpc: '2.0',
      method: ACK,
      params: { notifications: { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['mem://a', 'mem://items/7', 'mem://secret'] }, _meta: { [SUB]: 7 } },
    });
    expect(ack._meta[SUB]).toBe(7);
    expect(engine.subscriptions.size).toBe(1);
    // Still open: no response until it ends.
    let answered = false;
    void sub.response.then(() => (answered = true));
    await settle();
    expect(answered).toBe(false);
  });

  it("leaves out URIs the caller's principal may not read, as it leaves out unknown ones", async () => {
    const without = listen(engine, 1, { resourceSubscriptions: ['mem://secret', 'mem://b'] }, { principal: principal('other') });
    expect((await without.acked).notifications).toEqual({ resourceSubscriptions: ['mem://b'] });
    const withScope = listen(engine, 2, { resourceSubscriptions: ['mem://secret', 'mem://b'] }, { principal: principal('secret:read') });
    expect((await withScope.acked).notifications).toEqual({ resourceSubscriptions: ['mem://secret', 'mem://b'] });
  });

  it('honours a list only where the server offers it', async () => {
    const toolsOnly = createEngine(new ToolsOnly(), quiet);
    try {
      const sub = listen(toolsOnly, 'a', { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ['mem://a'] });
      expect((await sub.acked).notifications).toEqual({ toolsListChanged: true });
    } finally {
      toolsOnly.close();
    }
  });

  it('ends at once, with its complete result, when it honours nothing', async () => {
    const sub = listen(engine, 3, { resourceSubscriptions: ['mem://nope'] });
    const response = await sub.response;
    expect(sub.channel.methods()).toEqual([ACK]);
    expect((await sub.acked).notifications).toEqual({});
    expect(response).toEqual({ jsonrpc: '2.0', id: 3, result: { resultType: 'complete', _meta: { [SUB]: 3, 'io.modelcontextprotocol/serverInfo': engine.serverInfo } } });
    expect(engine.subscriptions.size).toBe(0);
  });

  it('delivers one list_changed per burst, tagged, only for the lists the stream opted in to', async () => {
    const tools = listen(engine, 10, { toolsListChanged: true });
    const prompts = listen(engine, 'p-1', { promptsListChanged: true });
    const resources = listen(engine, 12, { resourcesListChanged: true });
    await Promise.all([tools.acked, prompts.acked, resources.acked]);

    server.registry.addTool({ name: 'added', handler: () => 'added' });
    server.registry.addTool({ name: 'another', handler: () => 'another' });
    server.registry.addResource({ uri: 'mem://c', name: 'c', handler: () => 'c' });
    server.registry.addResourceTemplate({ uriTemplate: 'mem://more/{id}', name: 'more', handler: ({ id }) => id });
    await Promise.all([tools.channel.next(TOOLS), resources.channel.next(RESOURCES)]);
    await settle();
    expect(tools.channel.sent.slice(1)).toEqual([{ jsonrpc: '2.0', method: TOOLS, params: { _meta: { [SUB]: 10 } } }]);
    expect(resources.channel.sent.slice(1)).toEqual([{ jsonrpc: '2.0', method: RESOURCES, params: { _meta: { [SUB]: 12 } } }]);
    expect(prompts.channel.methods()).toEqual([ACK]);

    server.registry.addPrompt({ name: 'p2', handler: () => 'p2' });
    expect(await prompts.channel.next(PROMPTS)).toEqual({ jsonrpc: '2.0', method: PROMPTS, params: { _meta: { [SUB]: 'p-1' } } });
    await settle();
    expect(tools.channel.methods()).toEqual([ACK, TOOLS]);
  });

  it('delivers resources/updated for the URIs subscribed to, from the engine and from a handler', async () => {
    const sub = listen(engine, 20, { resourceSubscriptions: ['mem://a', 'mem://items/7'] });
    const other = listen(engine, 21, { resourceSubscriptions: ['mem://b'] });
    await Promise.all([sub.acked, other.acked]);

    engine.notifyResourceUpdated('mem://items/7');
    engine.notifyResourceUpdated('mem://items/8');
    server.notifyResourceUpdated('mem://b');
    expect(sub.channel.sent.slice(1)).toEqual([{ jsonrpc: '2.0', method: UPDATED, params: { uri: 'mem://items/7', _meta: { [SUB]: 20 } } }]);
    expect(other.channel.sent.slice(1)).toEqual([{ jsonrpc: '2.0', method: UPDATED, params: { uri: 'mem://b', _meta: { [SUB]: 21 } } }]);

    // A modern tools/call whose handler reports a change: the update goes to the listen stream, not the call's.
    const callChannel = new Recorder();
    const call = await engine.modern.handle({ jsonrpc: '2.0', id: 22, method: 'tools/call', params: { name: 'touch', arguments: {}, _meta: meta() } }, callChannel);
    expect(call).toMatchObject({ result: { content: [{ type: 'text', text: 'touched' }] } });
    expect(callChannel.sent).toEqual([]);
    expect(sub.channel.sent.at(-1)).toEqual({ jsonrpc: '2.0', method: UPDATED, params: { uri: 'mem://a', _meta: { [SUB]: 20 } } });
  });

  it('sends no request-scoped notifications on the stream, even when its request asks for logs and progress', async () => {
    const sub = listen(engine, 30, { toolsListChanged: true }, { meta: { progressToken: 'p', 'io.modelcontextprotocol/logLevel': 'debug' } });
    await sub.acked;
    const callChannel = new Recorder();
    await engine.modern.handle(
      { jsonrpc: '2.0', id: 31, method: 'tools/call', params: { name: 'chatty', arguments: {}, _meta: meta({ progressToken: 'c', 'io.modelcontextprotocol/logLevel': 'debug' }) } },
      callChannel,
    );
    expect(callChannel.methods()).toEqual(['notifications/message', 'notifications/progress']);
    server.registry.addTool({ name: 'x', handler: () => 'x' });
    await sub.channel.next(TOOLS);
    await settle();
    expect(sub.channel.methods()).toEqual([ACK, TOOLS]);
  });

  it('answers nothing when the client cancels, and holds the subscription no longer', async () => {
    const sub = listen(engine, 40, { toolsListChanged: true, resourceSubscriptions: ['mem://a'] });
    await sub.acked;
    expect(engine.subscriptions.size).toBe(1);
    sub.abort.abort(new CancelledError('done listening'));
    expect(await sub.response).toBeNull();
    expect(engine.subscriptions.size).toBe(0);
    server.registry.addTool({ name: 'late', handler: () => 'late' });
    engine.notifyResourceUpdated('mem://a');
    await settle();
    expect(sub.channel.methods()).toEqual([ACK]);
  });

  it('ends a subscription whose stream closed under it', async () => {
    const sub = listen(engine, 41, { toolsListChanged: true });
    await sub.acked;
    sub.channel.open = false;
    server.registry.addTool({ name: 'unseen', handler: () => 'unseen' });
    await sub.response;
    expect(engine.subscriptions.size).toBe(0);
    expect(sub.channel.methods()).toEqual([ACK]);
  });

  it('answers every open subscription with its complete result when the server closes', async () => {
    const first = listen(engine, 50, { toolsListChanged: true });
    const second = listen(engine, 'fifty-one', { resourceSubscriptions: ['mem://a'] });
    await Promise.all([first.acked, second.acked]);
    engine.close();
    const serverInfo = engine.serverInfo;
    expect(await first.response).toEqual({ jsonrpc: '2.0', id: 50, result: { resultType: 'complete', _meta: { [SUB]: 50, 'io.modelcontextprotocol/serverInfo': serverInfo } } });
    expect(await second.response).toEqual({
      jsonrpc: '2.0',
      id: 'fifty-one',
      result: { resultType: 'complete', _meta: { [SUB]: 'fifty-one', 'io.modelcontextprotocol/serverInfo': serverInfo } },
    });
    expect(engine.subscriptions.size).toBe(0);
    expect(first.channel.methods()).toEqual([ACK]);
  });

  it('ends gracefully only the subscription of the request it is told of', async () => {
    const mine = listen(engine, 60, { toolsListChanged: true });
    const theirs = listen(engine, 61, { toolsListChanged: true });
    await Promise.all([mine.acked, theirs.acked]);
    engine.subscriptions.closeRequest(mine.abort.signal);
    expect(await mine.response).toMatchObject({ id: 60, result: { resultType: 'complete', _meta: { [SUB]: 60 } } });
    expect(engine.subscriptions.size).toBe(1);
  });

  const tooMany = Array.from({ length: MAX_RESOURCE_SUBSCRIPTIONS + 1 }, (_, i) => `mem://items/${i}`);
  it.each([
    ['no filter', undefined, '"notifications" must be an object and is missing'],
    ['a string filter', 'tools', '"notifications" must be an object, got a string'],
    ['a string flag', { toolsListChanged: 'yes' }, '"notifications.toolsListChanged" must be a boolean, got a string'],
    ['a number flag', { resourcesListChanged: 1 }, '"notifications.resourcesListChanged" must be a boolean, got a number'],
    ['a URI list that is a string', { resourceSubscriptions: 'mem://a' }, '"notifications.resourceSubscriptions" must be an array of URI strings, got a string'],
    ['a URI that is a number', { resourceSubscriptions: ['mem://a', 7] }, '"notifications.resourceSubscriptions[1]" must be a string, got a number'],
    [
      'too many URIs',
      { resourceSubscriptions: tooMany },
      `"notifications.resourceSubscriptions" lists ${MAX_RESOURCE_SUBSCRIPTIONS + 1} URIs; at most ${MAX_RESOURCE_SUBSCRIPTIONS} are accepted`,
    ],
  ])('refuses %s with -32602, before acknowledging anything', async (_label, notifications, message) => {
    const sub = listen(engine, 70, notifications);
    const response = (await sub.response) as { error: { code: number; message: string } };
    expect(response.error.code).toBe(-32602);
    expect(response.error.message).toContain(`subscriptions/listen: ${message}`);
    expect(sub.channel.sent).toEqual([]);
    expect(engine.subscriptions.size).toBe(0);
  });

  describe('beside the legacy era', () => {
    it('leaves resources/subscribe and session list_changed as they were', async () => {
      const legacy = new TestClient(engine);
      await legacy.initialize();
      await legacy.subscribe('mem://a');
      const modern = listen(engine, 80, { toolsListChanged: true, resourceSubscriptions: ['mem://a'] });
      await modern.acked;

      const legacyTools = legacy.nextNotification(TOOLS);
      server.registry.addTool({ name: 'both', handler: () => 'both' });
      expect(await legacyTools).toEqual({ jsonrpc: '2.0', method: TOOLS });
      await modern.channel.next(TOOLS);

      const legacyUpdate = legacy.nextNotification(UPDATED);
      engine.notifyResourceUpdated('mem://a');
      expect(await legacyUpdate).toEqual({ jsonrpc: '2.0', method: UPDATED, params: { uri: 'mem://a' } });
      expect(modern.channel.sent.at(-1)).toEqual({ jsonrpc: '2.0', method: UPDATED, params: { uri: 'mem://a', _meta: { [SUB]: 80 } } });
      legacy.close();
    });

    it('is not a method of the legacy era', async () => {
      const legacy = new TestClient(engine);
      await legacy.initialize();
      await expect(legacy.request('subscriptions/listen', { notifications: { toolsListChanged: true } })).rejects.toMatchObject({ code: -32601 });
      legacy.close();
    });
  });
});
