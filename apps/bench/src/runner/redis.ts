import { createClient } from 'redis';

/** Where the Redis-backed target keeps its state, and where the runner reads Redis's own figures. */
export const BENCH_REDIS_URL = process.env.MCPX_BENCH_REDIS_URL || 'redis://127.0.0.1:6379';

/** No reconnection: a Redis that goes away mid-run fails the measurement instead of stalling it. */
function clientFor(url: string, timeoutMs: number) {
  return createClient({ url, socket: { connectTimeout: timeoutMs, reconnectStrategy: false } });
}

type Client = ReturnType<typeof clientFor>;

/** Redis's own figures at one moment: memory, CPU, and commands served so far (the whole Redis, every client). */
export interface RedisReading {
  usedMemory: number;
  /** user + system, µs. */
  cpuUs: number;
  /** Calls per command name (INFO commandstats). */
  commands: Record<string, number>;
}

/**
 * The runner's own connection to the Redis of the Redis-backed target: reads Redis's memory and
 * CPU around a measurement, the memory of one run's keys, and removes those keys afterwards.
 */
export class BenchRedis {
  private constructor(
    private readonly client: Client,
    readonly url: string,
    readonly version: string,
  ) {}

  /** Connects and pings; rejects with the reason when Redis does not answer within `timeoutMs`. */
  static async connect(url = BENCH_REDIS_URL, timeoutMs = 2000): Promise<BenchRedis> {
    const client = clientFor(url, timeoutMs);
    client.on('error', () => undefined);
    try {
      await withTimeout(client.connect(), timeoutMs);
      await withTimeout(client.ping(), timeoutMs);
      const version = (await info(client, 'server')).redis_version ?? 'unknown';
      return new BenchRedis(client, url, version);
    } catch (err) {
      client.destroy();
      throw err;
    }
  }

  async reading(): Promise<RedisReading> {
    const [memory, cpu, stats] = await Promise.all([info(this.client, 'memory'), info(this.client, 'cpu'), info(this.client, 'commandstats')]);
    const commands: Record<string, number> = {};
    for (const [key, value] of Object.entries(stats)) {
      // cmdstat_xadd:calls=12,usec=34,...
      const calls = /calls=(\d+)/.exec(value);
      if (key.startsWith('cmdstat_') && calls) commands[key.slice('cmdstat_'.length)] = Number(calls[1]);
    }
    return {
      usedMemory: Number(memory.used_memory),
      cpuUs: (Number(cpu.used_cpu_user) + Number(cpu.used_cpu_sys)) * 1e6,
      commands,
    };
  }

  /** Every key under `prefix`. */
  async keys(prefix: string): Promise<string[]> {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = (await this.client.sendCommand(['SCAN', cursor, 'MATCH', `${escapeGlob(prefix)}*`, 'COUNT', '1000'])) as [string, string[]];
      cursor = String(next);
      found.push(...batch.map(String));
    } while (cursor !== '0');
    return found;
  }

  /** Bytes the keys under `prefix` take, by MEMORY USAGE (every element counted: SAMPLES 0). */
  async keysMemory(prefix: string): Promise<number> {
    let total = 0;
    const keys = await this.keys(prefix);
    for (let i = 0; i < keys.length; i += 1000) {
      // Sent in one tick, so node-redis pipelines them.
      const sizes = await Promise.all(keys.slice(i, i + 1000).map((key) => this.client.sendCommand(['MEMORY', 'USAGE', key, 'SAMPLES', '0'])));
      for (const size of sizes) total += Number(size ?? 0);
    }
    return total;
  }

  /** Removes every key under `prefix`; returns how many there were. */
  async deleteKeys(prefix: string): Promise<number> {
    const keys = await this.keys(prefix);
    for (let i = 0; i < keys.length; i += 1000) await this.client.sendCommand(['UNLINK', ...keys.slice(i, i + 1000)]);
    return keys.length;
  }

  async close(): Promise<void> {
    await this.client.close().catch(() => this.client.destroy());
  }
}

/** Calls per command between two readings, most called first. */
export function commandsBetween(before: RedisReading, after: RedisReading): [string, number][] {
  return Object.entries(after.commands)
    .map(([name, calls]): [string, number] => [name, calls - (before.commands[name] ?? 0)])
    .filter(([, calls]) => calls > 0)
    .sort((a, b) => b[1] - a[1]);
}

async function info(client: Client, section: string): Promise<Record<string, string>> {
  const text = String(await client.sendCommand(['INFO', section]));
  const fields: Record<string, string> = {};
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) fields[line.slice(0, colon)] = line.slice(colon + 1);
  }
  return fields;
}

/** A prefix as a SCAN pattern matching itself literally. */
function escapeGlob(prefix: string): string {
  return prefix.replace(/[*?[\]\\]/g, '\\$&');
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
