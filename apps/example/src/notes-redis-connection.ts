import type { RedisSettings } from '@mcpx/core/stores';

/** What the notebook asks of Redis: the same few commands on a single node, a cluster or through Sentinel. */
export interface NotesRedis {
  readonly isOpen: boolean;
  readonly isReady: boolean;
  incr(key: string): Promise<number>;
  hGetAll(key: string): Promise<Record<string, string>>;
  zRange(key: string, start: number, stop: number): Promise<string[]>;
  evalSha(sha: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  subscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  destroy(): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  /** A second connection of the same kind (the change feed subscribes on one of its own). */
  duplicate(name: string): NotesRedis;
  /** Calls `listener` each time the connection is ready again after a reconnect (on a cluster: each node's). */
  onReady(listener: () => void): void;
  /** Lets the process end while connected (a single node only: the cluster and Sentinel clients have no such switch). */
  unref(): void;
}

/** Where the notes are: one of the three ways `RedisSettings` names Redis. */
export type NotesRedisWhere = Pick<RedisSettings, 'url' | 'cluster' | 'sentinel'>;

/** A description of where, for messages: without passwords. */
export function describeWhere(where: NotesRedisWhere): string {
  if (where.cluster) return `the Redis Cluster at ${where.cluster.map(shown).join(', ')}`;
  if (where.sentinel) return `the primary "${where.sentinel.name}" of the sentinels at ${where.sentinel.nodes.map(shown).join(', ')}`;
  return shown(where.url ?? '');
}

/**
 * The URL as it may appear in a message: without its password. (@mcpx/redis exports the same
 * redactUrl; importing it here would load node-redis into every start of the example, Redis or not.)
 */
function shown(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

function login(url: string): { username?: string; password?: string; tls: boolean } {
  const parsed = new URL(url);
  return {
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    tls: parsed.protocol === 'rediss:',
  };
}

const socket = {
  // While Redis is away (or a failover is under way), commands fail at once instead of waiting in a queue.
  reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000),
};

/** A connection to the Redis `where` names, not yet connected; node-redis is loaded by the caller, on first use. */
export function notesRedis(redis: typeof import('redis'), where: NotesRedisWhere, name: string): NotesRedis {
  if (where.cluster) {
    const { username, password, tls } = login(where.cluster[0]!);
    const make = (clientName: string) => {
      const cluster = redis.createCluster({
        rootNodes: where.cluster!.map((url) => ({ url })),
        defaults: { username, password, name: clientName, disableOfflineQueue: true, socket: { ...socket, tls } as never },
      });
      return wrap(
        cluster,
        (listener) => cluster.on('node-ready', listener),
        () => undefined,
        make,
      );
    };
    return make(name);
  }
  if (where.sentinel) {
    const { nodes, name: primary, username, password } = where.sentinel;
    const sentinelLogin = login(nodes[0]!);
    const make = (clientName: string) => {
      const sentinel = redis.createSentinel({
        name: primary,
        sentinelRootNodes: nodes.map((url) => ({ host: new URL(url).hostname, port: Number(new URL(url).port || 26379) })),
        masterPoolSize: 1,
        nodeClientOptions: { username, password, name: clientName, disableOfflineQueue: true, socket },
        sentinelClientOptions: { username: sentinelLogin.username, password: sentinelLogin.password, socket: { ...socket, tls: sentinelLogin.tls } as never },
      });
      return wrap(
        sentinel,
        (listener) => sentinel.on('ready', listener),
        () => undefined,
        make,
      );
    };
    return make(name);
  }
  const make = (clientName: string) => {
    const client = redis.createClient({ url: where.url, name: clientName, disableOfflineQueue: true, socket });
    return wrap(
      client,
      (listener) => client.on('ready', listener),
      () => client.unref(),
      make,
    );
  };
  return make(name);
}

/** The part of a node-redis client (single, cluster or Sentinel) the notebook calls: the same on all three. */
type ClientCommands = Omit<NotesRedis, 'duplicate' | 'onReady' | 'unref'>;

/** The three clients' commands have one shape where the notebook uses them; their events and switches differ. */
function wrap(client: object, onReady: (listener: () => void) => void, unref: () => void, make: (name: string) => NotesRedis): NotesRedis {
  return new NotesConnection(client as ClientCommands, onReady, unref, make);
}

class NotesConnection implements NotesRedis {
  constructor(
    private readonly client: ClientCommands,
    readonly onReady: (listener: () => void) => void,
    readonly unref: () => void,
    private readonly make: (name: string) => NotesRedis,
  ) {}

  get isOpen(): boolean {
    return this.client.isOpen;
  }
  get isReady(): boolean {
    return this.client.isReady;
  }
  incr(key: string) {
    return this.client.incr(key);
  }
  hGetAll(key: string) {
    return this.client.hGetAll(key);
  }
  zRange(key: string, start: number, stop: number) {
    return this.client.zRange(key, start, stop);
  }
  evalSha(sha: string, options: { keys: string[]; arguments: string[] }) {
    return this.client.evalSha(sha, options);
  }
  eval(script: string, options: { keys: string[]; arguments: string[] }) {
    return this.client.eval(script, options);
  }
  subscribe(channel: string, listener: (message: string) => void) {
    return this.client.subscribe(channel, listener);
  }
  connect() {
    return this.client.connect();
  }
  close() {
    return this.client.close();
  }
  destroy() {
    return this.client.destroy();
  }
  on(event: 'error', listener: (err: Error) => void) {
    return this.client.on(event, listener);
  }
  duplicate(name: string): NotesRedis {
    return this.make(name);
  }
}
