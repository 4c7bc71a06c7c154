import { RedisRateLimitStore } from './rate-limit-store';
import { randomBytes } from 'node:crypto';
import { ClusterUnavailableError, type Cluster } from '@mcpx/core/stores';
import { RedisBus } from './bus';
import type { RedisConnection } from './commands';
import { RedisEventLog } from './event-log';
import { RedisKeys } from './keys';
import { silentLogger, type Logger } from './logger';
import { nodeRedisConnection } from './node-redis';
import { nodeRedisClusterConnection } from './node-redis-cluster';
import { nodeRedisSentinelConnection, type SentinelSettings } from './node-redis-sentinel';
import { SlotReaders } from './slot-readers';
import { RedisSessionStore } from './session-store';
import { StreamReader, type StreamFollower } from './stream-reader';
import { RedisTaskStore } from './task-store';
import { redactUrl } from './redis-url';
import { DEFAULT_LEASE_MS, leaseCheckEveryMs } from './lost-request';

export interface RedisClusterOptions {
  /** A single node (or a proxy in front of one): `redis://[[user]:password@]host[:port][/db]` or `rediss://...`. */
  url?: string;
  /** A Redis Cluster: the URLs of some of its nodes (credentials and TLS from the first). */
  cluster?: string[];
  /** A primary watched by Sentinel: the sentinels' URLs and the name they monitor it under. */
  sentinel?: SentinelSettings;
  /**
   * On a cluster, how many slots the streams an instance follows are spread over (default 16):
   * each instance keeps one blocking connection a slot group (see RedisKeys).
   */
  slotGroups?: number;
  /** Starts every key (default `mcpx:`): deployments and tests can share one Redis. */
  prefix?: string;
  /** How long an instance's lease lasts without renewal (default 10 s): a killed instance's work is declared lost after it. */
  leaseMs?: number;
  /** Logs connection changes and failures of background work (a pino Logger fits). */
  logger?: Logger;
  /** Cap (approximate, MAXLEN ~) of each session's standalone SSE stream (default 1000 events). */
  sessionStreamMaxLen?: number;
  /** Cap (approximate) of each request's SSE stream (default 1000 events). */
  requestStreamMaxLen?: number;
  /** How long an SSE stream is kept after its last event (default 30 min). */
  eventRetentionMs?: number;
  /** Cap (approximate) of the bus and of each inbox (default 10000 messages). */
  busMaxLen?: number;
  /** How long connecting may take at start (default 5000 ms). */
  connectTimeoutMs?: number;
  /** Names the connections (`<name>-commands`, `<name>-reader`) as CLIENT LIST shows them. */
  name?: string;
  /**
   * Makes the connections (`commands`, and `reader` for blocking reads) another way than node-redis
   * at `url`, e.g. an adapter of another client. Not for a cluster or Sentinel.
   */
  connect?: (purpose: 'commands' | 'reader') => RedisConnection;
}

const DEFAULTS = {
  prefix: 'mcpx:',
  leaseMs: DEFAULT_LEASE_MS,
  sessionStreamMaxLen: 1000,
  requestStreamMaxLen: 1000,
  eventRetentionMs: 30 * 60_000,
  busMaxLen: 10_000,
  connectTimeoutMs: 5000,
  slotGroups: 16,
};

/** How long the shared secrets live without being read (every instance re-reads them often). */
const SECRET_TTL_MS = 24 * 3600_000;
const INSTANCE_ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A Cluster on Redis (see `Cluster` in @mcpx/core). Not connected until `start()`. */
export function createRedisCluster(options: RedisClusterOptions): RedisCluster {
  return new RedisCluster(options);
}

export class RedisCluster implements Cluster {
  readonly sessions: RedisSessionStore;
  readonly events: RedisEventLog;
  readonly tasks: RedisTaskStore;
  readonly rateLimits: RedisRateLimitStore;
  readonly bus: RedisBus;
  readonly keys: RedisKeys;

  private readonly redis: RedisConnection;
  private readonly readerConnections: RedisConnection[];
  private readonly reader: StreamFollower;
  private readonly logger: Logger;
  private readonly leaseMs: number;
  /** Where Redis is, as logs may show it (no password). */
  private readonly where: string;
  private id: string | undefined;
  private state: 'new' | 'starting' | 'started' | 'closed' = 'new';
  private renewal?: NodeJS.Timeout;
  private lostConnection = false;
  /** When the connection last came back after a loss. */
  private reconnectedAt: number | undefined;
  /** Secrets as read last, and when to read them again (so all instances converge after a Redis restart). */
  private readonly secrets = new Map<string, { value: Promise<Buffer>; readAt: number }>();

  constructor(options: RedisClusterOptions) {
    const settings = { ...DEFAULTS, ...definedOnly(options) };
    const deployment = deploymentOf(options);
    this.where = deployment.where;
    this.logger = options.logger ?? silentLogger;
    this.leaseMs = settings.leaseMs;
    this.keys = new RedisKeys(settings.prefix, deployment.kind === 'cluster' ? settings.slotGroups : undefined);
    const connectionOptions = (purpose: string) => ({
      connectTimeoutMs: settings.connectTimeoutMs,
      name: options.name === undefined ? undefined : `${options.name}-${purpose}`,
      onError: (err: Error) => this.logger.debug({ err, purpose }, 'redis connection error'),
    });
    const connect =
      options.connect ??
      ((purpose: 'commands' | 'reader', routeKey?: string) => {
        if (deployment.kind === 'cluster') return nodeRedisClusterConnection(deployment.nodes, { ...connectionOptions(purpose), routeKey });
        if (deployment.kind === 'sentinel') return nodeRedisSentinelConnection(deployment.sentinel, connectionOptions(purpose));
        return nodeRedisConnection(deployment.url, connectionOptions(purpose));
      });
    this.redis = connect('commands');
    if (this.keys.slotGroups === undefined) {
      this.readerConnections = [connect('reader')];
      this.reader = new StreamReader(this.readerConnections[0]!, this.redis, this.logger);
    } else {
      // One blocking reader a slot group, each with a connection to that slot's master.
      const groups = Array.from({ length: this.keys.slotGroups }, (_, group) => {
        const routeKey = `${this.keys.prefix}{g${group}}`;
        return { routeKey, connection: connect('reader', routeKey), unblock: (id: number) => this.redis.clientUnblock(id, routeKey) };
      });
      this.readerConnections = groups.map((group) => group.connection);
      this.reader = new SlotReaders(groups, this.logger);
    }
    this.sessions = new RedisSessionStore(this.redis, this.keys, this.logger);
    this.tasks = new RedisTaskStore(this.redis, this.keys);
    this.rateLimits = new RedisRateLimitStore(this.redis, this.keys, () => this.id ?? 'starting');
    this.events = new RedisEventLog(this.redis, this.keys, this.reader, this.logger, {
      retentionMs: settings.eventRetentionMs,
      sessionStreamMaxLen: settings.sessionStreamMaxLen,
      requestStreamMaxLen: settings.requestStreamMaxLen,
      checkEveryMs: leaseCheckEveryMs(this.leaseMs),
      leasesTrusted: () => this.leasesTrusted(),
    });
    this.bus = new RedisBus(this.redis, this.keys, this.logger, () => this.instanceId, {
      maxLen: settings.busMaxLen,
      busTtlMs: Math.max(3600_000, 10 * this.leaseMs),
      inboxTtlMs: 3 * this.leaseMs,
    });
    this.redis.onStatus((ready) => this.connectionChanged(ready));
  }

  get instanceId(): string {
    if (this.id === undefined) throw new Error('The Redis cluster is not started: call start() first');
    return this.id;
  }

  get ready(): boolean {
    return this.state === 'started' && this.redis.isReady;
  }

  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`The Redis cluster cannot start: it is ${this.state}`);
    this.state = 'starting';
    try {
      await this.redis.connect();
      await Promise.all(this.readerConnections.map((connection) => connection.connect()));
    } catch (err) {
      this.state = 'closed';
      this.redis.destroy();
      for (const connection of this.readerConnections) connection.destroy();
      throw new Error(`Cannot reach Redis at ${this.where}: ${reasonOf(err)}`, { cause: err });
    }
    try {
      this.id = await this.takeLease();
      this.reader.start();
      await this.bus.listen(this.reader);
    } catch (err) {
      await this.close();
      throw err;
    }
    this.renewal = setInterval(() => void this.renewLease(), Math.max(1, Math.floor(this.leaseMs / 3)));
    this.renewal.unref();
    this.state = 'started';
    this.logger.info({ instanceId: this.id, prefix: this.keys.prefix }, 'joined the Redis cluster');
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    const wasStarted = this.id !== undefined;
    this.state = 'closed';
    clearInterval(this.renewal);
    this.events.stopAll();
    this.bus.stop();
    await this.reader.close();
    if (wasStarted && this.redis.isReady) {
      // A closed instance runs nothing any more: other instances may treat its work as lost now.
      await Promise.all([this.redis.del([this.keys.instance(this.id!)]), this.redis.del([this.keys.inbox(this.id!)])]).catch(() => undefined);
    }
    await this.redis.close();
  }

  async isAlive(instanceId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.instance(instanceId))) || !this.leasesTrusted();
  }

  /**
   * Whether a missing lease proves its instance dead. Not during the first lease after this
   * instance reconnected: the others may have been cut off as well (Redis restarted, or was
   * unreachable for longer than a lease) and retake their leases as they reconnect.
   */
  private leasesTrusted(): boolean {
    return this.reconnectedAt === undefined || Date.now() - this.reconnectedAt >= this.leaseMs;
  }

  async claim(key: string, ttlMs: number): Promise<boolean> {
    return this.redis.set(this.keys.claim(key), this.instanceId, { nx: true, px: ttlMs });
  }

  secret(name: string): Promise<Buffer> {
    const cached = this.secrets.get(name);
    const now = Date.now();
    if (cached && now - cached.readAt < this.leaseMs) return cached.value;
    const value = this.readSecret(name, cached?.value).catch((err: unknown) => {
      // Redis unreachable: keep using what was read before, if anything.
      if (cached && err instanceof ClusterUnavailableError) return cached.value;
      this.secrets.delete(name);
      throw err;
    });
    this.secrets.set(name, { value, readAt: now });
    return value;
  }

  /**
   * The first instance to ask makes the secret; everyone reads the one that won. An instance that
   * held one already offers it again, so a Redis that lost its data gets the deployment's secret
   * back from the first instance to look, rather than a new one none of the others knows.
   */
  private async readSecret(name: string, held?: Promise<Buffer>): Promise<Buffer> {
    const key = this.keys.secret(name);
    const offered = (held && (await held.catch(() => undefined))) || randomBytes(32);
    const [, , stored] = await Promise.all([this.redis.set(key, offered.toString('base64'), { nx: true, px: SECRET_TTL_MS }), this.redis.pexpire(key, SECRET_TTL_MS), this.redis.get(key)]);
    if (stored === null) throw new ClusterUnavailableError(`The shared secret ${name} vanished while being read`);
    return Buffer.from(stored, 'base64');
  }

  private async takeLease(): Promise<string> {
    for (;;) {
      const id = randomInstanceId();
      if (await this.redis.set(this.keys.instance(id), String(process.pid), { nx: true, px: this.leaseMs })) return id;
    }
  }

  private async renewLease(): Promise<void> {
    if (this.id === undefined || this.state === 'closed') return;
    try {
      await this.redis.set(this.keys.instance(this.id), String(process.pid), { px: this.leaseMs });
    } catch (err) {
      this.logger.debug({ err }, 'could not renew the instance lease');
    }
  }

  private connectionChanged(ready: boolean): void {
    if (this.state !== 'started') return;
    if (!ready) {
      if (!this.lostConnection) this.logger.warn({ redis: this.where }, 'lost the connection to Redis; reconnecting');
      this.lostConnection = true;
      return;
    }
    if (this.lostConnection) {
      this.logger.info({ redis: this.where }, 'reconnected to Redis');
      this.reconnectedAt = Date.now();
    }
    this.lostConnection = false;
    // Retake the lease at once: it may have lapsed (or Redis restarted empty) while down.
    void this.renewLease();
  }
}

type Deployment = { kind: 'single'; url: string; where: string } | { kind: 'cluster'; nodes: string[]; where: string } | { kind: 'sentinel'; sentinel: SentinelSettings; where: string };

/** Which Redis the options name: exactly one of url, cluster and sentinel (or connect alone). */
function deploymentOf(options: RedisClusterOptions): Deployment {
  const given = (['url', 'cluster', 'sentinel'] as const).filter((name) => options[name] !== undefined);
  if (given.length > 1) throw new Error(`The Redis cluster takes one of url, cluster and sentinel, got ${given.join(' and ')}`);
  if (options.cluster) {
    if (options.cluster.length === 0) throw new Error('cluster needs the URL of at least one node of the Redis Cluster');
    return { kind: 'cluster', nodes: options.cluster, where: `the Redis Cluster at ${options.cluster.map(redactUrl).join(', ')}` };
  }
  if (options.sentinel) {
    const { nodes, name } = options.sentinel;
    if (!Array.isArray(nodes) || nodes.length === 0 || !name) throw new Error("sentinel needs nodes (the sentinels' URLs) and name (the primary they monitor)");
    return { kind: 'sentinel', sentinel: options.sentinel, where: `the primary "${name}" of the sentinels at ${nodes.map(redactUrl).join(', ')}` };
  }
  if (options.url === undefined && !options.connect) throw new Error('The Redis cluster needs url, cluster or sentinel');
  return { kind: 'single', url: options.url ?? '', where: options.url === undefined ? 'the given connections' : redactUrl(options.url) };
}

function randomInstanceId(): string {
  const bytes = randomBytes(8);
  let id = '';
  for (const byte of bytes) id += INSTANCE_ID_ALPHABET[byte % INSTANCE_ID_ALPHABET.length];
  return id;
}

function reasonOf(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) return reasonOf(err.errors[0]);
  if (err instanceof Error) return err.message || (err as NodeJS.ErrnoException).code || err.name;
  return String(err);
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
