import { randomBytes } from 'node:crypto';
import { type Clock, type EventStore, type Session } from '@mcpx/core';
import { systemClock, type JsonRpcMessage, type McpEngine, type MessageChannel } from '@mcpx/core/transport';
import { SseStream } from './sse-stream';

/** The id of each session's standalone (GET) stream. Request streams are numbered from 1. */
const STANDALONE = '0';
/** Messages kept for a standalone stream the client has not opened yet. */
const MAX_EARLY_MESSAGES = 100;

/** A session id: 192 random bits, base64url (visible ASCII, as the spec requires). */
export function newSessionId(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * The HTTP side of one MCP session: the engine's Session plus its SSE streams, its standalone
 * stream for messages tied to no request, and the bookkeeping for idle expiry.
 */
export class HttpSession {
  readonly session: Session;
  lastActivity: number;
  /** The principal the session was created by (auth on): requests of anyone else get 404. */
  owner?: string;
  private readonly live = new Map<string, SseStream>();
  private nextStream = 1;
  private standalone?: SseStream;
  private early: JsonRpcMessage[] = [];
  /** Request streams delivered in full, oldest first, with the time the store may forget each. */
  private delivered: { id: string; at: number }[] = [];

  /** Where the engine sends what no request asked for: the standalone stream, once the client opens it. */
  readonly outlet: MessageChannel;

  constructor(
    engine: McpEngine,
    id: string,
    private readonly store: EventStore | undefined,
    private readonly onError: (err: unknown) => void,
    /** How long a request stream delivered in full stays resumable after it ended. */
    private readonly retentionMs = 30_000,
    /** Told when this session first has delivered streams to forget later (see forgetDelivered). */
    private readonly onDelivered?: (session: HttpSession) => void,
    private readonly clock: Clock = systemClock,
  ) {
    this.lastActivity = clock.now();
    const self = this;
    this.outlet = {
      get open() {
        return self.session.state !== 'closed';
      },
      get deferred() {
        return !self.standalone;
      },
      send(message) {
        if (self.standalone) self.standalone.send(message);
        else if (self.early.length < MAX_EARLY_MESSAGES) self.early.push(message);
      },
    };
    this.session = engine.createSession(this.outlet, id);
  }

  get id(): string {
    return this.session.id;
  }

  touch(): void {
    this.lastActivity = this.clock.now();
  }

  /** A new stream for one POSTed request. */
  openRequestStream(): SseStream {
    const stream = new SseStream(String(this.nextStream++), this.id, this.store, this.onError, this.streamEnded);
    this.live.set(stream.id, stream);
    return stream;
  }

  private readonly streamEnded = (stream: SseStream, deliveredInFull: boolean): void => {
    this.live.delete(stream.id);
    // A delivered stream stays resumable for a grace period (a socket can die unnoticed), then the
    // store forgets it instead of holding whole responses for the session's life. One queue per
    // session, swept by the manager: no timer per request, and nothing outlives the session.
    if (!deliveredInFull || !this.store?.dropStream || this.session.state === 'closed') return;
    if (this.retentionMs <= 0) return this.dropStream(stream.id);
    this.delivered.push({ id: stream.id, at: this.clock.now() + this.retentionMs });
    if (this.delivered.length === 1) this.onDelivered?.(this);
  };

  /** Lets the store forget the delivered streams whose grace period is over; true while some remain. */
  forgetDelivered(now = this.clock.now()): boolean {
    let n = 0;
    while (n < this.delivered.length && this.delivered[n]!.at <= now) this.dropStream(this.delivered[n++]!.id);
    if (n > 0) this.delivered.splice(0, n);
    return this.delivered.length > 0;
  }

  private dropStream(streamId: string): void {
    void Promise.resolve(this.store!.dropStream!(this.id, streamId)).catch(this.onError);
  }

  /** The standalone stream (created on first GET); messages sent before it existed are delivered now. */
  standaloneStream(): SseStream {
    if (!this.standalone) {
      this.standalone = new SseStream(STANDALONE, this.id, this.store, this.onError);
      this.live.set(STANDALONE, this.standalone);
      const early = this.early;
      this.early = [];
      queueMicrotask(() => early.forEach((m) => this.standalone?.send(m)));
    }
    return this.standalone;
  }

  liveStream(streamId: string): SseStream | undefined {
    return this.live.get(streamId);
  }

  get hasConnection(): boolean {
    for (const stream of this.live.values()) if (stream.connected) return true;
    return false;
  }

  /** Busy sessions are never expired: a request in flight or a connection open counts as activity. */
  isIdleSince(cutoff: number): boolean {
    return this.lastActivity < cutoff && this.session.requestsInFlight === 0 && !this.hasConnection;
  }

  /** Closes every connection with a retry hint (shutdown), keeping the streams. */
  closeConnections(retryMs: number): void {
    for (const stream of this.live.values()) stream.closeConnection(retryMs);
  }

  /** Ends the session: aborts its requests, ends its streams, forgets its stored events. */
  close(): void {
    this.session.close();
    for (const stream of [...this.live.values()]) stream.end();
    this.live.clear();
    this.early = [];
    this.delivered = [];
    if (this.store) void Promise.resolve(this.store.dropSession(this.id)).catch(this.onError);
  }
}
