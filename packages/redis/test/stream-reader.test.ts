import { nodeRedisConnection, StreamReader, type RedisConnection, type StreamEntry } from '../src';
import { silentLogger } from '../src/logger';
import { deferred, REDIS_URL, RedisTestBed } from './redis-kit';

describe('StreamReader', () => {
  let bed: RedisTestBed;
  let main: RedisConnection;
  let readerConnection: RedisConnection;
  let reader: StreamReader;

  beforeAll(async () => {
    bed = await new RedisTestBed().open();
    main = nodeRedisConnection(REDIS_URL);
    readerConnection = nodeRedisConnection(REDIS_URL);
    await main.connect();
    await readerConnection.connect();
    // A block far longer than the test's timeout: a key the XREAD in flight missed would hang the
    // test, so passing shows that every new key woke the reader.
    reader = new StreamReader(readerConnection, main, silentLogger, 120_000);
    reader.start();
  });

  afterAll(async () => {
    await reader.close();
    await main.close();
    await bed.cleanup();
  });

  const key = (name: string) => `${bed.prefix}${name}`;

  it('wakes the blocked read for every key added, however the additions interleave with reads', async () => {
    // A first key so that an XREAD is blocked when the others come.
    const first = deferred<StreamEntry[]>();
    reader.follow(key('first'), '0-0', first.resolve);
    await main.xadd(key('first'), '*', { n: '0' });
    await first.promise;

    for (let round = 0; round < 5; round++) {
      const received = Array.from({ length: 20 }, () => deferred<StreamEntry[]>());
      const followers = received.map((got, i) => reader.follow(key(`r${round}-${i}`), '0-0', got.resolve));
      // Each key gets an entry only after the reader may have moved on to a later XREAD.
      await Promise.all(received.map((_, i) => main.xadd(key(`r${round}-${i}`), '*', { n: String(i) })));
      const entries = await Promise.all(received.map((got) => got.promise));
      expect(entries.map((e) => e[0]!.fields.n)).toEqual(received.map((_, i) => String(i)));
      for (const follower of followers) follower.stop();
    }
  });

  it('delivers to two followers of one key from their own positions, each entry once', async () => {
    const stream = key('shared');
    const ids = [];
    for (let n = 1; n <= 3; n++) ids.push(await main.xadd(stream, `0-${n}`, { n: String(n) }));
    const fromStart: string[] = [];
    const fromSecond: string[] = [];
    const allFirst = deferred();
    const allSecond = deferred();
    const a = reader.follow(stream, '0-0', (entries) => {
      fromStart.push(...entries.map((e) => e.id));
      if (fromStart.length === 5) allFirst.resolve();
    });
    const b = reader.follow(stream, '0-2', (entries) => {
      fromSecond.push(...entries.map((e) => e.id));
      if (fromSecond.length === 3) allSecond.resolve();
    });
    await main.xadd(stream, '0-4', { n: '4' });
    await main.xadd(stream, '0-5', { n: '5' });
    await Promise.all([allFirst.promise, allSecond.promise]);
    expect(fromStart).toEqual(['0-1', '0-2', '0-3', '0-4', '0-5']);
    expect(fromSecond).toEqual(['0-3', '0-4', '0-5']);
    a.stop();
    b.stop();
    expect(reader.follows(stream)).toBe(false);
  });
});
