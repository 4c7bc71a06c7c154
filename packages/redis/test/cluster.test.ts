import type { ClusterMessage } from '@mcpx/core/stores';
import pino from 'pino';
import { createRedisCluster, type RedisCluster } from '../src';
import { REDIS_URL, RedisTestBed, until } from './redis-kit';

/** Collects what an instance hears on the bus. */
function inbox(cluster: RedisCluster): ClusterMessage[] {
  const heard: ClusterMessage[] = [];
  cluster.bus.onMessage((message) => heard.push(message));
  return heard;
}

describe('RedisCluster', () => {
  let bed: RedisTestBed;
  let a: RedisCluster;
  let b: RedisCluster;
  let c: RedisCluster;
  let heardByA: ClusterMessage[];
  let heardByB: ClusterMessage[];
  let heardByC: ClusterMessage[];

  beforeAll(async () => {
    bed = await new RedisTestBed().open();
    a = await bed.cluster({ leaseMs: 1500, name: `${bed.prefix}a` });
    b = await bed.cluster({ leaseMs: 1500, name: `${bed.prefix}b` });
    c = await bed.cluster({ leaseMs: 1500, name: `${bed.prefix}c` });
    heardByA = inbox(a);
    heardByB = inbox(b);
    heardByC = inbox(c);
  });

  afterAll(() => bed.cleanup());

  it('starts with a short random instance id and a lease it keeps renewing', async () => {
    expect(a.instanceId).toMatch(/^[a-z0-9]{8}$/);
    expect(new Set([a.instanceId, b.instanceId, c.instanceId]).size).toBe(3);
    expect(a.ready).toBe(true);
    const lease = `${bed.prefix}instance:${a.instanceId}`;
    const ttl = await bed.pttl(lease);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1500);
    // Renewed every leaseMs/3: it outlives several leases.
    const since = Date.now();
    await until(() => Date.now() - since > 3000, 'three leases to pass', 10_000);
    expect(await b.isAlive(a.instanceId)).toBe(true);
  });

  it('tells whether an instance holds its lease', async () => {
    expect(await a.isAlive(b.instanceId)).toBe(true);
    expect(await a.isAlive('gone1234')).toBe(false);
  });

  it('is not ready, and has no instance id, before start', () => {
    const fresh = createRedisCluster({ url: REDIS_URL, prefix: bed.prefix });
    expect(fresh.ready).toBe(false);
    expect(() => fresh.instanceId).toThrow(/start/);
  });

  it('broadcasts to every other instance, never to itself, in order', async () => {
    await a.bus.broadcast({ type: 'listChanged', method: 'notifications/tools/list_changed' });
    await a.bus.broadcast({ type: 'taskChanged', taskId: 't1' });
    await until(() => heardByB.length >= 2 && heardByC.length >= 2, 'B and C to hear both');
    expect(heardByB.slice(-2)).toEqual([
      { type: 'listChanged', method: 'notifications/tools/list_changed' },
      { type: 'taskChanged', taskId: 't1' },
    ]);
    expect(heardByC.slice(-2)).toEqual(heardByB.slice(-2));
    // A hears the next broadcast from B, and never its own.
    await b.bus.broadcast({ type: 'sessionClosed', sessionId: 's1' });
    await until(() => heardByA.length >= 1, 'A to hear B');
    expect(heardByA).toEqual([{ type: 'sessionClosed', sessionId: 's1' }]);
    expect(await bed.pttl(`${bed.prefix}bus`)).toBeGreaterThan(0);
  });

  it('sends to one instance only', async () => {
    const before = { a: heardByA.length, c: heardByC.length };
    const message: ClusterMessage = { type: 'answer', sessionId: 's2', response: { jsonrpc: '2.0', id: `${b.instanceId}.1`, result: { action: 'accept' } } };
    await a.bus.send(b.instanceId, message);
    await until(() => heardByB.some((m) => m.type === 'answer'), 'B to get the answer');
    expect(heardByB.filter((m) => m.type === 'answer')).toEqual([message]);
    // The broadcast that follows is seen by C after nothing from the inbox of B.
    await b.bus.broadcast({ type: 'taskCancel', taskId: 'marker' });
    await until(() => heardByC.length > before.c, 'C to hear the marker');
    expect(heardByC.slice(before.c)).toEqual([{ type: 'taskCancel', taskId: 'marker' }]);
    expect(heardByA.length).toBe(before.a + 1);
    // What B read leaves its inbox (all but the newest entry, its reading position).
    const inboxKey = `${bed.prefix}inbox:${b.instanceId}`;
    await until(async () => Number(await bed.raw.sendCommand(['XLEN', inboxKey])) <= 1, "B's inbox to be trimmed");
    const inboxTtl = await bed.pttl(inboxKey);
    expect(inboxTtl).toBeGreaterThan(0);
    expect(inboxTtl).toBeLessThanOrEqual(3 * 1500);
  });

  it('keeps what is sent while an instance’s reader is disconnected, and delivers it once it is back', async () => {
    const readerName = `${bed.prefix}c-reader`;
    const readerId = async () => {
      const list = String(await bed.raw.sendCommand(['CLIENT', 'LIST']));
      const line = list.split('\n').find((l) => l.includes(` name=${readerName} `));
      return line ? /\bid=(\d+)/.exec(line)![1]! : undefined;
    };
    const first = await readerId();
    expect(first).toBeDefined();
    await bed.raw.sendCommand(['CLIENT', 'KILL', 'ID', first!]);
    const sent: ClusterMessage[] = [1, 2, 3].map((n) => ({ type: 'taskInput', taskId: `t${n}`, responses: { n } }));
    for (const message of sent) await a.bus.send(c.instanceId, message);
    await until(() => heardByC.filter((m) => m.type === 'taskInput').length === 3, 'C to get all three');
    expect(heardByC.filter((m) => m.type === 'taskInput')).toEqual(sent);
    // It reconnected (a new connection).
    const second = await readerId();
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
  });

  it('claims a key for one instance only, for a while', async () => {
    const results = await Promise.all([a, b, c].map((cluster) => cluster.claim('list:notifications/tools/list_changed', 60_000)));
    expect(results.filter(Boolean)).toHaveLength(1);
    const ttl = await bed.pttl(`${bed.prefix}claim:list:notifications/tools/list_changed`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('shares a secret made by the first instance to ask', async () => {
    const [fromA, fromB] = await Promise.all([a.secret('request-state'), b.secret('request-state')]);
    expect(fromA).toHaveLength(32);
    expect(fromA.equals(fromB)).toBe(true);
    expect((await c.secret('request-state')).equals(fromA)).toBe(true);
    expect((await a.secret('other')).equals(fromA)).toBe(false);
    expect(await bed.pttl(`${bed.prefix}secret:request-state`)).toBeGreaterThan(0);
  });

  it('takes a pino logger', async () => {
    const logged = await bed.cluster({ logger: pino({ level: 'silent' }) });
    expect(logged.ready).toBe(true);
  });

  it('gives up its lease and inbox when closed, and is no longer ready', async () => {
    const leaving = await bed.cluster({ leaseMs: 60_000 });
    const id = leaving.instanceId;
    await a.bus.send(id, { type: 'taskCancel', taskId: 'x' });
    await leaving.close();
    expect(leaving.ready).toBe(false);
    expect(await a.isAlive(id)).toBe(false);
    expect(await bed.raw.exists(`${bed.prefix}inbox:${id}`)).toBe(0);
    await leaving.close();
  });

  it('leaves no key without a ttl', async () => {
    await a.sessions.create({ id: 'ttl-check', state: 'ready', protocolVersion: '2025-11-25', clientCapabilities: {}, serverCapabilities: {}, subscriptions: ['x://1'] }, 60_000);
    await a.sessions.load('ttl-check', 60_000);
    await a.events.open('ttl-check', `${a.instanceId}.1`, 1);
    await a.events.append('ttl-check', '0', { jsonrpc: '2.0', method: 'ping' });
    await a.tasks.create({
      taskId: 'ttl-task',
      owner: 'ttl-check',
      status: 'working',
      createdAt: '',
      lastUpdatedAt: '',
      ttl: 1000,
      expiresAt: Date.now() + 1000,
    });
    const keys = await bed.keys();
    const ttls = await Promise.all(keys.map((key) => bed.pttl(key)));
    expect(keys.length).toBeGreaterThan(10);
    expect(keys.filter((_, i) => ttls[i] === -1)).toEqual([]);
  });
});
