import { ClusterUnavailableError, type ClusterMessage } from '@mcpx/core/stores';
import { createClient } from 'redis';
import { createRedisCluster, nodeRedisConnection, type RedisCluster } from '../src';
import { ThrowawayRedis, freePort, until } from './redis-kit';

describe('RedisCluster faults', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeAll(() => process.on('unhandledRejection', onUnhandled));
  afterAll(() => process.off('unhandledRejection', onUnhandled));

  it('rejects start() quickly and clearly when nothing listens at the URL', async () => {
    const port = await freePort();
    const cluster = createRedisCluster({ url: `redis://:hunter2@127.0.0.1:${port}` });
    const started = Date.now();
    const failure = await cluster.start().then(
      () => undefined,
      (err: Error) => err,
    );
    expect(failure?.message).toMatch(new RegExp(`^Cannot reach Redis at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`));
    expect(failure?.message).not.toContain('hunter2');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(cluster.ready).toBe(false);
    await cluster.close();
  });

  it('counts a Redis that refuses writes while its topology changes as unavailable, not as a failed command', async () => {
    const redis = new ThrowawayRedis(await freePort());
    await redis.start();
    const admin = createClient({ url: redis.url });
    const connection = nodeRedisConnection(redis.url);
    try {
      await admin.connect();
      await connection.connect();
      // A primary that lost its replicas refuses writes (NOREPLICAS), as one does during a failover.
      await admin.configSet('min-replicas-to-write', '1');
      const refused = await connection.set('mcpx-test:k', 'v').catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(ClusterUnavailableError);
      expect((refused as Error).message).toMatch(/^Redis is unavailable: NOREPLICAS/);
      // Reads still work, and a reply that is the caller's own mistake stays what it is.
      expect(await connection.get('mcpx-test:k')).toBeNull();
      await admin.configSet('min-replicas-to-write', '0');
      await connection.set('mcpx-test:k', 'v');
      const wrongType = await connection.hget('mcpx-test:k', 'f').catch((err: unknown) => err);
      expect(wrongType).not.toBeInstanceOf(ClusterUnavailableError);
      expect((wrongType as Error).message).toMatch(/^WRONGTYPE/);
    } finally {
      connection.destroy();
      admin.destroy();
      await redis.kill();
    }
  });

  describe('with a Redis that goes away and comes back', () => {
    let redis: ThrowawayRedis;
    let a: RedisCluster;
    let b: RedisCluster;

    beforeAll(async () => {
      redis = new ThrowawayRedis(await freePort());
      await redis.start();
      a = createRedisCluster({ url: redis.url, leaseMs: 3000 });
      b = createRedisCluster({ url: redis.url, leaseMs: 3000 });
      await a.start();
      await b.start();
    });

    afterAll(async () => {
      await a?.close();
      await b?.close();
      await redis?.kill();
    });

    it('turns not ready, fails commands at once, then resumes by itself: lease retaken, bus read again', async () => {
      const heard: ClusterMessage[] = [];
      b.bus.onMessage((message) => heard.push(message));
      await a.bus.broadcast({ type: 'taskChanged', taskId: 'before' });
      await until(() => heard.length === 1, 'B to hear the first broadcast');

      await redis.kill();
      await until(() => !a.ready && !b.ready, 'both to notice that Redis is gone');

      const started = Date.now();
      await expect(a.sessions.load('s1', 60_000)).rejects.toBeInstanceOf(ClusterUnavailableError);
      await expect(a.bus.broadcast({ type: 'taskChanged', taskId: 'lost' })).rejects.toBeInstanceOf(ClusterUnavailableError);
      await expect(a.isAlive(b.instanceId)).rejects.toBeInstanceOf(ClusterUnavailableError);
      expect(Date.now() - started).toBeLessThan(1000);

      // Redis comes back empty (no persistence): the instances reconnect and carry on.
      await redis.start();
      await until(() => a.ready && b.ready, 'both to reconnect', 30_000);
      // Right after reconnecting, a missing lease is no proof of death (its holder may still be
      // reconnecting); once a lease has passed, it is.
      expect(await a.isAlive('gone1234')).toBe(true);
      const raw = createClient({ url: redis.url });
      raw.on('error', () => undefined);
      await raw.connect();
      const leased = async (id: string) => (await raw.exists(`mcpx:instance:${id}`)) === 1;
      await until(async () => (await leased(a.instanceId)) && (await leased(b.instanceId)), 'the leases to be retaken');
      await until(async () => !(await a.isAlive('gone1234')), 'a lease to pass after the reconnection');
      expect(await a.isAlive(b.instanceId)).toBe(true);

      await a.bus.broadcast({ type: 'taskChanged', taskId: 'after' });
      await until(() => heard.length === 2, "B's reader to read the bus again", 30_000);
      expect(heard).toEqual([
        { type: 'taskChanged', taskId: 'before' },
        { type: 'taskChanged', taskId: 'after' },
      ]);
      await a.bus.send(b.instanceId, { type: 'taskCancel', taskId: 'inbox' });
      await until(() => heard.length === 3, "B's inbox to be read again");

      await raw.close();
      expect(unhandled).toEqual([]);
    });

    it('closes at once while Redis is down', async () => {
      const c = createRedisCluster({ url: redis.url, leaseMs: 3000 });
      await c.start();
      await redis.kill();
      await until(() => !c.ready, 'C to notice that Redis is gone');
      await c.close();
      expect(c.ready).toBe(false);
      expect(unhandled).toEqual([]);
    });
  });
});
