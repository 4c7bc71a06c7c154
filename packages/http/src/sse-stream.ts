import { type EventStore } from '@mcpx/core/stores';
import { encodeMessage, eventId, type JsonRpcMessage, type MessageChannel } from '@mcpx/core/transport';
import type { SseConnection } from './sse';

/**
 * A logical SSE stream of one session: the stream of one POSTed request, or the standalone GET
 * stream. Every message gets an event id `<streamId>_<seq>` and is kept for resumption (in the
 * event store; a request stream answered on one live connection holds its own until it ends), so
 * the stream survives its connections: while none is attached, messages wait in the store, and a
 * client resuming with Last-Event-ID gets each one it missed, exactly once, in order.
 */
export class SseStream implements MessageChannel {
  private connection?: SseConnection;
  /** Set once any event may have missed the client (no connection, a dropped or replaced one, a resume). */
  private interrupted = false;
  private seq = 0;
  /** Set while a resuming connection replays stored events: live messages wait here meanwhile. */
  private replaying?: { id: string; data: string; seq: number }[];
  /**
   * Events not handed to the store yet, message and encoded text in turn, numbered from
   * `unstoredFrom`: while every event went out live on one connection, a request stream keeps them
   * here and the store hears of them once, at the end (retainDelivered), instead of once per event.
   * They go to the store as soon as one may have missed the client, and before anything reads it.
   */
  private unstored?: (JsonRpcMessage | string)[];
  private unstoredFrom = 0;
  /** Whether events are still kept here rather than appended (see `unstored`). */
  private deferring: boolean;
  ended = false;

  constructor(
    readonly id: string,
    private readonly sessionId: string,
    private readonly store: EventStore | undefined,
    private readonly onError: (err: unknown) => void,
    /** Told once when the stream ends; `deliveredInFull` when every event went out on one live connection. */
    private readonly owner?: { streamEnded(stream: SseStream, deliveredInFull: boolean): void },
    /** The seq already taken on this stream (a shared log's stream begins with an entry naming its request). */
    firstSeq = 0,
  ) {
    this.seq = firstSeq;
    // Only request streams of a store that can take a delivered stream whole, and whose owner hands it over.
    this.deferring = owner !== undefined && store?.retainDelivered !== undefined;
  }

  get open(): boolean {
    return !this.ended;
  }

  get connected(): boolean {
    return this.connection !== undefined && !this.connection.closed;
  }

  /** Attaches a new connection (first one, or a client resuming); primes it so it can resume later. */
  attach(connection: SseConnection, retryMs: number): void {
    if (this.connection) this.interrupt();
    this.connection?.close();
    this.connection = connection;
    if (this.store) connection.prime(eventId(this.id, this.seq), retryMs);
  }

  /** Attaches a resuming connection: replays what came after `afterSeq`, then goes live. */
  async resume(connection: SseConnection, afterSeq: number): Promise<boolean> {
    this.interrupt();
    this.connection?.close();
    this.connection = connection;
    this.replaying = [];
    let events;
    try {
      events = await this.store?.eventsAfter(this.sessionId, this.id, afterSeq);
    } finally {
      const queued = this.replaying;
      this.replaying = undefined;
      let last = afterSeq;
      for (const e of events ?? []) {
        const data = e.data ?? encodeMessage(e.message, this.onError);
        if (data !== undefined) connection.event(e.id, data);
        last = Number(e.id.slice(e.id.lastIndexOf('_') + 1));
      }
      for (const q of queued) if (q.seq > last) connection.event(q.id, q.data);
      if (this.ended) connection.close();
    }
    return events !== undefined;
  }

  send(message: JsonRpcMessage): void {
    if (this.ended) return;
    const data = encodeMessage(message, this.onError);
    if (data === undefined) return;
    const seq = ++this.seq;
    let id: string | undefined;
    if (this.deferring) {
      if (this.unstored === undefined) {
        this.unstored = [];
        this.unstoredFrom = seq;
      }
      this.unstored.push(message, data);
      id = eventId(this.id, seq);
    } else if (this.store) {
      const stored = this.store.append(this.sessionId, this.id, message, data, seq);
      if (typeof stored === 'string') id = stored;
      else {
        // A remote store: the id is known later; the live copy goes out now with the id we expect.
        id = eventId(this.id, seq);
        stored.catch(this.onError);
      }
    }
    if (this.replaying) this.replaying.push({ id: id ?? eventId(this.id, seq), data, seq });
    else if (this.connection && !this.connection.closed) this.connection.event(id, data);
    else this.interrupt();
  }

  /** Some event may have missed the client: from now on every event is in the store. */
  private interrupt(): void {
    this.interrupted = true;
    if (!this.deferring) return;
    this.deferring = false;
    const unstored = this.unstored ?? [];
    this.unstored = undefined;
    for (let i = 0; i < unstored.length; i += 2) {
      const stored = this.store!.append(this.sessionId, this.id, unstored[i] as JsonRpcMessage, unstored[i + 1] as string, this.unstoredFrom + i / 2);
      if (typeof stored !== 'string') stored.catch(this.onError);
    }
  }

  /** The events of a stream delivered in full that were never stored, for the owner to retain (once). */
  takeUnstored(): { firstSeq: number; events: string[] } | undefined {
    const unstored = this.unstored;
    this.unstored = undefined;
    if (!unstored) return undefined;
    const events: string[] = [];
    for (let i = 1; i < unstored.length; i += 2) events.push(unstored[i] as string);
    return { firstSeq: this.unstoredFrom, events };
  }

  /** SSE polling: drop the connection but keep the stream; the client comes back with Last-Event-ID. */
  closeConnection(retryMs?: number): void {
    this.connection?.close(retryMs);
  }

  /** The last message was sent: end the stream and its connection. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    // Every event went out on one connection that looked alive: the client most likely has it all,
    // and the session may let the store forget it after a grace period.
    const deliveredInFull = !this.interrupted && this.connected && !this.replaying;
    if (!deliveredInFull) this.interrupt();
    if (!this.replaying) this.connection?.close();
    this.owner?.streamEnded(this, deliveredInFull);
  }
}
