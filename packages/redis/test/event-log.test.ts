import type { RequestId, JsonRpcMessage } from '@mcpx/core/transport';
import type { TailedEvent, TailSink } from '@mcpx/core/stores';
import type { RedisCluster } from '../src';
import { deferred, RedisTestBed, until } from './redis-kit';

const note = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: n } });

/** A TailSink that records what it is told, with promises for the outcomes. */
class RecordingSink implements TailSink {
  readonly events: TailedEvent[] = [];
  readonly outcome = deferred<{ kind: 'ended' } | { kind: 'unknown' } | { kind: 'lost'; requestId: RequestId | undefined }>();
  private readonly waiters: { count: number; resolve: () => void }[] = [];

  event(event: TailedEvent): void {
    this.events.push(event);
    for (const waiter of this.waiters) if (this.events.length >= waiter.count) waiter.resolve();
  }
  ended(): void {
    this.outcome.resolve({ kind: 'ended' });
  }
  unknown(): void {
    this.outcome.resolve({ kind: 'unknown' });
  }
  lost(requestId: RequestId | undefined): void {
    this.outcome.resolve({ kind: 'lost', requestId });
  }
  /** Resolves once `count` events arrived. */
  received(count: number): Promise<void> {
    if (this.events.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }
  get progress(): unknown[] {
    return this.events.map((e) => (JSON.parse(e.data!) as { params: { progress: number } }).params.progress);
  }
}

describe('RedisEventLog', () => {
  let bed: RedisTestBed;
  let a: RedisCluster;
  let b: RedisCluster;

  beforeAll(async () => {
    bed = await new RedisTestBed().open();
    // A short lease: lost writers are noticed within leaseMs/2.
    a = await bed.cluster({ leaseMs: 1000 });
    b = await bed.cluster({ leaseMs: 1000 });
  });

  afterAll(() => bed.cleanup());

  const streamKey = (sid: string, stream: string) => `${bed.prefix}{s:${sid}}:ev:${stream}`;

  it('opens a request stream at 0-1 with its request id, then stores events at 0-<seq>', async () => {
    const stream = `${a.instanceId}.1`;
    await a.events.open('e-open', stream, 'req-1');
    expect(await a.events.append('e-open', stream, note(1), undefined, 2)).toBe(`${stream}_2`);
    expect(await a.events.append('e-open', stream, note(2), '{"custom":"encoding"}', 3)).toBe(`${stream}_3`);
    // Without a seq, Redis numbers it: the next one.
    expect(await a.events.append('e-open', stream, note(3))).toBe(`${stream}_4`);

    const entries = (await bed.raw.sendCommand(['XRANGE', streamKey('e-open', stream), '-', '+'])) as [string, string[]][];
    expect(entries.map(([id]) => id)).toEqual(['0-1', '0-2', '0-3', '0-4']);
    expect(entries[0]![1]).toEqual(['o', '"req-1"']);
    expect(entries[2]![1]).toEqual(['d', '{"custom":"encoding"}']);

    expect(await b.events.eventsAfter('e-open', stream, 2)).toEqual([
      { id: `${stream}_3`, data: '{"custom":"encoding"}' },
      { id: `${stream}_4`, data: JSON.stringify(note(3)) },
    ]);
    expect(await b.events.eventsAfter('e-open', stream, 1)).toHaveLength(3);
    expect(await b.events.eventsAfter('e-open', stream, 4)).toEqual([]);
    expect(await b.events.eventsAfter('e-open', 'nope.1', 0)).toBeUndefined();
  });

  it('numbers the standalone stream across instances, one after the other', async () => {
    const ids = await Promise.all([1, 2, 3, 4].map((n) => (n % 2 ? a : b).events.append('e-standalone', '0', note(n))));
    expect(ids.sort()).toEqual(['0_1', '0_2', '0_3', '0_4']);
    expect((await a.events.eventsAfter('e-standalone', '0', 0))!.map((e) => e.id)).toEqual(['0_1', '0_2', '0_3', '0_4']);
  });

  it('keeps streams for the retention, slid on append, and for the given retention once ended', async () => {
    const stream = `${a.instanceId}.2`;
    await a.events.open('e-ttl', stream, 7);
    const key = streamKey('e-ttl', stream);
    expect(await bed.pttl(key)).toBeGreaterThan(29 * 60_000);
    expect(await bed.pttl(`${bed.prefix}{s:e-ttl}:streams`)).toBeGreaterThan(29 * 60_000);
    await a.events.append('e-ttl', stream, note(1), undefined, 2);
    await a.events.end('e-ttl', stream, 5000);
    const ttl = await bed.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5000);
    // The end entry is no event.
    expect(await a.events.eventsAfter('e-ttl', stream, 0)).toHaveLength(1);
  });

  it('caps the standalone stream (MAXLEN ~)', async () => {
    const capped = await bed.cluster({ sessionStreamMaxLen: 100 });
    for (let i = 0; i < 5; i++) await Promise.all(Array.from({ length: 100 }, (_, n) => capped.events.append('e-cap', '0', note(i * 100 + n))));
    const length = Number(await bed.raw.sendCommand(['XLEN', streamKey('e-cap', '0')]));
    expect(length).toBeLessThan(500);
    expect(length).toBeGreaterThanOrEqual(100);
    // What is left still numbers on: the newest event is the 500th.
    const events = (await capped.events.eventsAfter('e-cap', '0', 0))!;
    expect(events[events.length - 1]!.id).toBe('0_500');
  });

  it('drops one stream, or every stream of a session', async () => {
    await a.events.open('e-drop', `${a.instanceId}.3`, 1);
    await a.events.open('e-drop', `${a.instanceId}.4`, 2);
    await a.events.append('e-drop', '0', note(1));
    await b.events.dropStream('e-drop', `${a.instanceId}.3`);
    expect(await a.events.eventsAfter('e-drop', `${a.instanceId}.3`, 0)).toBeUndefined();
    expect(await a.events.eventsAfter('e-drop', `${a.instanceId}.4`, 0)).toEqual([]);
    await b.events.dropSession('e-drop');
    expect(await a.events.eventsAfter('e-drop', `${a.instanceId}.4`, 0)).toBeUndefined();
    expect(await a.events.eventsAfter('e-drop', '0', 0)).toBeUndefined();
    expect(await bed.raw.exists(`${bed.prefix}{s:e-drop}:streams`)).toBe(0);
  });

  describe('tail', () => {
    it('replays what was stored, follows what comes, and tells when the stream ended', async () => {
      const stream = `${a.instanceId}.10`;
      await a.events.open('t-follow', stream, 'req-10');
      await a.events.append('t-follow', stream, note(1), undefined, 2);
      await a.events.append('t-follow', stream, note(2), undefined, 3);

      const sink = new RecordingSink();
      const tail = b.events.tail('t-follow', stream, 2, sink, a.instanceId);
      await sink.received(1);
      expect(sink.events[0]).toEqual({ id: `${stream}_3`, data: JSON.stringify(note(2)), seq: 3 });

      await a.events.append('t-follow', stream, note(3), undefined, 4);
      await a.events.append('t-follow', stream, note(4), undefined, 5);
      await sink.received(3);
      await a.events.end('t-follow', stream, 60_000);
      expect(await sink.outcome.promise).toEqual({ kind: 'ended' });
      expect(sink.progress).toEqual([2, 3, 4]);
      expect(sink.events.map((e) => e.seq)).toEqual([3, 4, 5]);
      tail.stop();
      expect(b.events.tailCount).toBe(0);
    });

    it('follows many streams at once through the one reader, each event exactly once', async () => {
      const streams = Array.from({ length: 5 }, (_, i) => `${a.instanceId}.${20 + i}`);
      await Promise.all(streams.map((s, i) => a.events.open('t-many', s, i)));
      const sinks = streams.map(() => new RecordingSink());
      const tails = streams.map((s, i) => b.events.tail('t-many', s, 1, sinks[i]!, a.instanceId));
      for (let n = 1; n <= 20; n++) await Promise.all(streams.map((s) => a.events.append('t-many', s, note(n), undefined, n + 1)));
      await Promise.all(sinks.map((sink) => sink.received(20)));
      for (const sink of sinks) expect(sink.progress).toEqual(Array.from({ length: 20 }, (_, n) => n + 1));
      for (const tail of tails) tail.stop();
    });

    it('from now (-1): only what is written after', async () => {
      const stream = `${a.instanceId}.30`;
      await a.events.open('t-now', stream, 30);
      await a.events.append('t-now', stream, note(1), undefined, 2);
      const sink = new RecordingSink();
      const tail = b.events.tail('t-now', stream, -1, sink, a.instanceId);
      // The tail is in place once the reader follows the stream's key.
      await until(() => b.events.isFollowing('t-now', stream), 'the tail to follow');
      await a.events.append('t-now', stream, note(2), undefined, 3);
      await sink.received(1);
      expect(sink.progress).toEqual([2]);
      tail.stop();
    });

    it('tells at once that an ended stream ended, after replaying it', async () => {
      const stream = `${a.instanceId}.31`;
      await a.events.open('t-ended', stream, 31);
      await a.events.append('t-ended', stream, note(1), undefined, 2);
      await a.events.end('t-ended', stream, 60_000);
      const sink = new RecordingSink();
      b.events.tail('t-ended', stream, 1, sink, a.instanceId);
      expect(await sink.outcome.promise).toEqual({ kind: 'ended' });
      expect(sink.progress).toEqual([1]);
      const fromNow = new RecordingSink();
      b.events.tail('t-ended', stream, -1, fromNow, a.instanceId);
      expect(await fromNow.outcome.promise).toEqual({ kind: 'ended' });
      expect(fromNow.events).toEqual([]);
    });

    it('tells when the stream is unknown', async () => {
      const sink = new RecordingSink();
      b.events.tail('t-unknown', `${a.instanceId}.99`, 0, sink, a.instanceId);
      expect(await sink.outcome.promise).toEqual({ kind: 'unknown' });
    });

    it('tails the standalone stream before anything was written to it', async () => {
      const sink = new RecordingSink();
      const tail = b.events.tail('t-standalone', '0', 0, sink);
      await until(() => b.events.isFollowing('t-standalone', '0'), 'the tail to follow');
      await a.events.append('t-standalone', '0', note(1));
      await b.events.append('t-standalone', '0', note(2));
      await sink.received(2);
      expect(sink.events.map((e) => e.id)).toEqual(['0_1', '0_2']);
      tail.stop();
    });

    it('tells at once that the stream is lost when its writer is gone: the events first, then its request id', async () => {
      const writer = await bed.cluster({ leaseMs: 1000 });
      const stream = `${writer.instanceId}.1`;
      await writer.events.open('t-lost', stream, 'req-lost');
      await writer.events.append('t-lost', stream, note(1), undefined, 2);
      await writer.events.append('t-lost', stream, note(2), undefined, 3);
      await writer.close();
      const sink = new RecordingSink();
      b.events.tail('t-lost', stream, 2, sink, writer.instanceId);
      expect(await sink.outcome.promise).toEqual({ kind: 'lost', requestId: 'req-lost' });
      expect(sink.progress).toEqual([2]);
    });

    it('tells that a followed stream is lost when its writer lease lapses, after every event it stored', async () => {
      // A writer that will die without a word: its lease is a key with a short ttl nobody renews.
      const writerId = 'deadbeef';
      await bed.raw.set(`${bed.prefix}instance:${writerId}`, '1', { PX: 1500 });
      const stream = `${writerId}.1`;
      await a.events.open('t-lapse', stream, 42);
      await a.events.append('t-lapse', stream, note(1), undefined, 2);
      const sink = new RecordingSink();
      b.events.tail('t-lapse', stream, 1, sink, writerId);
      await sink.received(1);
      await a.events.append('t-lapse', stream, note(2), undefined, 3);
      const outcome = await sink.outcome.promise;
      expect(outcome).toEqual({ kind: 'lost', requestId: 42 });
      expect(sink.progress).toEqual([1, 2]);
      expect(await bed.raw.exists(`${bed.prefix}instance:${writerId}`)).toBe(0);
    });

    it('stops when told, and tells nothing after', async () => {
      const stream = `${a.instanceId}.40`;
      await a.events.open('t-stop', stream, 40);
      const sink = new RecordingSink();
      const tail = b.events.tail('t-stop', stream, 1, sink, a.instanceId);
      await until(() => b.events.isFollowing('t-stop', stream), 'the tail to follow');
      tail.stop();
      await a.events.append('t-stop', stream, note(1), undefined, 2);
      await a.events.end('t-stop', stream, 60_000);
      // A later tail sees both; the stopped one saw nothing.
      const later = new RecordingSink();
      b.events.tail('t-stop', stream, 1, later, a.instanceId);
      await later.outcome.promise;
      expect(later.progress).toEqual([1]);
      expect(sink.events).toEqual([]);
    });
  });
});
