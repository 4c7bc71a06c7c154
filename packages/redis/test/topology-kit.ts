/**
 * Local Redis topologies for tests, started with scripts/redis-topology.sh (Debian's redis-server
 * and redis-sentinel, loopback ports, nothing saved to disk): a Redis Cluster of three masters and
 * three replicas, or a primary with one replica watched by three sentinels. Each test file picks
 * its own base port, so files running side by side do not share nodes. Not a test file itself.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createClient } from 'redis';

const run = promisify(execFile);
const SCRIPT = resolve(__dirname, '../../../scripts/redis-topology.sh');

export interface Topology {
  kind: 'cluster' | 'sentinel';
  /** The data nodes' ports (cluster: all six; sentinel: the primary and its replica). */
  ports: number[];
  /** What @mcpx/redis is configured with. */
  redis: { cluster: string[] } | { sentinel: { nodes: string[]; name: string } };
  /** The same, as the environment variables of `mcpx serve` and `listen()`. */
  env: Record<string, string>;
  /** The ports of the masters (cluster) or of the primary (sentinel) now. */
  masters(): Promise<number[]>;
  /** SIGKILLs the node on `port` and waits until another has taken over its role; `restart` brings it back (as a replica). */
  failover(port: number): Promise<{ restart(): Promise<void> }>;
  /** Runs a command on every master (SCAN, FLUSHALL...), for checks behind the stores' backs. */
  onMasters<T>(command: string[]): Promise<T[]>;
  stop(): Promise<void>;
}

export async function startTopology(kind: 'cluster' | 'sentinel', basePort: number): Promise<Topology> {
  const dir = mkdtempSync(join(tmpdir(), `mcpx-redis-${kind}-`));
  let printed: string;
  try {
    printed = (await run('bash', [SCRIPT, kind, dir, String(basePort)], { timeout: 120_000 })).stdout;
  } catch (err) {
    await run('bash', [SCRIPT, 'stop', dir]).catch(() => undefined);
    throw new Error(`could not start the ${kind}: ${(err as Error).message}`, { cause: err });
  }
  const env = Object.fromEntries(
    printed
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('MCPX_'))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  const ports = kind === 'cluster' ? [0, 1, 2, 3, 4, 5].map((i) => basePort + i) : [basePort, basePort + 1];
  const sentinelPort = basePort + 2;
  const masters = async (): Promise<number[]> => {
    if (kind === 'sentinel') {
      const [, port] = (await command(sentinelPort, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', 'mcpx'])) as [string, string];
      return [Number(port)];
    }
    // Asked of the first node that answers: the one on basePort may be the one killed.
    let reply: unknown;
    for (const port of ports) {
      reply = await command(port, ['CLUSTER', 'NODES']).catch(() => undefined);
      if (reply !== undefined) break;
    }
    if (reply === undefined) throw new Error('no node of the cluster answers');
    const nodes = String(reply).trim().split('\n');
    return nodes.filter((line) => /\bmaster\b/.test(line) && !/\bfail\b/.test(line)).map((line) => Number(/:(\d+)@/.exec(line)![1]));
  };
  const alive = async (port: number) =>
    command(port, ['PING']).then(
      () => true,
      () => false,
    );
  return {
    kind,
    ports,
    env,
    redis: kind === 'cluster' ? { cluster: env.MCPX_REDIS_CLUSTER_NODES!.split(',') } : { sentinel: { nodes: env.MCPX_REDIS_SENTINELS!.split(','), name: env.MCPX_REDIS_SENTINEL_NAME! } },
    masters,
    async failover(port) {
      const pidFile = join(dir, `redis-${port}.pid`);
      process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 'SIGKILL');
      const deadline = Date.now() + 60_000;
      for (;;) {
        const now = await masters().catch(() => [port]);
        // Cluster: the killed master marked failed and its replica promoted; Sentinel: a new primary named.
        if (!now.includes(port) && now.length === (kind === 'cluster' ? 3 : 1) && (await Promise.all(now.map(alive))).every(Boolean)) break;
        if (Date.now() > deadline) throw new Error(`no failover of ${port} within 60 s (masters: ${now.join(', ')})`);
        await new Promise((done) => setTimeout(done, 200));
      }
      return {
        restart: async () => {
          const args = [
            '--daemonize',
            'yes',
            '--bind',
            '127.0.0.1',
            '--port',
            String(port),
            '--save',
            '',
            '--appendonly',
            'no',
            '--repl-diskless-sync-delay',
            '0',
            '--dir',
            dir,
            '--pidfile',
            pidFile,
            '--logfile',
            join(dir, `redis-${port}.log`),
          ];
          if (kind === 'cluster') args.push('--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', '2000');
          else args.push('--replicaof', '127.0.0.1', String((await masters())[0]));
          await run('redis-server', args);
          const until = Date.now() + 30_000;
          while (!(await alive(port))) {
            if (Date.now() > until) throw new Error(`redis on ${port} did not come back`);
            await new Promise((done) => setTimeout(done, 100));
          }
        },
      };
    },
    async onMasters<T>(args: string[]) {
      return Promise.all((await masters()).map((port) => command(port, args) as Promise<T>));
    },
    async stop() {
      await run('bash', [SCRIPT, 'stop', dir]).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One command to one node, on a connection of its own. */
export async function command(port: number, args: string[]): Promise<unknown> {
  const client = createClient({ socket: { host: '127.0.0.1', port, reconnectStrategy: false, connectTimeout: 2000 } });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await client.sendCommand(args);
  } finally {
    client.destroy();
  }
}

/** Every key under `prefix` on the masters of the topology. */
export async function keysOn(topology: Topology, prefix: string): Promise<string[]> {
  const found: string[] = [];
  for (const port of await topology.masters()) {
    let cursor = '0';
    do {
      const [next, keys] = (await command(port, ['SCAN', cursor, 'MATCH', `${prefix}*`, 'COUNT', '1000'])) as [string, string[]];
      cursor = String(next);
      found.push(...keys.map(String));
    } while (cursor !== '0');
  }
  return found;
}

/** Retries an operation that may meet the failover window (503-like ClusterUnavailableError) until it succeeds. */
export async function eventually<T>(what: string, operation: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await operation();
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${what} kept failing: ${(err as Error).message}`, { cause: err });
      await new Promise((done) => setTimeout(done, 200));
    }
  }
}
