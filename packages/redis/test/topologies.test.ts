/**
 * The stores on a Redis Cluster (three masters, three replicas) and through Sentinel (a primary,
 * a replica, three sentinels), started for this file from Debian's redis-server and
 * redis-sentinel: two instances share sessions, streams, the bus and the secret; every operation
 * runs on a cluster (Redis refuses a command or script whose keys span slots); the blocking
 * readers are one a slot group; and a failover (a master killed, its replica promoted) is
 * survived with no restart: what was written before is there after, and live tails go on.
 */
import type { ClusterMessage, SessionRecord, TailedEvent } from '@mcpx/core/stores';
import { randomBytes } from 'node:crypto';
import { createRedisCluster, type RedisCluster } from '../src';
import { keySlot } from '../src/slot';
import { until } from './redis-kit';
import { command, eventually, keysOn, startTopology, type Topology } from './topology-kit';

jest.setTimeout(180_000);

const BASE_PORTS = { cluster: 7010, sentinel: 7030 } as const;
const LEASE_MS = 1500;

const record = (id: string): SessionRecord => ({
  id,
  state: 'ready',
  protocolVersion: '2025-11-25',
  clientInfo: { name: 'topology-test', version: '1.0.0' },
  clientCapabilities: {},
  serverCapabilities: { tools: {} },
  subscriptions: [],
});
const note = (n: number) => ({ jsonrpc: '2.0' as const, method: 'notifications/message', params: { level: 'info', data: n } });

describe.each(['cluster', 'sentinel'] as const)('on Redis %s', (kind) => {
  let topology: Topology;
  const prefix = `mcpx-test:${randomBytes(4).toString('hex')}:`;
  const instances: RedisCluster[] = [];
  let a: RedisCluster;
  let b: RedisCluster;
  const heardByB: ClusterMessage[] = [];

  beforeAll(async () => {
    topology = await startTopology(kind, BASE_PORTS[kind]);
    for (const name of ['a', 'b']) {
      const instance = createRedisCluster({ ...topology.redis, prefix, leaseMs: LEASE_MS, name: `${prefix}${name}` });
      instances.push(instance);
      await instance.start();
    }
    [a, b] = instances as [RedisCluster, RedisCluster];
    b.bus.onMessage((message) => void heardByB.push(message));
  }, 180_000);

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.close()));
    await topology?.stop();
  });

  it('shares sessions, the secret, the bus and an instance inbox between instances', async () => {
    await a.sessions.create(record('s-1'), 60_000);
    expect(await b.sessions.load('s-1', 60_000)).toMatchObject({ id: 's-1', state: 'ready' });
    await b.sessions.subscribe('s-1', 'notes://1', true);
    expect(await a.sessions.subscribers('notes://1')).toEqual(['s-1']);
    expect((await a.secret('request-state')).equals(await b.secret('request-state'))).toBe(true);
    await a.bus.broadcast({ type: 'listChanged', method: 'notifications/tools/list_changed' });
    await a.bus.send(b.instanceId, { type: 'taskCancel', taskId: 'direct' });
    await until(() => heardByB.length >= 2, 'b to hear the broadcast and its own message');
    expect(heardByB).toEqual([
      { type: 'listChanged', method: 'notifications/tools/list_changed' },
      { type: 'taskCancel', taskId: 'direct' },
    ]);
    expect(await a.claim('once', 10_000)).toBe(true);
    expect(await b.claim('once', 10_000)).toBe(false);
    const at = new Date().toISOString();
    await a.tasks.create({ taskId: 'task-1', owner: 'o', status: 'working', createdAt: at, lastUpdatedAt: at, ttl: 60_000, pollInterval: 500, expiresAt: Date.now() + 60_000 });
    expect(await b.tasks.get('task-1')).toMatchObject({ taskId: 'task-1', owner: 'o', status: 'working' });
  });

  it('writes, replays and drops a session’s streams with commands of one slot each', async () => {
    await a.events.write('s-1', 'r1', { open: 7, events: [{ seq: 2, data: JSON.stringify(note(1)) }] });
    await a.events.append('s-1', '0', note(2));
    expect(await b.events.eventsAfter('s-1', 'r1', 0)).toEqual([{ id: 'r1_2', data: JSON.stringify(note(1)) }]);
    expect((await b.events.eventsAfter('s-1', '0', -1))!.map((e) => JSON.parse(e.data!).params.data)).toEqual([2]);
    await b.events.dropSession('s-1');
    expect(await a.events.eventsAfter('s-1', 'r1', 0)).toBeUndefined();
  });

  if (kind === 'cluster') {
    it('computes the slot of a key as Redis does, and spreads sessions over the slot groups', async () => {
      for (const key of ['a', 'mcpx:{s:abc}', `${prefix}{g3}s:xyz:ev:0`, 'foo{}bar', '{user1000}.following', 'ünïcode{é}']) {
        expect(keySlot(key)).toBe(Number(await command(BASE_PORTS.cluster, ['CLUSTER', 'KEYSLOT', key])));
      }
      const groups = new Set(Array.from({ length: 200 }, (_, i) => /\{g(\d+)\}/.exec(a.keys.stream(`session-${i}`, '0'))![1]));
      expect(groups.size).toBe(16);
      // One blocking reader a group: 16 reader connections an instance, plus its commands.
      const clients = (await topology.onMasters<string>(['CLIENT', 'LIST'])).join('\n');
      expect(clients.split('\n').filter((line) => line.includes(` name=${prefix}a-reader `)).length).toBeGreaterThanOrEqual(3);
    });
  }

  it('survives a failover: nothing acknowledged is lost, tails and the bus go on, without a restart', async () => {
    // A live tail on b of a stream a writes to, and sessions spread over every master.
    const tailed: TailedEvent[] = [];
    const ids = Array.from({ length: 12 }, (_, i) => `f-${i}`);
    for (const id of ids) await a.sessions.create(record(id), 60_000);
    await a.events.append('f-0', '0', note(1));
    const tail = b.events.tail('f-0', '0', 1, { event: (e) => void tailed.push(e), ended: () => undefined, unknown: () => undefined, lost: () => undefined });
    await until(() => b.events.isFollowing('f-0', '0'), 'b to follow the stream');
    await a.events.append('f-0', '0', note(2));
    await until(() => tailed.length === 1, 'the tail to get the event before the failover');
    // Replication is asynchronous: wait until the replicas have what was acknowledged (WAIT), as the docs advise before a planned failover.
    const victim = kind === 'cluster' ? await masterOf(await topology.masters(), a.keys.stream('f-0', '0')) : (await topology.masters())[0]!;
    await command(victim, ['WAIT', '1', '5000']);
    const killed = await topology.failover(victim);

    // Every instance recovers by itself: the same calls succeed again, and the data is there.
    for (const id of ids) expect(await eventually(`load ${id}`, () => b.sessions.load(id, 60_000))).toMatchObject({ id });
    await eventually('append after the failover', () => a.events.append('f-0', '0', note(3)));
    await until(() => tailed.length === 2, 'the tail to go on after the failover', 60_000);
    expect(tailed.map((e) => JSON.parse(e.data!).params.data)).toEqual([2, 3]);
    await eventually('broadcast after the failover', () => a.bus.broadcast({ type: 'taskChanged', taskId: 'after' }));
    await until(() => heardByB.some((m) => m.type === 'taskChanged'), 'b to hear the bus after the failover', 60_000);
    await until(() => a.ready && b.ready, 'both instances ready again', 60_000);
    tail.stop();
    await killed.restart();
  });

  it('keeps every key under its prefix', async () => {
    const keys = await keysOn(topology, prefix);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((key) => key.startsWith(prefix))).toBe(true);
  });

  /** The cluster master holding `key` now. */
  async function masterOf(masters: number[], key: string): Promise<number> {
    const slot = keySlot(key);
    const slots = (await command(masters[0]!, ['CLUSTER', 'SLOTS'])) as [number, number, [string, number]][];
    return Number(slots.find(([from, to]) => slot >= from && slot <= to)![2][1]);
  }
});
