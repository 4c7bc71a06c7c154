import type { ClusterBus, ClusterMessage } from '@mcpx/core/stores';
import type { RedisCommands, StreamEntry } from './commands';
import type { RedisKeys } from './keys';
import type { Logger } from './logger';
import type { StreamFollower } from './stream-reader';

export interface RedisBusOptions {
  /** Cap (approximate) of the bus stream and of each inbox. */
  maxLen: number;
  /** How long the bus outlives its last message (readers only ever want the newest entries). */
  busTtlMs: number;
  /** How long an inbox outlives its last message: a few leases, so a short reader outage loses nothing. */
  inboxTtlMs: number;
}

/**
 * Control messages between instances over two kinds of Redis Streams: `bus` for everyone (each
 * instance reads it from where it stood at start and skips its own), and one `inbox` per
 * instance, which keeps messages until read (then drops them), so a short disconnect loses none.
 * Both are read by the instance's one blocking reader; entries hold the sender (`f`) and the
 * message as JSON (`m`).
 */
export class RedisBus implements ClusterBus {
  private readonly handlers: ((message: ClusterMessage) => void)[] = [];
  private readonly following: { stop(): void }[] = [];

  constructor(
    private readonly redis: RedisCommands,
    private readonly keys: RedisKeys,
    private readonly logger: Logger,
    private readonly instanceId: () => string,
    private readonly options: RedisBusOptions,
  ) {}

  /** Starts reading the bus after its newest entry, and this instance's inbox from its start. */
  async listen(reader: StreamFollower): Promise<void> {
    const [newest] = await this.redis.xrevrange(this.keys.bus, '+', '-', 1);
    const self = this.instanceId();
    this.following.push(
      reader.follow(this.keys.bus, newest?.id ?? '0-0', (entries) => this.receive(entries, self)),
      reader.follow(this.keys.inbox(self), '0-0', (entries) => {
        this.receive(entries);
        this.consumed(self, entries[entries.length - 1]!.id);
      }),
    );
  }

  /** Only this instance reads its inbox: what it read can go (answers may be large). */
  private consumed(self: string, lastId: string): void {
    this.redis.xtrimMinId(this.keys.inbox(self), lastId).catch((err) => this.logger.debug({ err }, 'cluster bus: could not trim the inbox'));
  }

  stop(): void {
    for (const following of this.following.splice(0)) following.stop();
  }

  async broadcast(message: ClusterMessage): Promise<void> {
    await this.post(this.keys.bus, message, this.options.busTtlMs);
  }

  async send(instanceId: string, message: ClusterMessage): Promise<void> {
    await this.post(this.keys.inbox(instanceId), message, this.options.inboxTtlMs);
  }

  onMessage(handler: (message: ClusterMessage) => void): void {
    this.handlers.push(handler);
  }

  private async post(key: string, message: ClusterMessage, ttlMs: number): Promise<void> {
    await Promise.all([this.redis.xadd(key, '*', { f: this.instanceId(), m: JSON.stringify(message) }, this.options.maxLen), this.redis.pexpire(key, ttlMs)]);
  }

  /** `skipFrom`: on the bus, an instance's own messages come back to it; they are not for it. */
  private receive(entries: StreamEntry[], skipFrom?: string): void {
    for (const { fields } of entries) {
      if (fields.m === undefined || (skipFrom !== undefined && fields.f === skipFrom)) continue;
      let message: ClusterMessage;
      try {
        message = JSON.parse(fields.m) as ClusterMessage;
      } catch (err) {
        this.logger.warn({ err }, 'cluster bus: dropped a message that is not JSON');
        continue;
      }
      for (const handler of this.handlers) {
        try {
          handler(message);
        } catch (err) {
          this.logger.error({ err, type: message.type }, 'cluster bus: a message handler failed');
        }
      }
    }
  }
}
