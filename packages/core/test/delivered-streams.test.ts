import v8 from 'node:v8';
import vm from 'node:vm';
import { InMemoryEventStore } from '@mcpx/core';
import { DeliveredStreams, STREAM_COST } from '../src/stores/delivered-streams';

const answer = (n: number, size = 100) => JSON.stringify({ jsonrpc: '2.0', id: n, result: { content: [{ type: 'text', text: `${n}:${'x'.repeat(size)}` }] } });

function collectGarbage(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

describe('DeliveredStreams', () => {
  it('gives back each stream as it was handed over: its numbering and every text, whatever characters they hold', () => {
    const kept = new DeliveredStreams(1 << 20);
    const texts = ['{"a":"héllo ✓ 🙂 ünïcödé"}', '', answer(2), '"\u0000\u2028 end"'];
    kept.add('s', '7', 3, texts, 1000);
    kept.add('s', 'stream-with-a-longer-id_é', 1, [answer(1)], 1000);
    kept.add('t', '7', 1, [answer(9)], 1000);
    expect(kept.find('s', '7')).toEqual({ firstSeq: 3, events: texts });
    expect(kept.find('s', 'stream-with-a-longer-id_é')).toEqual({ firstSeq: 1, events: [answer(1)] });
    expect(kept.find('t', '7')).toEqual({ firstSeq: 1, events: [answer(9)] });
    expect(kept.find('s', '8')).toBeUndefined();
    expect(kept.find('u', '7')).toBeUndefined();
    let chars = 0;
    for (const text of [...texts, answer(1), answer(9)]) chars += text.length;
    expect(kept.bytes).toBe(3 * STREAM_COST + chars);
    expect(kept.count('s')).toBe(2);
    expect([...kept.sessionIds()].sort()).toEqual(['s', 't']);
  });

  it('keeps a stream too large for a slab as its strings, and lets it go like any other', () => {
    const kept = new DeliveredStreams(8 << 20);
    const big = answer(1, 1 << 20);
    const many = Array.from({ length: 300 }, (_, i) => answer(i, 100));
    kept.add('s', '1', 1, [big], 10);
    kept.add('s', '2', 1, many, 20);
    kept.add('s', '3', 1, [answer(3)], 30);
    expect(kept.find('s', '1')!.events[0]).toBe(big);
    expect(kept.find('s', '2')!.events).toEqual(many);
    expect(kept.find('s', '3')!.events).toEqual([answer(3)]);
    kept.expire(20);
    expect(kept.find('s', '1')).toBeUndefined();
    expect(kept.find('s', '2')).toBeUndefined();
    expect(kept.find('s', '3')!.events).toEqual([answer(3)]);
    expect(kept.bytes).toBe(STREAM_COST + answer(3).length);
  });

  it('keeps its order and its streams through thousands of them, wrapping and growing its queue and moving from slab to slab', () => {
    const kept = new DeliveredStreams(64 << 20);
    // Let some go first, so the queue wraps before it grows.
    for (let n = 0; n < 200; n++) kept.add(`s${n % 7}`, String(n), n, [answer(n)], n);
    kept.expire(149);
    for (let n = 200; n < 5000; n++) kept.add(`s${n % 7}`, String(n), n, [answer(n)], n);
    for (const n of [150, 151, 1000, 2047, 2048, 4999]) expect(kept.find(`s${n % 7}`, String(n))).toEqual({ firstSeq: n, events: [answer(n)] });
    expect(kept.find('s0', '147')).toBeUndefined();
    kept.shed(10 * (STREAM_COST + answer(4999).length));
    expect(kept.find(`s${4989 % 7}`, '4989')).toBeUndefined();
    expect(kept.find(`s${4990 % 7}`, '4990')).toEqual({ firstSeq: 4990, events: [answer(4990)] });
  });

  it('drops one stream or a whole session at once, and gives their bytes back', () => {
    const kept = new DeliveredStreams(1 << 20);
    for (let n = 1; n <= 6; n++) kept.add(n % 2 ? 'odd' : 'even', String(n), 1, [answer(n)], 100);
    kept.drop('odd', '3');
    expect(kept.find('odd', '3')).toBeUndefined();
    expect(kept.count('odd')).toBe(2);
    kept.dropSession('even');
    expect(kept.count('even')).toBe(0);
    expect([...kept.sessionIds()]).toEqual(['odd']);
    expect(kept.find('odd', '5')!.events).toEqual([answer(5)]);
    expect(kept.bytes).toBe(2 * (STREAM_COST + answer(1).length));
    kept.expire(100);
    expect(kept.bytes).toBe(0);
    expect(kept.count('odd')).toBe(0);
  });

  it('lets a slab go once none of its streams is kept, holds at most twice its budget in slabs, and one spare slab once nothing is kept', () => {
    const budget = 256 * 1024;
    const slab = 64 * 1024;
    const kept = new DeliveredStreams(budget);
    // Sessions that end at once: their slabs go as they fill (one written to, a few spare).
    for (let n = 0; n < 20_000; n++) {
      kept.add(`session-${n}`, '1', 1, [answer(n, 300)], 1e9);
      kept.dropSession(`session-${n}`);
      expect(kept.slabBytes).toBeLessThanOrEqual(5 * slab);
    }
    expect(kept.bytes).toBe(0);
    // One stream in a hundred kept: every slab is needed by some stream, and the oldest go early past twice the budget.
    for (let n = 0; n < 20_000; n++) {
      kept.add('s', String(n), 1, [answer(n, 300)], 1e9);
      if (n % 100 !== 0) kept.drop('s', String(n));
      expect(kept.slabBytes).toBeLessThanOrEqual(2 * budget + 4 * slab);
    }
    expect(kept.find('s', '19900')!.events).toEqual([answer(19900, 300)]);
    expect(kept.find('s', '0')).toBeUndefined();
    // Streams kept within the budget.
    for (let n = 0; n < 2_000; n++) {
      kept.add('t', String(n), 1, [answer(n, 300)], 2e9);
      kept.shed(budget);
    }
    expect(kept.bytes).toBeLessThanOrEqual(budget);
    expect(kept.slabBytes).toBeLessThanOrEqual(2 * budget + 4 * slab);
    expect(kept.find('t', '1999')!.events).toEqual([answer(1999, 300)]);
    kept.expire(2e9);
    expect(kept.bytes).toBe(0);
    expect(kept.slabBytes).toBe(slab);
  });

  it('keeps what InMemoryEventStore retains outside the JS heap: thousands of answers kept add almost nothing to it', () => {
    const gc = collectGarbage();
    const store = new InMemoryEventStore({ maxDeliveredBytes: 8 << 20 });
    const count = 10_000;
    const text = (n: number) => answer(n, 400);
    // Warm up the store's own arrays so the measure below sees what each stream adds.
    for (let n = 0; n < count; n++) store.retainDelivered('warm', String(n), 1, [text(n)], 0);
    store.expireDelivered(0);
    gc();
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let n = 0; n < count; n++) store.retainDelivered('s', String(n), 1, [text(n)], 1e9);
    gc();
    gc();
    const added = process.memoryUsage().heapUsed - before;
    let characters = 0;
    for (let n = 0; n < count; n++) characters += text(n).length;
    // Held as strings and records, the answers would add more than their characters (4.2 MB).
    expect(store.bytesDelivered).toBe(count * STREAM_COST + characters);
    expect(added).toBeLessThan(characters / 10);
    expect(store.eventsAfter('s', '9999', 0)).toEqual([{ id: '9999_1', data: text(9999) }]);
  });
});
