import type { EventStore, SharedEventLog, StoredEvent, StreamBatch } from '@mcpx/core/stores';
import { eventId, type JsonRpcMessage, type RequestId } from '@mcpx/core/transport';

/**
 * One request stream's writes to the shared log, gathered per turn of the event loop and written
 * with one call each (SharedEventLog.write): an answer ready at once (the common case) costs one
 * write for its opening, its response and its end, instead of one per entry.
 */
export class BatchedStreamLog implements EventStore {
  private pending?: StreamBatch;

  constructor(
    private readonly log: SharedEventLog,
    private readonly sessionId: string,
    private readonly streamId: string,
    requestId: RequestId,
    private readonly onError: (err: unknown) => void,
  ) {
    this.pending = { open: requestId, events: [] };
    setImmediate(this.flush);
  }

  /** The stream has one writer (this instance), which numbered the event already: its id is known now. */
  append(_sessionId: string, streamId: string, message: JsonRpcMessage, data?: string, seq?: number): string {
    if (seq === undefined) throw new TypeError('a request stream numbers its own events');
    this.batch().events.push({ seq, data: data ?? JSON.stringify(message) });
    return eventId(streamId, seq);
  }

  /** The writer ended the stream: written with whatever this turn still holds. */
  end(retentionMs: number, deliveredInFull: boolean): void {
    this.batch().end = { retentionMs, deliveredInFull };
    this.flush();
  }

  /** What is still pending is written first: a replay never misses what this turn produced. */
  eventsAfter(sessionId: string, streamId: string, afterSeq: number): Promise<StoredEvent[] | undefined> | StoredEvent[] | undefined {
    this.flush();
    return this.log.eventsAfter(sessionId, streamId, afterSeq);
  }

  dropSession(sessionId: string): Promise<void> | void {
    return this.log.dropSession(sessionId);
  }

  dropStream(sessionId: string, streamId: string): Promise<void> | void {
    return this.log.dropStream?.(sessionId, streamId);
  }

  private batch(): StreamBatch {
    if (!this.pending) {
      this.pending = { events: [] };
      setImmediate(this.flush);
    }
    return this.pending;
  }

  // Writes go out in order on one connection, so each batch lands after the one before.
  private readonly flush = (): void => {
    const batch = this.pending;
    if (!batch) return;
    this.pending = undefined;
    Promise.resolve(this.log.write(this.sessionId, this.streamId, batch)).catch(this.onError);
  };
}
