import type { JsonRpcMessage } from '../protocol/jsonrpc';
import { DeliveredStreams, STREAM_COST } from './delivered-streams';

export { STREAM_COST } from './delivered-streams';

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
  /**
   * Optional. Takes a request stream that ended with every event sent live on one connection, whole
   * (its events were never appended, numbered from `firstSeq`): it stays resumable, in case the
   * socket died unnoticed, until `until` (the caller's clock) and a store may let it go sooner
   * under its bounds. A store that has it is handed such streams once, not an append per event.
   */
  retainDelivered?(sessionId: string, streamId: string, firstSeq: number, events: string[], until: number): void;
  /** Optional, with retainDelivered: lets go of the delivered streams whose `until` is past. */
  expireDelivered?(now: number): void;
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
  sessionId: string;
  streamId: string;
  /** The seq of events[0]. */
  firstSeq: number;
  /** Encoded messages: strings hold less and cost the garbage collector less than message objects. */
  events: string[];
  /** What the stream counts against the budgets: its characters plus STREAM_COST. */
  bytes: number;
}

interface SessionLog {
  streams: Map<string, StreamLog>;
  bytes: number;
}

/** The bounds of an InMemoryEventStore; each has a default. */
export interface EventStoreLimits {
  /** The last events of a stream kept (default 1,000). */
  maxEventsPerStream?: number;
  /** Streams kept per session, oldest evicted first (default 100). */
  maxStreamsPerSession?: number;
  /** Bytes kept in all, every session (default 64 MiB). */
  maxBytes?: number;
  /** Bytes kept for one session (default 8 MiB): one client cannot take the whole budget. */
  maxSessionBytes?: number;
  /**
   * Bytes of streams that already reached their client in full (kept only in case a socket died
   * unnoticed; see retainDelivered), in all (default 4 MiB). Past it the oldest such streams go first,
   * so large answers served at speed do not pile up in memory for their whole grace period.
   */
  maxDeliveredBytes?: number;
}

/**
 * The embedded default, in memory and bounded: the last `maxEventsPerStream` events of a stream,
 * `maxStreamsPerSession` streams and `maxSessionBytes` per session, `maxDeliveredBytes` of streams
 * delivered in full and `maxBytes` in all. Bytes are the encoded characters plus STREAM_COST per
 * stream. Oldest streams go first, delivered ones before any other; a stream being written to is
 * never the one evicted, and an evicted stream keeps its numbering. Delivered streams are kept
 * apart, in one queue in the order they came; a session that ends takes its own with it.
 */
export class InMemoryEventStore implements EventStore {
  private readonly sessions = new Map<string, SessionLog>();
  /**
   * Where each evicted stream's numbering stood, so a stream that speaks again never reuses an event
   * id. Kept only while some writer leaves the numbering to the store (appends without `seq`): a
   * writer that numbers its own events needs none, and a busy session would otherwise leave one entry
   * behind for every request stream the per-session cap evicted, for as long as it lives.
   */
  private readonly evicted = new Map<string, Map<string, number>>();
  private numbersStreams = false;
  /** Every stored stream, oldest first (a Set keeps insertion order), for the byte budget. */
  private readonly age = new Set<StreamLog>();
  /** The streams delivered in full, oldest first (their `until` in order too), outside the JS heap. */
  private readonly delivered: DeliveredStreams;
  /** Bytes of the streams stored event by event (the delivered ones count in `delivered.bytes`). */
  private streamBytes = 0;
  private readonly maxEventsPerStream: number;
  private readonly maxStreamsPerSession: number;
  private readonly maxBytes: number;
  private readonly maxSessionBytes: number;
  private readonly maxDeliveredBytes: number;

  /** `new InMemoryEventStore({ ... })`, or the bounds in order: events per stream, streams per session, bytes in all. */
  constructor(limits?: EventStoreLimits | number, maxStreamsPerSession?: number, maxBytes?: number) {
    const l: EventStoreLimits = typeof limits === 'number' ? { maxEventsPerStream: limits, maxStreamsPerSession, maxBytes } : { ...limits };
    this.maxEventsPerStream = l.maxEventsPerStream ?? 1000;
    this.maxStreamsPerSession = l.maxStreamsPerSession ?? 100;
    this.maxBytes = l.maxBytes ?? 64 * 1024 * 1024;
    this.maxSessionBytes = Math.min(l.maxSessionBytes ?? 8 * 1024 * 1024, this.maxBytes);
    this.maxDeliveredBytes = Math.min(l.maxDeliveredBytes ?? 4 * 1024 * 1024, this.maxBytes);
    this.delivered = new DeliveredStreams(this.maxDeliveredBytes);
  }

  append(sessionId: string, streamId: string, message: JsonRpcMessage, data?: string, seq?: number): string {
    if (seq === undefined) this.numbersStreams = true;
    let session = this.sessions.get(sessionId);
    if (!session) this.sessions.set(sessionId, (session = { streams: new Map(), bytes: 0 }));
    let log = session.streams.get(streamId);
    if (!log) {
      if (session.streams.size >= this.maxStreamsPerSession) this.evict(session.streams.values().next().value!);
      // The writer's own number for the event, else where an evicted stream's numbering stood.
      const firstSeq = seq ?? this.evicted.get(sessionId)?.get(streamId) ?? 1;
      log = { sessionId, streamId, firstSeq, events: [], bytes: STREAM_COST };
      session.streams.set(streamId, log);
      this.evicted.get(sessionId)?.delete(streamId);
      this.age.add(log);
      session.bytes += STREAM_COST;
      this.streamBytes += STREAM_COST;
    }
    const text = data ?? JSON.stringify(message);
    log.events.push(text);
    this.count(log, session, text.length);
    if (log.events.length > this.maxEventsPerStream) {
      this.count(log, session, -log.events.shift()!.length);
      log.firstSeq++;
    }
    const id = eventId(streamId, log.firstSeq + log.events.length - 1);
    if (session.bytes > this.maxSessionBytes) this.shed(session.streams.values(), log, () => session.bytes <= this.maxSessionBytes);
    if (this.bytes > this.maxBytes) {
      // Delivered streams first: they are kept only in case, the others may be a client's only copy.
      this.delivered.shed(this.maxBytes - this.streamBytes);
      this.shed(this.age.values(), log, () => this.bytes <= this.maxBytes);
    }
    return id;
  }

  retainDelivered(sessionId: string, streamId: string, firstSeq: number, events: string[], until: number): void {
    this.delivered.add(sessionId, streamId, firstSeq, events, until);
    this.delivered.shed(Math.min(this.maxDeliveredBytes, this.maxBytes - this.streamBytes));
  }

  expireDelivered(now: number): void {
    this.delivered.expire(now);
  }

  eventsAfter(sessionId: string, streamId: string, afterSeq: number): StoredEvent[] | undefined {
    const log = this.sessions.get(sessionId)?.streams.get(streamId) ?? this.delivered.find(sessionId, streamId);
    if (!log) return undefined;
    const out: StoredEvent[] = [];
    const start = Math.max(afterSeq + 1, log.firstSeq);
    for (let seq = start; seq < log.firstSeq + log.events.length; seq++) {
      out.push({ id: eventId(streamId, seq), data: log.events[seq - log.firstSeq]! });
    }
    return out;
  }

  dropStream(sessionId: string, streamId: string): void {
    const session = this.sessions.get(sessionId);
    const log = session?.streams.get(streamId);
    if (!log) return this.delivered.drop(sessionId, streamId);
    this.forget(log);
    if (session!.streams.size === 0 && !this.evicted.has(sessionId)) this.sessions.delete(sessionId);
  }

  /** How many streams a session has stored (for tests and metrics). */
  streamCount(sessionId: string): number {
    return (this.sessions.get(sessionId)?.streams.size ?? 0) + this.delivered.count(sessionId);
  }

  dropSession(sessionId: string): void {
    for (const log of this.sessions.get(sessionId)?.streams.values() ?? []) this.forget(log);
    this.delivered.dropSession(sessionId);
    this.sessions.delete(sessionId);
    this.evicted.delete(sessionId);
  }

  /** How many sessions have stored events (for tests and metrics). */
  get sessionCount(): number {
    let count = this.sessions.size;
    for (const id of this.delivered.sessionIds()) if (!this.sessions.has(id)) count++;
    return count;
  }

  /** Bytes held (characters plus STREAM_COST per stream), against `maxBytes` (for tests and metrics). */
  get bytes(): number {
    return this.streamBytes + this.delivered.bytes;
  }

  /** Bytes of one session's streams, against `maxSessionBytes`. */
  sessionBytes(sessionId: string): number {
    return this.sessions.get(sessionId)?.bytes ?? 0;
  }

  /** Bytes of the streams delivered in full still kept, against `maxDeliveredBytes`. */
  get bytesDelivered(): number {
    return this.delivered.bytes;
  }

  private count(log: StreamLog, session: SessionLog, bytes: number): void {
    log.bytes += bytes;
    session.bytes += bytes;
    this.streamBytes += bytes;
  }

  /** Evicts streams in the order given until `enough`, sparing the one written to. */
  private shed(order: Iterable<StreamLog>, keep: StreamLog | undefined, enough: () => boolean): void {
    for (const log of order) {
      if (enough()) return;
      if (log !== keep) this.evict(log);
    }
  }

  private evict(log: StreamLog): void {
    if (this.numbersStreams) {
      let evicted = this.evicted.get(log.sessionId);
      if (!evicted) this.evicted.set(log.sessionId, (evicted = new Map()));
      evicted.set(log.streamId, log.firstSeq + log.events.length);
    }
    this.forget(log);
  }

  /** Removes a stream and gives its bytes back; a session left with none goes too. */
  private forget(log: StreamLog): void {
    const session = this.sessions.get(log.sessionId);
    if (!session || session.streams.get(log.streamId) !== log) return;
    session.streams.delete(log.streamId);
    session.bytes -= log.bytes;
    this.streamBytes -= log.bytes;
    this.age.delete(log);
  }
}
