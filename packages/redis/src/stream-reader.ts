import type { RedisCommands, RedisConnection, StreamEntry } from './commands';
import type { Logger } from './logger';

/** Orders two stream entry ids (`<ms>-<seq>`). */
export function compareStreamIds(a: string, b: string): number {
  const [aMs, aSeq] = splitId(a);
  const [bMs, bSeq] = splitId(b);
  return aMs !== bMs ? Math.sign(aMs - bMs) : Math.sign(aSeq - bSeq);
}

function splitId(id: string): [number, number] {
  const dash = id.indexOf('-');
  return dash < 0 ? [Number(id), 0] : [Number(id.slice(0, dash)), Number(id.slice(dash + 1))];
}

/** What follows stream keys for the stores: one StreamReader, or one a slot on a cluster (SlotReaders). */
export interface StreamFollower {
  start(): void;
  /** Follows `key` from the entry after `fromId`; `stop` ends it. */
  follow(key: string, fromId: string, onEntries: (entries: StreamEntry[]) => void): { stop(): void };
  follows(key: string): boolean;
  readonly size: number;
  close(): Promise<void>;
}

/** One reader of one stream key: it gets every entry after `lastId`, in order, exactly once. */
interface Follower {
  lastId: string;
  onEntries(entries: StreamEntry[]): void;
}

/** How many entries one XREAD takes per stream. */
const READ_COUNT = 500;

/**
 * The one blocking reader of an instance: a dedicated connection running
 * `XREAD BLOCK <ms> STREAMS <every followed key> <ids>` in a loop, for the bus, the instance's
 * inbox and every tailed SSE stream alike.
 *
 * When a key starts being followed, the XREAD in flight does not name it yet: the main
 * connection sends `CLIENT UNBLOCK <reader's id>` so it returns at once and the next one does.
 * The unblock may reach Redis before the XREAD it targets (two connections, no order between
 * them): it then reports that nothing was blocked, and is sent again until either it unblocks an
 * XREAD or the reader reports that its XREAD returned, which the next one, naming the new key,
 * follows. So a new key waits at most one round trip, never a whole BLOCK timeout.
 *
 * After a dropped connection, reading resumes from each follower's last id: nothing is skipped.
 */
export class StreamReader implements StreamFollower {
  private readonly keys = new Map<string, Set<Follower>>();
  /** Bumped whenever a key is added; the XREAD in flight was built at `readingGeneration`. */
  private generation = 0;
  private readingGeneration = 0;
  private reading = false;
  private waking = false;
  private readerId: number | undefined;
  private closed = false;
  private loop?: Promise<void>;
  private readyWaiters: (() => void)[] = [];

  constructor(
    private readonly connection: RedisConnection,
    private readonly main: Pick<RedisCommands, 'clientUnblock'>,
    private readonly logger: Logger,
    private readonly blockMs = 5000,
  ) {
    connection.onStatus((ready) => {
      if (!ready) {
        this.readerId = undefined;
        return;
      }
      const waiters = this.readyWaiters;
      this.readyWaiters = [];
      for (const wake of waiters) wake();
    });
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Follows `key` from the entry after `fromId`; `stop` ends it. */
  follow(key: string, fromId: string, onEntries: (entries: StreamEntry[]) => void): { stop(): void } {
    const follower: Follower = { lastId: fromId, onEntries };
    let followers = this.keys.get(key);
    if (!followers) this.keys.set(key, (followers = new Set()));
    followers.add(follower);
    this.generation++;
    // The loop may be idle, waiting for a first key.
    for (const wake of this.readyWaiters.splice(0)) wake();
    this.wake();
    return {
      stop: () => {
        const set = this.keys.get(key);
        if (!set) return;
        set.delete(follower);
        // The XREAD in flight may still name the key: what it returns for it is dropped.
        if (set.size === 0) this.keys.delete(key);
      },
    };
  }

  follows(key: string): boolean {
    return this.keys.has(key);
  }

  /** How many keys are followed (for tests and metrics). */
  get size(): number {
    return this.keys.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const wake of this.readyWaiters.splice(0)) wake();
    this.connection.destroy();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.closed) {
      if (!this.connection.isReady) {
        await new Promise<void>((resolve) => this.readyWaiters.push(resolve));
        continue;
      }
      try {
        this.readerId ??= await this.connection.clientId();
        if (this.keys.size === 0) {
          await new Promise<void>((resolve) => this.readyWaiters.push(resolve));
          continue;
        }
        const streams = [...this.keys].map(([key, followers]) => ({ key, id: earliest(followers) }));
        this.readingGeneration = this.generation;
        this.reading = true;
        let batches;
        try {
          batches = await this.connection.xread(streams, { count: READ_COUNT, blockMs: this.blockMs });
        } finally {
          this.reading = false;
        }
        for (const { key, entries } of batches) this.deliver(key, entries);
      } catch (err) {
        if (this.closed) return;
        this.readerId = undefined;
        // Down: the loop waits for the connection to come back. A reply error (not expected)
        // must not spin: wait for the next status change or a short while.
        this.logger.debug({ err }, 'stream reader: read failed');
        if (this.connection.isReady) await new Promise((resolve) => setTimeout(resolve, 100).unref());
      }
    }
  }

  private deliver(key: string, entries: StreamEntry[]): void {
    const followers = this.keys.get(key);
    if (!followers || entries.length === 0) return;
    for (const follower of [...followers]) {
      if (!followers.has(follower)) continue;
      const fresh = entries.filter((entry) => compareStreamIds(entry.id, follower.lastId) > 0);
      if (fresh.length === 0) continue;
      follower.lastId = fresh[fresh.length - 1]!.id;
      try {
        follower.onEntries(fresh);
      } catch (err) {
        this.logger.error({ err, key }, 'stream reader: a follower failed');
      }
    }
  }

  /** Makes the XREAD in flight return if it was built before the latest key was added. */
  private wake(): void {
    if (this.waking || !this.reading) return;
    this.waking = true;
    let asked = this.generation;
    void (async () => {
      try {
        while (!this.closed && this.reading && this.readingGeneration < this.generation && this.readerId !== undefined) {
          asked = this.generation;
          if (await this.main.clientUnblock(this.readerId)) break;
          // Not blocked yet: the XREAD is still on its way to Redis; try again.
          await new Promise((resolve) => setImmediate(resolve));
        }
      } catch (err) {
        // Redis is unreachable: the reader's XREAD fails as well and the next one names every key.
        this.logger.debug({ err }, 'stream reader: could not wake the reader');
      } finally {
        this.waking = false;
      }
      // A key added while the unblock was on its way may be missing from the XREAD that follows
      // it, if that one was built first: wake that one too.
      if (this.generation > asked) this.wake();
    })();
  }
}

function earliest(followers: Set<Follower>): string {
  let min: string | undefined;
  for (const { lastId } of followers) if (min === undefined || compareStreamIds(lastId, min) < 0) min = lastId;
  return min ?? '0-0';
}
