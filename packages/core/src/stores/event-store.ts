import type { JsonRpcMessage } from '../protocol/jsonrpc';

/**
 * One stored SSE event: its id (which names its stream) and what it carried, as the message or as
 * the encoded text that went out (`data`, the SSE data line; a store may keep either).
 */
export type StoredEvent = { id: string; message: JsonRpcMessage; data?: undefined } | { id: string; data: string; message?: undefined };

/**
 * Keeps the messages sent on each SSE stream so a client that lost its connection can resume
 * with Last-Event-ID and get every event it missed, exactly once, in order. Event ids are
 * `<streamId>_<seq>`: they encode their stream, and seq grows by one per event on it.
 * Implementations may be remote (several instances behind a load balancer): every call may be async.
 */
export interface EventStore {
  /**
   * Stores a message sent on a stream and returns its event id. `data` is the message as encoded
   * for the wire: a store may keep that instead (one string rather than an object tree). `seq`: the
   * number the stream's only writer already gave the event (it went out live with that id); a store
   * that numbers a stream's events itself, one after the other, gives the same number.
   */
  append(sessionId: string, streamId: string, message: JsonRpcMessage, data?: string, seq?: number): Promise<string> | string;
  /** Events of `streamId` after `afterSeq`, in order. Undefined when the stream is unknown (never seen or evicted). */
  eventsAfter(sessionId: string, streamId: string, afterSeq: number): Promise<StoredEvent[] | undefined> | StoredEvent[] | undefined;
  /** Forgets every stream of a session. */
  dropSession(sessionId: string): Promise<void> | void;
  /** Forgets one stream that ended and was delivered in full (optional: a store may keep it until evicted). */
  dropStream?(sessionId: string, streamId: string): Promise<void> | void;
}

export function eventId(streamId: string, seq: number): string {
  return `${streamId}_${seq}`;
}

/** Splits an event id into its stream and sequence number; undefined when it is not one of ours. */
export function parseEventId(id: string): { streamId: string; seq: number } | undefined {
  const sep = id.lastIndexOf('_');
  if (sep <= 0) return undefined;
  // Digits only: Number() would also take '' (as 0), ' 5', '0x10' or '1e2'.
  const tail = id.slice(sep + 1);
  if (!/^\d+$/.test(tail)) return undefined;
  const seq = Number(tail);
  if (!Number.isSafeInteger(seq)) return undefined;
  return { streamId: id.slice(0, sep), seq };
}

interface StreamLog {
  /** The seq of events[0]. */
  firstSeq: number;
  /** Encoded messages: strings hold less and cost the garbage collector less than message objects. */
  events: string[];
}

/**
 * The embedded default, in memory and bounded three ways: the last `maxEventsPerStream` events of
 * a stream, `maxStreamsPerSession` streams per session, and `maxBytes` of encoded messages in all
 * (so many sessions streaming large results cannot exhaust memory). Oldest streams go first; a
 * stream being written to is never the one evicted, and an evicted stream keeps its numbering.
 */
export class InMemoryEventStore implements EventStore {
  private readonly sessions = new Map<string, Map<string, StreamLog>>();
  /**
   * Where each evicted stream's numbering stood, so a stream that speaks again never reuses an event
   * id. Kept only while some writer leaves the numbering to the store (appends without `seq`): a
   * writer that numbers its own events needs none, and a busy session would otherwise leave one entry
   * behind for every request stream the per-session cap evicted, for as long as it lives.
   */
  private readonly evicted = new Map<string, Map<string, number>>();
  private numbersStreams = false;
  /** Every stored stream, oldest first (Map keeps insertion order), for the byte budget. */
  private readonly age = new Map<StreamLog, { sessionId: string; streamId: string }>();
  private storedBytes = 0;

  constructor(
    private readonly maxEventsPerStream = 1000,
    private readonly maxStreamsPerSession = 100,
    private readonly maxBytes = 64 * 1024 * 1024,
  ) {}

  append(sessionId: string, streamId: string, message: JsonRpcMessage, data?: string, seq?: number): string {
    if (seq === undefined) this.numbersStreams = true;
    let streams = this.sessions.get(sessionId);
    if (!streams) this.sessions.set(sessionId, (streams = new Map()));
    let log = streams.get(streamId);
    if (!log) {
      if (streams.size >= this.maxStreamsPerSession) {
        const [oldest, old] = streams.entries().next().value!;
        this.evict(sessionId, oldest, old);
      }
      // The writer's own number for the event, else where an evicted stream's numbering stood.
      const firstSeq = seq ?? this.evicted.get(sessionId)?.get(streamId) ?? 1;
      streams.set(streamId, (log = { firstSeq, events: [] }));
      this.evicted.get(sessionId)?.delete(streamId);
      this.age.set(log, { sessionId, streamId });
    }
    const text = data ?? JSON.stringify(message);
    log.events.push(text);
    this.storedBytes += text.length;
    if (log.events.length > this.maxEventsPerStream) {
      this.storedBytes -= log.events.shift()!.length;
      log.firstSeq++;
    }
    const id = eventId(streamId, log.firstSeq + log.events.length - 1);
    if (this.storedBytes > this.maxBytes) this.shed(log);
    return id;
  }

  eventsAfter(sessionId: string, streamId: string, afterSeq: number): StoredEvent[] | undefined {
    const log = this.sessions.get(sessionId)?.get(streamId);
    if (!log) return undefined;
    const out: StoredEvent[] = [];
    const start = Math.max(afterSeq + 1, log.firstSeq);
    for (let seq = start; seq < log.firstSeq + log.events.length; seq++) {
      out.push({ id: eventId(streamId, seq), data: log.events[seq - log.firstSeq]! });
    }
    return out;
  }

  dropStream(sessionId: string, streamId: string): void {
    const streams = this.sessions.get(sessionId);
    const log = streams?.get(streamId);
    if (!log) return;
    streams!.delete(streamId);
    this.forget(log);
  }

  /** How many streams a session has stored (for tests and metrics). */
  streamCount(sessionId: string): number {
    return this.sessions.get(sessionId)?.size ?? 0;
  }

  dropSession(sessionId: string): void {
    for (const log of this.sessions.get(sessionId)?.values() ?? []) this.forget(log);
    this.sessions.delete(sessionId);
    this.evicted.delete(sessionId);
  }

  /** How many sessions have stored events (for tests and metrics). */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Characters of encoded messages held, against `maxBytes` (for tests and metrics). */
  get bytes(): number {
    return this.storedBytes;
  }

  /** Evicts the oldest streams of any session until the budget holds, sparing the one written to. */
  private shed(keep: StreamLog): void {
    for (const [log, where] of this.age) {
      if (this.storedBytes <= this.maxBytes) return;
      if (log !== keep) this.evict(where.sessionId, where.streamId, log);
    }
  }

  private evict(sessionId: string, streamId: string, log: StreamLog): void {
    this.sessions.get(sessionId)?.delete(streamId);
    if (!this.numbersStreams) return this.forget(log);
    let evicted = this.evicted.get(sessionId);
    if (!evicted) this.evicted.set(sessionId, (evicted = new Map()));
    evicted.set(streamId, log.firstSeq + log.events.length);
    this.forget(log);
  }

  private forget(log: StreamLog): void {
    for (const text of log.events) this.storedBytes -= text.length;
    this.age.delete(log);
  }
}
