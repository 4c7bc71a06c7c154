import { InMemoryEventStore } from '@mcpx/core';
import { STREAM_COST } from '@mcpx/core/stores';
import { parseEventId, type JsonRpcMessage } from '@mcpx/core/transport';

const note = (n: number, size = 0): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `${n}${'x'.repeat(size)}` } });
const datas = (store: InMemoryEventStore, session: string, stream: string, after = 0) =>
  store.eventsAfter(session, stream, after)?.map((e) => [e.id, JSON.parse(e.data ?? JSON.stringify(e.message)).params.data.slice(0, 3)]);

describe('InMemoryEventStore', () => {
  it('numbers the events of each stream from 1 and replays what came after an id, from the encoded text it was given', () => {
    const store = new InMemoryEventStore();
    expect(store.append('s', '1', note(1))).toBe('1_1');
    expect(store.append('s', '1', note(2), 'as sent on the wire')).toBe('1_2');
    expect(store.append('s', '2', note(3))).toBe('2_1');
    expect(store.eventsAfter('s', '1', 0)).toEqual([
      { id: '1_1', data: JSON.stringify(note(1)) },
      { id: '1_2', data: 'as sent on the wire' },
    ]);
    expect(store.eventsAfter('s', '1', 1)!.map((e) => e.id)).toEqual(['1_2']);
    expect(store.eventsAfter('s', '9', 0)).toBeUndefined();
    expect(parseEventId('1_2')).toEqual({ streamId: '1', seq: 2 });
  });

  it('keeps the last maxEventsPerStream events of a stream', () => {
    const store = new InMemoryEventStore(3);
    for (let i = 1; i <= 5; i++) store.append('s', '1', note(i));
    expect(datas(store, 's', '1')).toEqual([
      ['1_3', '3'],
      ['1_4', '4'],
      ['1_5', '5'],
    ]);
  });

  it('keeps maxStreamsPerSession streams; an evicted stream that speaks again goes on with its numbering', () => {
    const store = new InMemoryEventStore(1000, 2);
    store.append('s', 'a', note(1));
    store.append('s', 'a', note(2));
    store.append('s', 'b', note(3));
    store.append('s', 'c', note(4));
    expect(store.eventsAfter('s', 'a', 0)).toBeUndefined();
    expect(store.append('s', 'a', note(5))).toBe('a_3');
  });

  it('holds at most maxBytes in all: the oldest streams of any session go first, never the one written to', () => {
    // Each stream: ~300 characters plus STREAM_COST; three fit in 1,800 bytes, four do not.
    const store = new InMemoryEventStore(1000, 100, 1800);
    store.append('one', '1', note(1, 240));
    store.append('two', '1', note(2, 240));
    store.append('one', '2', note(3, 240));
    expect(store.bytes).toBeLessThanOrEqual(1800);
    expect(store.streamCount('one') + store.streamCount('two')).toBe(3);
    // A fourth stream pushes the total over: the oldest stream (session one, stream 1) goes.
    store.append('two', '2', note(4, 240));
    expect(store.bytes).toBeLessThanOrEqual(1800);
    expect(store.eventsAfter('one', '1', 0)).toBeUndefined();
    expect(datas(store, 'two', '1')).toEqual([['1_1', '2xx']]);
    // One message larger than the whole budget: every other stream goes, the message stays.
    expect(store.append('one', '3', note(5, 5000))).toBe('3_1');
    expect(store.streamCount('two')).toBe(0);
    expect(store.eventsAfter('one', '3', 0)).toHaveLength(1);
    // An evicted stream keeps its numbering.
    expect(store.append('one', '1', note(6))).toBe('1_2');
  });

  it('counts STREAM_COST per stream, so many small streams are bounded too', () => {
    const store = new InMemoryEventStore({ maxBytes: 100 * STREAM_COST, maxSessionBytes: 100 * STREAM_COST });
    for (let i = 1; i <= 1000; i++) store.append(`s${i % 10}`, String(i), note(i), undefined, 1);
    expect(store.bytes).toBeLessThanOrEqual(100 * STREAM_COST);
    let streams = 0;
    for (let s = 0; s < 10; s++) streams += store.streamCount(`s${s}`);
    expect(streams).toBeLessThan(100);
    expect(streams).toBeGreaterThan(50);
  });

  it('holds at most maxSessionBytes for one session: its own oldest streams go, other sessions keep theirs', () => {
    const store = new InMemoryEventStore({ maxSessionBytes: 10_500 });
    store.append('quiet', '1', note(0, 3000));
    for (let i = 1; i <= 20; i++) store.append('busy', String(i), note(i, 3000), undefined, 1);
    expect(store.sessionBytes('busy')).toBeLessThanOrEqual(10_500);
    expect(store.streamCount('busy')).toBe(3);
    expect(datas(store, 'busy', '20')).toEqual([['20_1', '20x']]);
    expect(datas(store, 'quiet', '1')).toEqual([['1_1', '0xx']]);
    // The stream being written is never the one evicted, even past the bound on its own.
    for (let n = 2; n <= 5; n++) store.append('busy', '20', note(n, 3000), undefined, n);
    expect(store.streamCount('busy')).toBe(1);
    expect(store.eventsAfter('busy', '20', 0)).toHaveLength(5);
  });

  it('retains streams delivered in full whole, until their time or within maxDeliveredBytes, and lets them go before any other', () => {
    const store = new InMemoryEventStore({ maxDeliveredBytes: 10_500, maxBytes: 20_000 });
    const text = (n: number) => JSON.stringify(note(n, 3000));
    // An interrupted stream (the client may need it), appended event by event.
    store.append('s', 'cut', note(0, 3000), undefined, 1);
    // Delivered streams, 1 MB answers in miniature, handed over whole: each about 3,300 bytes.
    for (let i = 1; i <= 10; i++) {
      store.retainDelivered(`c${i}`, '1', 1, [text(i)], 1000 + i);
      expect(store.bytesDelivered).toBeLessThanOrEqual(10_500);
    }
    // The three newest are kept and resumable; the older ones are gone.
    expect([...Array(10).keys()].map((i) => store.streamCount(`c${i + 1}`))).toEqual([0, 0, 0, 0, 0, 0, 0, 1, 1, 1]);
    expect(datas(store, 'c10', '1')).toEqual([['1_1', '10x']]);
    expect(store.eventsAfter('c10', '1', 1)).toEqual([]);
    expect(store.eventsAfter('s', 'cut', 0)).toHaveLength(1);
    // Past maxBytes, the delivered streams go before the interrupted one, though it is older.
    for (let i = 1; i <= 4; i++) store.append('t', String(i), note(i, 3000), undefined, 1);
    expect(store.bytes).toBeLessThanOrEqual(20_000);
    expect(store.eventsAfter('s', 'cut', 0)).toHaveLength(1);
    expect(store.bytesDelivered).toBeLessThan(10_500);
    // Their time: each goes once `until` is past, and dropping one gives its bytes back.
    const timed = new InMemoryEventStore();
    timed.retainDelivered('d', '1', 1, [text(1)], 2000);
    timed.retainDelivered('d', '2', 1, [text(2)], 3000);
    timed.retainDelivered('d', '3', 1, [text(3)], 4000);
    timed.expireDelivered(2000);
    expect(timed.eventsAfter('d', '1', 0)).toBeUndefined();
    expect(timed.eventsAfter('d', '2', 0)).toHaveLength(1);
    expect(timed.streamCount('d')).toBe(2);
    timed.dropStream('d', '2');
    expect(timed.eventsAfter('d', '2', 0)).toBeUndefined();
    timed.expireDelivered(4000);
    expect(timed.bytesDelivered).toBe(0);
    expect(timed.bytes).toBe(0);
    expect(timed.sessionCount).toBe(0);
    // A session that ends takes its delivered streams with it, and no other session's.
    timed.retainDelivered('e', '1', 1, [text(1)], 9000);
    timed.retainDelivered('f', '1', 1, [text(2)], 9000);
    timed.retainDelivered('e', '2', 1, [text(3)], 9000);
    expect(timed.sessionCount).toBe(2);
    timed.dropSession('e');
    expect(timed.eventsAfter('e', '1', 0)).toBeUndefined();
    expect(timed.eventsAfter('e', '2', 0)).toBeUndefined();
    expect(timed.eventsAfter('f', '1', 0)).toHaveLength(1);
    expect(timed.sessionCount).toBe(1);
    timed.dropSession('f');
    expect(timed.bytes).toBe(0);
    expect(timed.sessionCount).toBe(0);
  });

  it('gives the bytes back when streams and sessions are dropped', () => {
    const store = new InMemoryEventStore();
    store.append('s', '1', note(1, 100));
    store.append('s', '2', note(2, 100));
    store.append('t', '1', note(3, 100));
    const one = store.bytes / 3;
    store.dropStream('s', '1');
    expect(store.bytes).toBe(one * 2);
    store.dropSession('s');
    expect(store.bytes).toBe(one);
    expect(store.sessionCount).toBe(1);
    store.dropSession('t');
    expect(store.bytes).toBe(0);
    expect(store.sessionCount).toBe(0);
  });

  it('takes the numbers of a writer that numbers its own events: an evicted stream goes on with them, and nothing is kept of evicted streams', () => {
    const store = new InMemoryEventStore(1000, 2);
    expect(store.append('s', '1', note(1), undefined, 1)).toBe('1_1');
    expect(store.append('s', '1', note(2), undefined, 2)).toBe('1_2');
    // A busy session: every request its own stream, far more of them than the cap keeps.
    for (let stream = 2; stream <= 500; stream++) store.append('s', String(stream), note(stream), undefined, 1);
    expect(store.streamCount('s')).toBe(2);
    // Stream 1 was evicted long ago and speaks again: its writer's numbering goes on.
    expect(store.append('s', '1', note(3), undefined, 3)).toBe('1_3');
    expect(datas(store, 's', '1')).toEqual([['1_3', '3']]);
    // What the store keeps for evicted streams (their numbering) stays empty for such a writer.
    expect((store as unknown as { evicted: Map<string, unknown> }).evicted.size).toBe(0);
  });
});
