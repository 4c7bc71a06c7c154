import { createCluster } from 'redis';
import type { RedisConnection } from './commands';
import { NodeRedisCommands, reconnectDelay, type NodeRedisConnectionOptions } from './node-redis-commands';
import { bySlot } from './slot';
import { credentialsOf } from './redis-url';

export interface NodeRedisClusterConnectionOptions extends NodeRedisConnectionOptions {
  /** A key of the one slot this connection serves (a blocking reader): it then connects to that slot's node only. */
  routeKey?: string;
}

type ClusterClient = ReturnType<typeof createCluster>;

/**
 * A `RedisConnection` over node-redis's cluster client: each command goes to the master of its
 * key's slot (following MOVED and ASK, and the new topology after a failover). Keys one command
 * names share a slot; DEL of keys in several slots becomes one DEL a slot.
 */
export function nodeRedisClusterConnection(nodes: string[], options: NodeRedisClusterConnectionOptions = {}): RedisConnection {
  return new NodeRedisClusterConnection(nodes, options);
}

class NodeRedisClusterConnection extends NodeRedisCommands {
  private readonly cluster: ClusterClient;
  private connectedOnce = false;

  constructor(nodes: string[], options: NodeRedisClusterConnectionOptions) {
    super();
    if (nodes.length === 0) throw new RangeError('A Redis Cluster needs the URL of at least one of its nodes');
    this.routeKey = options.routeKey;
    const { username, password, tls } = credentialsOf(nodes[0]!);
    this.cluster = createCluster({
      rootNodes: nodes.map((url) => ({ url })),
      // A reader serves one slot: no need for a connection to every master.
      minimizeConnections: options.routeKey !== undefined,
      defaults: {
        username,
        password,
        name: options.name,
        disableOfflineQueue: true,
        socket: {
          tls,
          connectTimeout: options.connectTimeoutMs ?? 5000,
          reconnectStrategy: reconnectDelay(() => this.connectedOnce),
        } as never,
      },
    });
    this.cluster.on('error', (err: Error) => options.onError?.(err));
    this.cluster.on('node-error', (err: Error) => options.onError?.(err));
    this.cluster.on('node-reconnecting', () => this.setUp(false));
    this.cluster.on('node-disconnect', () => this.setUp(false));
    this.cluster.on('node-ready', () => this.setUp(this.cluster.isReady));
  }

  get isReady(): boolean {
    return this.cluster.isReady;
  }

  async connect(): Promise<void> {
    await this.cluster.connect();
    this.connectedOnce = true;
    this.setUp(true);
  }

  async close(): Promise<void> {
    try {
      await this.cluster.close();
    } catch {
      this.destroy();
    }
  }

  destroy(): void {
    try {
      this.cluster.destroy();
    } catch {
      // already closed
    }
  }

  override async del(keys: string[]): Promise<number> {
    const groups = bySlot(keys);
    if (groups.length <= 1) return super.del(keys);
    const counts = await Promise.all(groups.map((group) => super.del(group)));
    return counts.reduce((sum, count) => sum + count, 0);
  }

  protected sendCommand(args: string[], key: string | undefined): Promise<unknown> {
    return this.cluster.sendCommand(key, false, args);
  }
}
