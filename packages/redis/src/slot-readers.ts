import type { RedisConnection, StreamEntry } from './commands';
import type { Logger } from './logger';
import { keySlot } from './slot';
import { StreamReader, type StreamFollower } from './stream-reader';

/**
 * The blocking readers of an instance on a Redis Cluster: one XREAD can only name keys of one
 * slot, so there is one StreamReader (and one connection) a slot group, each following the keys
 * tagged with its group (see RedisKeys). A key is handed to the reader of its slot.
 */
export class SlotReaders implements StreamFollower {
  private readonly readers = new Map<number, StreamReader>();

  /** `groups`: for each slot group, a key of its slot and the reader connection made for it. */
  constructor(groups: { routeKey: string; connection: RedisConnection; unblock: (id: number) => Promise<boolean> }[], logger: Logger) {
    for (const { routeKey, connection, unblock } of groups) {
      this.readers.set(keySlot(routeKey), new StreamReader(connection, { clientUnblock: unblock }, logger));
    }
  }

  start(): void {
    for (const reader of this.readers.values()) reader.start();
  }

  follow(key: string, fromId: string, onEntries: (entries: StreamEntry[]) => void): { stop(): void } {
    return this.readerOf(key).follow(key, fromId, onEntries);
  }

  follows(key: string): boolean {
    return this.readers.get(keySlot(key))?.follows(key) ?? false;
  }

  get size(): number {
    let size = 0;
    for (const reader of this.readers.values()) size += reader.size;
    return size;
  }

  async close(): Promise<void> {
    await Promise.all([...this.readers.values()].map((reader) => reader.close()));
  }

  private readerOf(key: string): StreamReader {
    const reader = this.readers.get(keySlot(key));
    if (!reader) throw new Error(`No reader follows the slot of ${key}: on a cluster, followed keys carry a slot group's tag`);
    return reader;
  }
}
