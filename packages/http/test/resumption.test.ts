import 'reflect-metadata';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryEventStore, McpServer, Server, Tool, type RequestContext } from '@mcpx/core';
import { ManualClock } from '@mcpx/core/stores';
import pino from 'pino';
import { listen } from '@mcpx/http';
import type { HttpSession, McpHttpServer } from '@mcpx/http';
import {
  Gate,
  callTool,
  deleteSession,
  getHeaders,
  getSse,
  openSession,
  post,
  postSse,
  request,
  rpc,
  rpcErrorOf,
  seqOf,
  startServer,
  streamOf,
  summarize,
  waitFor,
  type SseBlock,
  type SseReader,
} from './http-kit';

/** A server-set default level: these tests read log lines as stream events without calling logging/setLevel. */
const LOGS = { clientLogLevel: 'info' } as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

@Server({ name: 'resume-fixture', version: '1.0.0' })
class Resumable extends McpServer {
  gate = new Gate();
  /** Set when a handler's signal fired: a dropped connection must not cancel the request. */
  aborted: string[] = [];

  /** An answer of about 1 MB. */
  @Tool()
  large() {
    return 'x'.repeat(1_000_000);
  }

  /** SSE polling: closes its connection midway, carries on while the client is away, then answers. */
  @Tool()
  async poll(_input: void, ctx: RequestContext) {
    ctx.signal.addEventListener('abort', () => this.aborted.push('poll'));
    ctx.progress(1);
    ctx.log.info('before close');
    expect(ctx.closeStream(50)).toBe(true);
    ctx.progress(2);
    ctx.log.info('after close');
    await this.gate.promise;
    ctx.progress(3);
    return 'polled';
  }

  /** One progress event, then waits for the gate, then more events and the answer. */
  @Tool()
  async slow(_input: void, ctx: RequestContext) {
    ctx.signal.addEventListener('abort', () => this.aborted.push('slow'));
    ctx.progress(1);
    await this.gate.promise;
    ctx.progress(2);
    ctx.log.info('after gate');
    ctx.progress(3);
    return 'slow done';
  }

  /** Asks for a polling close and reports whether it happened; outlives a short sseMaxConnectionMs. */
  @Tool()
  async tryClose(_input: void, ctx: RequestContext) {
    ctx.progress(1);
    const closed = ctx.closeStream(10);
    ctx.progress(2);
    await sleep(120);
    ctx.progress(3);
    return closed ? 'closed' : 'kept';
  }

  /** Progress every 40 ms, twelve times, then answers once the gate opens: outlives as many capped connections as the test likes. */
  @Tool()
  async ticker(_input: void, ctx: RequestContext) {
    for (let i = 1; i <= 12; i++) {
      ctx.progress(i, 12);
      await sleep(40);
    }
    await this.gate.promise;
    return 'ticked';
  }
}

/** The events that carry messages, described, plus a check that their ids continue `after` one by one. */
function expectContinuation(blocks: SseBlock[], afterId: string): string[] {
  const events = blocks.filter((b) => b.id !== undefined);
  const stream = streamOf(afterId);
  expect(events.map((e) => e.id)).toEqual(events.map((_, i) => `${stream}_${seqOf(afterId) + 1 + i}`));
  // Nothing but events and (at most, at the very end) a retry hint.
  expect(blocks.filter((b) => b.id === undefined).every((b) => b.retry !== undefined && b === blocks.at(-1))).toBe(true);
  return summarize(events);
}

describe('resumable SSE streams (raw HTTP)', () => {
  let fixture: Resumable;
  let server: McpHttpServer;
  let url: string;
  let session: string;
  let http: HttpSession;

  beforeAll(async () => {
    fixture = new Resumable();
    server = await startServer(fixture, LOGS);
    url = server.url;
  });
  afterAll(() => server.close());
  beforeEach(async () => {
    fixture.gate = new Gate();
    fixture.aborted = [];
    session = await openSession(url);
    http = server.endpoint.sessions.get(session)!;
  });
  afterEach(async () => {
    fixture.gate.open();
    await deleteSession(url, session);
  });

  /** Opens a call and reads its priming event; returns the reader and the stream id. */
  async function call(id: number, tool: string): Promise<{ reader: SseReader; priming: SseBlock; stream: string }> {
    const reader = await postSse(url, session, callTool(id, tool));
    const priming = (await reader.next())!;
    expect(priming).toMatchObject({ id: expect.stringMatching(/_0$/), data: '', retry: 1000 });
    return { reader, priming, stream: streamOf(priming.id!) };
  }

  it('(a) server-side polling: ctx.closeStream(50) ends the connection with retry; GET Last-Event-ID gets every missed event once, then the response', async () => {
    const { reader, priming, stream } = await call(1, 'poll');
    const first = await reader.rest();
    expect(reader.ended).toBe(true);
    expect(summarize(first)).toEqual(['progress 1', 'log before close']);
    // The connection closed with a retry hint, as its last block; the stream itself lives on.
    expect(first.at(-1)).toEqual({ retry: 50, comments: [] });
    const lastSeen = first.filter((b) => b.id).at(-1)!.id!;
    expect(lastSeen).toBe(`${stream}_2`);
    expect(http.liveStream(stream)).toBeDefined();
    expect(http.liveStream(stream)!.connected).toBe(false);
    expect(http.session.requestsInFlight).toBe(1);

    await sleep(first.at(-1)!.retry!); // the client must respect retry before coming back
    const resumed = await getSse(url, session, lastSeen);
    // What was sent while the client was away arrives first…
    const replayed = [(await resumed.nextEvent())!, (await resumed.nextEvent())!];
    expect(summarize(replayed)).toEqual(['progress 2', 'log after close']);
    // …then the live rest, on the same connection.
    fixture.gate.open();
    const live = await resumed.rest();
    expect(resumed.ended).toBe(true);
    expect(expectContinuation([...replayed, ...live], lastSeen)).toEqual(['progress 2', 'log after close', 'progress 3', 'result 1 polled']);
    expect(live.at(-1)!.message).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'polled' }] } });
    expect(priming.id).toBe(`${stream}_0`);
    expect(fixture.aborted).toEqual([]);
    expect(http.liveStream(stream)).toBeUndefined();
  });

  it('(b) client disconnect mid-call is no cancellation; resuming loses nothing and repeats nothing', async () => {
    const { reader, stream } = await call(2, 'slow');
    const progress1 = (await reader.nextEvent())!;
    expect(summarize([progress1])).toEqual(['progress 1']);
    reader.abort();
    await waitFor(() => !http.liveStream(stream)!.connected, 'the server to notice the dropped connection');
    expect(http.session.requestsInFlight).toBe(1);

    const resumed = await getSse(url, session, progress1.id);
    fixture.gate.open();
    const rest = await resumed.rest();
    expect(expectContinuation(rest, progress1.id!)).toEqual(['progress 2', 'log after gate', 'progress 3', 'result 2 slow done']);
    expect(fixture.aborted).toEqual([]);
  });

  it('(b) even when events are written while the connection is going down', async () => {
    for (let round = 0; round < 5; round++) {
      fixture.gate = new Gate();
      const { reader } = await call(100 + round, 'slow');
      const progress1 = (await reader.nextEvent())!;
      // Drop the connection and let the tool go on at once: its next events may hit the dying socket.
      reader.abort();
      fixture.gate.open();
      const rest = await (await getSse(url, session, progress1.id)).rest();
      expect(expectContinuation(rest, progress1.id!)).toEqual(['progress 2', 'log after gate', 'progress 3', `result ${100 + round} slow done`]);
    }
    expect(fixture.aborted).toEqual([]);
  });

  it('(c) resuming from the priming event id replays everything', async () => {
    const { reader, priming } = await call(3, 'slow');
    reader.abort();
    const resumed = await getSse(url, session, priming.id);
    expect(summarize([(await resumed.nextEvent())!])).toEqual(['progress 1']);
    fixture.gate.open();
    const rest = [...resumed.blocks];
    rest.push(...(await resumed.rest()));
    expect(expectContinuation(rest, priming.id!)).toEqual(['progress 1', 'progress 2', 'log after gate', 'progress 3', 'result 3 slow done']);
  });

  it('(d) resuming a stream that already ended replays the remainder and ends, as often as asked', async () => {
    const { reader, stream } = await call(4, 'slow');
    const progress1 = (await reader.nextEvent())!;
    reader.abort();
    fixture.gate.open();
    await waitFor(() => http.session.requestsInFlight === 0 && http.liveStream(stream) === undefined, 'the call to finish');

    for (let attempt = 0; attempt < 2; attempt++) {
      const resumed = await getSse(url, session, progress1.id);
      const rest = await resumed.rest();
      expect(resumed.ended).toBe(true);
      expect(expectContinuation(rest, progress1.id!)).toEqual(['progress 2', 'log after gate', 'progress 3', 'result 4 slow done']);
    }
    // From the response's own id: nothing left, the stream ends at once.
    const fromEnd = await getSse(url, session, `${stream}_5`);
    expect(await fromEnd.rest()).toEqual([]);
  });

  it('(e) a Last-Event-ID that names no stream of ours answers 400, one that names no stream of this session 404', async () => {
    for (const id of ['garbage', '_3', '1_', '1_x', '1_-1', '1_1.5', '1_1e2', '1_0x1']) {
      const res = await request(url, { headers: getHeaders(session, id) });
      expect(res.status).toBe(400);
      const error = rpcErrorOf(res);
      expect(error.code).toBe(-32000);
      expect(error.message).toBe(`Bad Request: cannot resume from Last-Event-ID ${JSON.stringify(id)}`);
    }
    // A stream that exists, but in another session: never replayed here.
    const { reader, priming } = await call(5, 'slow');
    const other = await openSession(url);
    for (const id of ['99_0', priming.id!]) {
      const res = await request(url, { headers: getHeaders(other, id) });
      expect(res.status).toBe(404);
      const error = rpcErrorOf(res);
      expect(error.code).toBe(-32000);
      expect(error.message).toBe(`Not Found: no stream to resume for Last-Event-ID ${JSON.stringify(id)}`);
    }
    fixture.gate.open();
    expect(summarize(await reader.rest())).toEqual(['progress 1', 'progress 2', 'log after gate', 'progress 3', 'result 5 slow done']);
    await deleteSession(url, other);
  });

  it('(g) the standalone GET stream: a list_changed sent while it was closed arrives when it opens, once', async () => {
    fixture.registry.addTool({ name: 'extra', description: 'added at runtime', handler: () => 'x' });
    const get = await getSse(url, session);
    expect(await get.next()).toEqual({ id: '0_0', data: '', retry: 1000, comments: [] });
    const early = (await get.nextEvent())!;
    expect(early).toMatchObject({ id: '0_1', message: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' } });

    // While the GET connection is down, messages wait in the store…
    get.abort();
    await waitFor(() => !http.hasConnection, 'the server to notice the dropped GET');
    fixture.registry.tools.remove('extra');
    await new Promise(setImmediate); // list_changed goes out after the current burst of registry changes
    fixture.log('warning', 'while away');
    // …and a GET with Last-Event-ID gets them, then stays live.
    const resumed = await getSse(url, session, early.id);
    const missed = [(await resumed.nextEvent())!, (await resumed.nextEvent())!];
    expect(missed.map((e) => [e.id, e.message.method])).toEqual([
      ['0_2', 'notifications/tools/list_changed'],
      ['0_3', 'notifications/message'],
    ]);
    expect(missed[1]!.message.params).toEqual({ level: 'warning', data: 'while away' });
    fixture.log('warning', 'live');
    expect(await resumed.nextEvent()).toMatchObject({ id: '0_4', message: { params: { data: 'live' } } });
    resumed.abort();
  });
});

describe('event ids in a long session', () => {
  it('stay unique when the standalone stream speaks again after 100+ request streams (store eviction)', async () => {
    const fixture = new Resumable();
    const server = await startServer(fixture, LOGS);
    try {
      const session = await openSession(server.url);
      const get = await getSse(server.url, session);
      await get.next(); // priming 0_0
      fixture.log('warning', 'first');
      const first = (await get.nextEvent())!;
      expect(first.id).toBe('0_1');
      // 101 streamed requests: more streams than the default store keeps per session.
      for (let i = 1; i <= 101; i++) {
        const res = await post(server.url, rpc(i, 'ping'), session);
        expect(res.body).toContain(`id: ${i}_1`);
      }
      fixture.log('warning', 'second');
      fixture.log('warning', 'third');
      const later = [(await get.nextEvent())!, (await get.nextEvent())!];
      expect(later.map((e) => e.id)).toEqual(['0_2', '0_3']);
      get.abort();
      // Resuming from before the eviction gets what is still kept, with the same ids.
      const resumed = await getSse(server.url, session, first.id);
      const replayed = [(await resumed.nextEvent())!, (await resumed.nextEvent())!];
      expect(replayed.map((e) => [e.id, e.message.params.data])).toEqual([
        ['0_2', 'second'],
        ['0_3', 'third'],
      ]);
      resumed.abort();
    } finally {
      await server.close();
    }
  });
});

describe('without an event store', () => {
  it('sends no ids and no priming, ignores ctx.closeStream and sseMaxConnectionMs, and refuses Last-Event-ID', async () => {
    const server = await startServer(new Resumable(), { eventStore: false, sseMaxConnectionMs: 50, retryMs: 10 });
    try {
      const session = await openSession(server.url);
      const reader = await postSse(server.url, session, callTool(1, 'tryClose'));
      const blocks = await reader.rest();
      // One connection carried everything: closing it would have lost the response for good.
      expect(summarize(blocks)).toEqual(['progress 1', 'progress 2', 'progress 3', 'result 1 kept']);
      expect(blocks.every((b) => b.id === undefined && b.retry === undefined)).toBe(true);
      const res = await request(server.url, { headers: getHeaders(session, '1_1') });
      expect(res.status).toBe(400);
      expect(rpcErrorOf(res).message).toBe('Bad Request: cannot resume from Last-Event-ID "1_1"');
    } finally {
      await server.close();
    }
  });
});

describe('sseMaxConnectionMs', () => {
  let fixture: Resumable;
  let server: McpHttpServer;
  beforeAll(async () => {
    fixture = new Resumable();
    server = await startServer(fixture, { ...LOGS, sseMaxConnectionMs: 150, retryMs: 20 });
  });
  afterAll(async () => {
    fixture.gate.open();
    await server.close();
  });

  it('(f) closes request connections by itself; a client that keeps resuming gets every event once, in order', async () => {
    const session = await openSession(server.url);
    let reader = await postSse(server.url, session, callTool(1, 'ticker'));
    const events: SseBlock[] = [];
    let connections = 1;
    let lastId: string | undefined;
    for (;;) {
      const blocks = await reader.rest();
      for (const b of blocks) if (b.id !== undefined) lastId = b.id;
      events.push(...blocks.filter((b) => b.id !== undefined));
      if (blocks.some((b) => b.message?.id === 1)) break;
      // Closed by the server before the response: with a retry hint, which the client respects.
      expect(blocks.at(-1)).toEqual({ retry: 20, comments: [] });
      await sleep(20);
      reader = await getSse(server.url, session, lastId);
      connections++;
      // The tool answers only once the client has come back twice: at least three connections, however slow the machine.
      if (connections === 3) fixture.gate.open();
      expect(connections).toBeLessThan(500); // a loop guard, not a speed
    }
    expect(connections).toBeGreaterThanOrEqual(3);
    const [priming, ...rest] = events;
    expect(priming).toMatchObject({ data: '', retry: 20 });
    expect(expectContinuation(rest, priming!.id!)).toEqual([...Array.from({ length: 12 }, (_, i) => `progress ${i + 1}`), 'result 1 ticked']);
    await deleteSession(server.url, session);
  });

  it('(f) closes the GET stream too, and it can be resumed', async () => {
    const session = await openSession(server.url);
    const started = Date.now();
    const get = await getSse(server.url, session);
    expect(await get.rest()).toEqual([
      { id: '0_0', data: '', retry: 20, comments: [] },
      { retry: 20, comments: [] },
    ]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    // Sent while the client is away, so it is in the store whenever the resumed connection is capped.
    server.engine.broadcastLog('notice', 'hello again');
    const again = await getSse(server.url, session, '0_0');
    expect(await again.nextEvent()).toMatchObject({ id: '0_1', message: { method: 'notifications/message', params: { data: 'hello again' } } });
    expect(await again.rest()).toEqual([{ retry: 20, comments: [] }]);
    await deleteSession(server.url, session);
  });
});

describe('the official SDK client and a polling server', () => {
  it('reconnects by itself with Last-Event-ID after ctx.closeStream and gets the result', async () => {
    const fixture = new Resumable();
    const server = await startServer(fixture, LOGS);
    const resumptions: string[] = [];
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      fetch: async (input, init) => {
        const lastEventId = new Headers(init?.headers).get('last-event-id');
        if (init?.method === 'GET' && lastEventId) {
          resumptions.push(lastEventId);
          // Let the tool finish only once the client has come back on its own.
          setImmediate(() => fixture.gate.open());
        }
        return fetch(input, init);
      },
    });
    const client = new Client({ name: 'polling-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const progress: number[] = [];
      const result = await client.callTool({ name: 'poll', arguments: {} }, undefined, { onprogress: (p) => progress.push(p.progress), timeout: 5000 });
      expect(result.content).toEqual([{ type: 'text', text: 'polled' }]);
      expect(progress).toEqual([1, 2, 3]);
      expect(resumptions).toEqual([expect.stringMatching(/^\d+_2$/)]);
      expect(fixture.aborted).toEqual([]);
    } finally {
      await transport.terminateSession();
      await client.close();
      await server.close();
    }
    expect(server.endpoint.sessions.size).toBe(0);
  });
});

describe('stored events of streams delivered in full', () => {
  it('are forgotten after streamRetentionMs (by 1.25× of it), while an interrupted stream stays resumable', async () => {
    const RETENTION = 1000;
    const store = new InMemoryEventStore();
    const fixture = new Resumable();
    // Time passes only when the test says: the retention sweep runs inside clock.advance().
    const clock = new ManualClock();
    const s = await listen(fixture, { port: 0, handleSignals: false, logger: pino({ level: 'silent' }), eventStore: store, streamRetentionMs: RETENTION, clock });
    try {
      const session = await openSession(s.url);
      const http = s.endpoint.sessions.get(session)!;
      const before = store.streamCount(session);
      fixture.gate.open();
      const full = await postSse(s.url, session, callTool(1, 'slow'));
      const delivered = await full.rest();
      expect(summarize(delivered)).toContain('result 1 slow done');
      const fullStream = streamOf(delivered[0]!.id!);
      // The server has seen the stream end (its retention starts then).
      await waitFor(() => http.liveStream(fullStream) === undefined, 'the delivered stream to end on the server');
      expect(store.streamCount(session)).toBe(before + 1);
      // Kept for its retention; a sweep runs every quarter of it, so it is forgotten by 1.25×.
      clock.advance(RETENTION - 1);
      expect(store.streamCount(session)).toBe(before + 1);
      clock.advance(RETENTION / 4);
      expect(store.streamCount(session)).toBe(before);

      fixture.gate = new Gate();
      const cut = await postSse(s.url, session, callTool(2, 'slow'));
      const first = (await cut.nextEvent())!; // the priming event
      cut.abort();
      const live = http.liveStream(streamOf(first.id!))!;
      await waitFor(() => !live.connected, 'the server to notice the dropped connection');
      fixture.gate.open();
      await waitFor(() => http.session.requestsInFlight === 0 && http.liveStream(streamOf(first.id!)) === undefined, 'the call to finish');
      // Never delivered in full: kept however long the client stays away.
      clock.advance(RETENTION * 10);
      const resumed = await getSse(s.url, session, first.id);
      expect(summarize(await resumed.rest())).toContain('result 2 slow done');
    } finally {
      await s.close();
    }
  });

  it('are kept within maxDeliveredBytes: large answers served one after another hold only the newest in memory', async () => {
    const MB = 1_000_000;
    // Room for two 1 MB answers of delivered streams; the interrupted stream is kept apart from that budget.
    const store = new InMemoryEventStore({ maxDeliveredBytes: 2.5 * MB });
    const fixture = new Resumable();
    const s = await listen(fixture, { port: 0, handleSignals: false, logger: pino({ level: 'silent' }), eventStore: store });
    try {
      const session = await openSession(s.url);
      const http = s.endpoint.sessions.get(session)!;
      const streams: string[] = [];
      for (let id = 1; id <= 8; id++) {
        const answer = await postSse(s.url, session, callTool(id, 'large'));
        const events = await answer.rest();
        const answer1 = events.find((e) => e.message?.id === id)?.message as { result: { content: { text: string }[] } } | undefined;
        expect(answer1?.result.content[0]!.text).toHaveLength(1_000_000);
        streams.push(streamOf(events[0]!.id!));
        await waitFor(() => http.liveStream(streams.at(-1)!) === undefined, 'the answer to end on the server');
        expect(store.bytesDelivered).toBeLessThanOrEqual(2.5 * MB);
      }
      // The two newest answers can still be resumed; the older ones were let go, oldest first.
      expect(store.bytes).toBeLessThanOrEqual(2.5 * MB);
      const kept = await getSse(s.url, session, `${streams[7]}_0`);
      expect((await kept.rest()).some((e) => e.message?.id === 8)).toBe(true);
      const gone = await request(s.url, { method: 'GET', headers: getHeaders(session, `${streams[0]}_0`) });
      expect(gone.status).toBeGreaterThanOrEqual(400);
    } finally {
      await s.close();
    }
  });
});
