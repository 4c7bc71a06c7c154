import { createClient } from 'redis';
import type { RedisConnection } from './commands';
import { NodeRedisCommands, reconnectDelay, type NodeRedisConnectionOptions } from './node-redis-commands';

export type { NodeRedisConnectionOptions } from './node-redis-commands';

type RedisClient = ReturnType<typeof createClient>;

/** A `RedisConnection` over node-redis (`redis` 6.x). */
export function nodeRedisConnection(url: string, options: NodeRedisConnectionOptions = {}): RedisConnection {
  return new NodeRedisConnection(url, options);
}

class NodeRedisConnection extends NodeRedisCommands {
  private readonly client: RedisClient;
  /** Set once the first connection succeeded: from then on a dropped connection is retried for ever. */
  private connectedOnce = false;

  constructor(url: string, options: NodeRedisConnectionOptions) {
    super();
    this.client = createClient({
      url,
      name: options.name,
      // Commands fail fast while the connection is down (the cluster answers 503) instead of
      // waiting in a queue for an outage of unknown length.
      disableOfflineQueue: true,
      socket: {
        connectTimeout: options.connectTimeoutMs ?? 5000,
        reconnectStrategy: reconnectDelay(() => this.connectedOnce),
      },
    });
    // node-redis emits 'error' on every failed attempt: without a listener each would be thrown.
    this.client.on('error', (err: Error) => {
      // Most errors come with a dropped connection; some (an unexpected reply) do not.
      this.setUp(this.client.isReady);
      options.onError?.(err);
    });
    this.client.on('ready', () => {
      this.connectedOnce = true;
      this.setUp(true);
    });
    this.client.on('reconnecting', () => this.setUp(false));
    this.client.on('end', () => this.setUp(false));
  }

  get isReady(): boolean {
    return this.client.isReady;
  }

  async connect(): Promise<void> {
    await this.client.connect();
  }

  async close(): Promise<void> {
    if (!this.client.isReady) return this.destroy();
    try {
      await this.client.close();
    } catch {
      this.destroy();
    }
  }

  destroy(): void {
    try {
      this.client.destroy();
    } catch {
      // already closed
    }
  }

  protected sendCommand(args: string[]): Promise<unknown> {
    return this.client.sendCommand(args);
  }
}
