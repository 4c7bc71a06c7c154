import 'reflect-metadata';
import { REDIS_URL, dropRedisKeys } from './redis-keys';
import { randomBytes } from 'node:crypto';
import { IsString } from 'class-validator';
import { McpServer, Resource, Server, Tool, type RequestContext } from '@mcpx/core';
import type { McpHttpServer } from '@mcpx/http';
import {
  Gate,
  callTool,
  deleteSession,
  getSse,
  jsonOf,
  notification,
  openSession,
  post,
  postSse,
  request,
  rpc,
  rpcErrorOf,
  startServer,
  waitFor,
  type SseBlock,
  type SseReader,
} from './http-kit';

// Two instances of one server in this process sharing the Redis on this machine: whatever one
// instance starts, the other serves. (Three instances in separate processes behind a round-robin
// proxy, with one killed, are in apps/fixtures/test/cluster.)

class NameForm {
  @IsString() name!: string;
}

@Server({ name: 'shared-fixture', version: '1.0.0' })
class Shared extends McpServer {
  gate = new Gate();
  cancelled: string[] = [];

  constructor(readonly instance: string) {
    super();
  }

  @Tool()
  whoami(): string {
    return this.instance;
  }

  /** One progress event, then waits for the gate, then another, then answers. */
  @Tool()
  async slow(_input: void, ctx: RequestContext) {
    ctx.progress(1, 2);
    await this.gate.promise;
    ctx.progress(2, 2);
    return `slow done on ${this.instance}`;
  }

  @Tool()
  async askName(_input: void, ctx: RequestContext) {
    const answer = await ctx.elicit('Your name?', NameForm);
    return `${answer.action}:${answer.content?.name ?? ''} on ${this.instance}`;
  }

  /** Runs until cancelled. */
  @Tool()
  async hold(_input: void, ctx: RequestContext) {
    await new Promise((_resolve, reject) =>
      ctx.signal.addEventListener('abort', () => {
        this.cancelled.push(String(ctx.requestId));
        reject(ctx.signal.reason);
      }),
    );
  }

  @Tool()
  touch(): string {
    this.notifyResourceUpdated('shared://thing');
    return 'touched';
  }

  @Tool()
  shout(_input: void, ctx: RequestContext): string {
    ctx.log.warning('shouted', { by: this.instance });
    return 'ok';
  }

  @Resource({ uri: 'shared://thing', mimeType: 'text/plain' })
  thing(): string {
    return 'a thing';
  }
}

/** The next event carrying a message (past the priming event). */
async function nextMessage(stream: SseReader): Promise<SseBlock | undefined> {
  for (;;) {
    const event = await stream.nextEvent(10_000);
    if (!event || event.message) return event;
  }
}

const ELICITING_INIT = rpc(0, 'initialize', {
  protocolVersion: '2025-11-25',
  capabilities: { elicitation: { form: {} } },
  clientInfo: { name: 'cluster-test', version: '1.0.0' },
});

describe('two instances sharing Redis', () => {
  const prefix = `mcpx-test:${randomBytes(4).toString('hex')}:`;
  let a: McpHttpServer;
  let b: McpHttpServer;
  let serverA: Shared;
  let serverB: Shared;

  beforeAll(async () => {
    serverA = new Shared('a');
    serverB = new Shared('b');
    const redis = { url: REDIS_URL, prefix, leaseMs: 2000 };
    a = await startServer(serverA, { redis });
    b = await startServer(serverB, { redis });
  });

  afterAll(async () => {
    serverA.gate.open();
    serverB.gate.open();
    await a?.close();
    await b?.close();
    await dropRedisKeys(prefix);
  });

  it('serves a session opened on one instance from the other, and a DELETE on either ends it on both', async () => {
    const session = await openSession(a.url);
    const onB = await post(b.url, callTool(1, 'whoami'), session);
    expect(onB.status).toBe(200);
    expect(onB.body).toContain('"text":"b"');
    const list = await post(b.url, rpc(2, 'tools/list'), session);
    expect(list.body).toContain('askName');

    expect((await deleteSession(b.url, session)).status).toBe(200);
    const after = await post(a.url, callTool(3, 'whoami'), session);
    expect(after.status).toBe(404);
    rpcErrorOf(after, 3);
    expect((await deleteSession(a.url, session)).status).toBe(404);
  });

  it('resumes on the other instance a stream cut mid-call: every event once, then the response', async () => {
    const session = await openSession(a.url);
    serverA.gate = new Gate();
    const stream = await postSse(a.url, session, callTool(7, 'slow'));
    const first = await nextMessage(stream);
    expect(first?.message?.method).toBe('notifications/progress');
    stream.abort();

    const resumed = await getSse(b.url, session, first!.id);
    serverA.gate.open();
    const rest = await resumed.rest(10_000);
    const messages = rest.filter((e) => e.message).map((e) => e.message);
    expect(messages.map((m) => m.method ?? `response ${m.id}`)).toEqual(['notifications/progress', 'response 7']);
    expect(messages[0].params.progress).toBe(2);
    expect(JSON.stringify(messages[1].result)).toContain('slow done on a');
  });

  it('routes an elicitation answer POSTed to the other instance back to the one that asked', async () => {
    const init = await post(a.url, ELICITING_INIT);
    const session = init.headers['mcp-session-id'] as string;
    await post(a.url, notification('notifications/initialized'), session);
    const stream = await postSse(a.url, session, callTool(9, 'askName'));
    const ask = await nextMessage(stream);
    expect(ask?.message?.method).toBe('elicitation/create');
    // The request id names the asking instance, so any instance can route the answer.
    expect(typeof ask!.message.id).toBe('string');

    const answer = await post(b.url, JSON.stringify({ jsonrpc: '2.0', id: ask!.message.id, result: { action: 'accept', content: { name: 'Ada' } } }), session);
    expect(answer.status).toBe(202);
    const rest = await stream.rest(10_000);
    const response = rest.find((e) => e.message?.id === 9)?.message;
    expect(JSON.stringify(response?.result)).toContain('accept:Ada on a');
  });

  it('stops a request on one instance when the client cancels it through the other', async () => {
    const session = await openSession(a.url);
    const stream = await postSse(a.url, session, callTool(11, 'hold'));
    await waitFor(() => a.endpoint.sessions.requestsInFlight > 0, 'the call to run on a');
    const cancel = await post(b.url, notification('notifications/cancelled', { requestId: 11, reason: 'no longer needed' }), session);
    expect(cancel.status).toBe(202);
    await waitFor(() => serverA.cancelled.includes('11'), 'the call to be cancelled on a');
    stream.abort();
  });

  it('delivers resources/updated, made through one instance, on a GET stream held by the other', async () => {
    const session = await openSession(a.url);
    expect((await post(a.url, rpc(1, 'resources/subscribe', { uri: 'shared://thing' }), session)).status).toBe(200);
    const get = await getSse(b.url, session);
    const touched = await post(a.url, callTool(2, 'touch'), session);
    expect(touched.status).toBe(200);
    const event = await nextMessage(get);
    expect(event?.message).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'shared://thing' } });
    get.abort();
  });

  it('applies a log level set through one instance to a call served by the other', async () => {
    const session = await openSession(a.url);
    expect((await post(b.url, rpc(1, 'logging/setLevel', { level: 'warning' }), session)).status).toBe(200);
    const stream = await postSse(a.url, session, callTool(2, 'shout'));
    const events = await stream.rest(10_000);
    const log = events.find((e) => e.message?.method === 'notifications/message')?.message;
    expect(log?.params).toMatchObject({ level: 'warning', data: { message: 'shouted', by: 'a' } });
  });

  it('answers /readyz with the shared store reachable', async () => {
    const ready = await request(a.url.replace(/\/mcp$/, '/readyz'));
    expect(ready.status).toBe(200);
    expect(jsonOf(ready).ready).toBe(true);
  });
});
