import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { createClient } from 'redis';
import { createRedisCluster, type RedisCluster, type RedisClusterOptions } from '../src';

export const REDIS_URL = process.env.MCPX_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A raw client for what tests check behind the stores' backs (ttls, keys). */
export type RawRedis = ReturnType<typeof createClient>;

/**
 * One test file's corner of the shared Redis: its own key prefix, a raw client, the clusters it
 * started; `cleanup()` closes them and deletes every key under the prefix.
 */
export class RedisTestBed {
  readonly prefix = `mcpx-test:${randomBytes(6).toString('hex')}:`;
  readonly raw: RawRedis = createClient({ url: REDIS_URL });
  private readonly clusters: RedisCluster[] = [];

  async open(): Promise<this> {
    this.raw.on('error', () => undefined);
    await this.raw.connect();
    return this;
  }

  async cluster(options: Partial<RedisClusterOptions> = {}): Promise<RedisCluster> {
    const cluster = createRedisCluster({ url: REDIS_URL, prefix: this.prefix, ...options });
    this.clusters.push(cluster);
    await cluster.start();
    return cluster;
  }

  async pttl(key: string): Promise<number> {
    return Number(await this.raw.sendCommand(['PTTL', key]));
  }

  /** Every key under this bed's prefix. */
  async keys(): Promise<string[]> {
    const found: string[] = [];
    let cursor = '0';
    do {
      const reply = (await this.raw.sendCommand(['SCAN', cursor, 'MATCH', `${this.prefix}*`, 'COUNT', '1000'])) as [string, string[]];
      cursor = String(reply[0]);
      found.push(...reply[1].map(String));
    } while (cursor !== '0');
    return found;
  }

  async cleanup(): Promise<void> {
    await Promise.all(this.clusters.map((cluster) => cluster.close()));
    const keys = await this.keys();
    if (keys.length > 0) await this.raw.sendCommand(['DEL', ...keys]);
    await this.raw.close();
  }
}

/** Waits until `condition` holds, checking every few ms; fails after a generous timeout. */
export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A port nothing listens on (it was free a moment ago). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A promise with its resolve function, for waiting on callbacks. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A throwaway Redis server on its own port, which the test stops and starts again. */
export class ThrowawayRedis {
  private child?: ChildProcess;
  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    // Ready when it says so on stdout.
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Ready to accept connections')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
    });
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }
}
