import { createSentinel } from 'redis';
import type { RedisConnection } from './commands';
import { NodeRedisCommands, reconnectDelay, type NodeRedisConnectionOptions } from './node-redis-commands';
import { credentialsOf } from './redis-url';

/** Where Sentinel watches the primary, and how to log in to the data nodes. */
export interface SentinelSettings {
  /** The sentinels: `redis://host:port` each (credentials in a URL are the sentinels' own). */
  nodes: string[];
  /** The name the sentinels monitor the primary under (`sentinel monitor <name> ...`). */
  name: string;
  /** Credentials of the primary and its replicas, when they need any. */
  username?: string;
  password?: string;
}

type SentinelClient = ReturnType<typeof createSentinel>;

/**
 * A `RedisConnection` over node-redis's Sentinel client: commands go to the primary the sentinels
 * name, and to the new one after they switch (a failover), found by the client by itself.
 */
export function nodeRedisSentinelConnection(sentinel: SentinelSettings, options: NodeRedisConnectionOptions = {}): RedisConnection {
  return new NodeRedisSentinelConnection(sentinel, options);
}

class NodeRedisSentinelConnection extends NodeRedisCommands {
  private readonly sentinel: SentinelClient;
  private connectedOnce = false;

  constructor(settings: SentinelSettings, options: NodeRedisConnectionOptions) {
    super();
    if (settings.nodes.length === 0) throw new RangeError('Sentinel needs the URL of at least one sentinel');
    const sentinelLogin = credentialsOf(settings.nodes[0]!);
    const socket = {
      connectTimeout: options.connectTimeoutMs ?? 5000,
      reconnectStrategy: reconnectDelay(() => this.connectedOnce),
    };
    this.sentinel = createSentinel({
      name: settings.name,
      sentinelRootNodes: settings.nodes.map(hostAndPort),
      // One connection to the primary: commands issued together are pipelined on it.
      masterPoolSize: 1,
      nodeClientOptions: { username: settings.username, password: settings.password, name: options.name, disableOfflineQueue: true, socket },
      sentinelClientOptions: { username: sentinelLogin.username, password: sentinelLogin.password, socket: { ...socket, tls: sentinelLogin.tls } as never },
    });
    this.sentinel.on('error', (err: unknown) => options.onError?.(err instanceof Error ? err : new Error(String(err))));
    this.sentinel.on('ready', () => this.setUp(true));
    this.sentinel.on('reconnecting', () => this.setUp(false));
    this.sentinel.on('end', () => this.setUp(false));
  }

  get isReady(): boolean {
    return this.sentinel.isReady;
  }

  async connect(): Promise<void> {
    await this.sentinel.connect();
    this.connectedOnce = true;
    this.setUp(true);
  }

  async close(): Promise<void> {
    try {
      await this.sentinel.close();
    } catch {
      this.destroy();
    }
  }

  destroy(): void {
    // Its promise only tells when the connections are gone; a second destroy is harmless.
    void Promise.resolve()
      .then(() => this.sentinel.destroy())
      .catch(() => undefined);
  }

  protected sendCommand(args: string[]): Promise<unknown> {
    return this.sentinel.sendCommand(false, args);
  }
}

function hostAndPort(url: string): { host: string; port: number } {
  const parsed = new URL(url.includes('://') ? url : `redis://${url}`);
  return { host: parsed.hostname, port: parsed.port ? Number(parsed.port) : 26379 };
}
