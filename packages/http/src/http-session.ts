import { type Principal, type Session } from '@mcpx/core';
import { type Clock, type EventStore, type SessionRecord, type SharedEventLog } from '@mcpx/core/stores';
import { encodeMessage, FewMap, msSince, type ClusterLink, type JsonRpcMessage, type McpEngine, type MessageChannel, type RequestId, type RequestOrigin } from '@mcpx/core/transport';
import { SseStream } from './sse-stream';
import { BatchedStreamLog } from './cluster/batched-stream-log';
import { peerOf } from './telemetry/request-origin';
import { ownerOf, sameOwner } from './auth/guard';

/** The id of each session's standalone (GET) stream. Request streams are numbered from 1, across the endpoint's sessions (see HttpSessionSettings.streamNumbers). */
const STANDALONE = '0';
/** Messages kept for a standalone stream the client has not opened yet. */
const MAX_EARLY_MESSAGES = 100;
/** Delivered request streams a session keeps resumable at most (the default store keeps 100 streams a session). */
const MAX_DELIVERED_KEPT = 100;

/** What every session of one endpoint shares: held once, by the manager, rather than copied into each session. */
export interface HttpSessionSettings {
  readonly engine: McpEngine;
  readonly store: EventStore | undefined;
  readonly onError: (err: unknown) => void;
  /** How long a request stream delivered in full stays resumable after it ended. */
  readonly retentionMs: number;
  /** Told when a session first has delivered streams to forget later (see forgetDelivered). */
  readonly onDelivered?: (session: HttpSession) => void;
  /** Told once as a session ends (closed or released), however it came to end. */
  readonly onEnded?: (session: HttpSession) => void;
  readonly clock: Clock;
  /** The clock's time when the settings were made: sessions count their last activity from it. */
  readonly since: number;
  /** How long the shared log keeps a stream not delivered in full (the session's idle limit). */
  readonly sharedRetentionMs: number;
  /**
   * The number of the next request stream, counted for the endpoint rather than in each session:
   * a stream id is then never reused in a session (the store may still hold a delivered one).
   */
  readonly streamNumbers: { next: number };
}

/**
 * The HttpSession class of one manager: its settings are on the prototype, so each session holds
 * no field for them (8 bytes of every idle session).
 */
export function httpSessionClass(settings: HttpSessionSettings): new (id: string, origin?: RequestOrigin) => HttpSession {
  class ManagedHttpSession extends HttpSession {}
  Object.defineProperty(ManagedHttpSession.prototype, 'settings', { value: settings });
  return ManagedHttpSession;
}

/**
 * The HTTP side of one MCP session: the engine's Session plus its SSE streams, its standalone
 * stream for messages tied to no request, and the bookkeeping for idle expiry. In a session of
 * this instance alone it is also the session's outlet (what no request asked for).
 */
export abstract class HttpSession implements MessageChannel {
  /** Its manager's (on the prototype: see httpSessionClass): what tells one manager's sessions from another's among the engine's. */
  declare readonly settings: HttpSessionSettings;
  readonly session: Session;
  /** The last activity, in ms after `settings.since`: a small integer held in the field, not a 16-byte box per session. */
  private active: number;
  /** Its streams, made with the first need of them: a session that never streamed (initialize is answered as JSON) holds none. */
  private streams?: SessionStreams;

  constructor(
    id: string,
    /** The request that opened it (or this copy of it): where the client is, for telemetry. */
    origin?: RequestOrigin,
  ) {
    const settings = this.settings;
    const engine = settings.engine;
    // The client's network only: the opening request's headers (its trace context) are no parent of later requests.
    const peer = origin && peerOf(origin);
    this.active = msSince(settings.since, settings.clock.now());
    const cluster = engine.cluster;
    // Shared, what no request asked for goes to the session's standalone stream in the shared log,
    // wherever the client's GET stream is (the instance holding it follows the log).
    this.session = engine.createSession(cluster ? new SharedOutlet(this, settings.store as SharedEventLog, settings.onError) : this, id, { origin: peer });
    if (cluster) {
      this.session.sync = {
        update: async (patch) => {
          await cluster.cluster.sessions.update(id, patch);
          if (patch.logLevel !== undefined) cluster.sessionChanged(id);
        },
        subscribe: (uri, on) => cluster.cluster.sessions.subscribe(id, uri, on),
      };
    }
  }

  /** Where the engine sends what no request asked for: the standalone stream, once the client opens it (or, shared, the shared log). */
  get outlet(): MessageChannel {
    return this.session.channel;
  }

  /** The principal the session was created by (auth on), as a key (its shared record's). */
  get owner(): string | undefined {
    return ownerOf(this.session.principal);
  }

  /** Whether a request of `principal` may use the session: anyone else's get 404. */
  ownedBy(principal: Principal | undefined): boolean {
    return sameOwner(this.session.principal, principal);
  }

  /** As the session's outlet (or through the shared one): the session ended. */
  sessionEnded(): void {
    this.settings.onEnded?.(this);
  }

  /** Set when other instances share the session: this is this instance's copy of it. */
  private get cluster(): ClusterLink | undefined {
    return this.settings.engine.cluster;
  }

  // As the outlet of a session of this instance alone.
  get open(): boolean {
    return this.session.state !== 'closed';
  }

  /** Until the client opens the standalone stream, what no request asked for is held. */
  get deferred(): boolean {
    return this.streams?.standalone === undefined;
  }

  /** A message no request asked for: on the standalone stream, or held (up to a bound) until the client opens it. */
  send(message: JsonRpcMessage): void {
    const streams = this.own;
    if (streams.standalone) streams.standalone.send(message);
    else if ((streams.early ??= []).length < MAX_EARLY_MESSAGES) streams.early.push(message);
  }

  get id(): string {
    return this.session.id;
  }

  touch(): void {
    this.active = msSince(this.settings.since, this.settings.clock.now());
  }

  /** When the session was last used (the clock's time). */
  get lastActivity(): number {
    return this.settings.since + this.active;
  }

  /** Its streams' bookkeeping, made if it has none (let go again by releaseIdleStreams). */
  private get own(): SessionStreams {
    return (this.streams ??= new SessionStreams());
  }

  /** A new stream for one POSTed request. */
  openRequestStream(requestId: RequestId): SseStream {
    const streams = this.own;
    let stream: SseStream;
    if (this.cluster) {
      // The id names this instance (unique across instances); the log's first entry (seq 1) names
      // the request, so a client resuming elsewhere after this instance died gets an error for it.
      const id = `${this.cluster.instanceId}.${this.settings.streamNumbers.next++}`;
      const log = new BatchedStreamLog(this.settings.store as SharedEventLog, this.id, id, requestId, this.settings.onError);
      const ended = {
        streamEnded: (ending: SseStream, deliveredInFull: boolean) => {
          log.end(deliveredInFull ? this.settings.retentionMs : this.settings.sharedRetentionMs, deliveredInFull);
          this.streams?.live?.delete(ending.id);
          this.releaseIdleStreams();
        },
      };
      stream = new SseStream(id, this.id, log, this.settings.onError, ended, 1);
    } else {
      stream = new SseStream(String(this.settings.streamNumbers.next++), this.id, this.settings.store, this.settings.onError, this);
    }
    (streams.live ??= new FewMap()).set(stream.id, stream);
    return stream;
  }

  /** A request stream of this session ended (SseStream's owner). */
  streamEnded(stream: SseStream, deliveredInFull: boolean): void {
    this.streams?.live?.delete(stream.id);
    this.keepDelivered(stream, deliveredInFull);
    this.releaseIdleStreams();
  }

  private keepDelivered(stream: SseStream, deliveredInFull: boolean): void {
    // A delivered stream stays resumable for a grace period (a socket can die unnoticed), then the
    // store forgets it instead of holding whole responses for the session's life. One queue per
    // session, swept by the manager: no timer per request, and nothing outlives the session.
    if (!deliveredInFull || !this.settings.store?.dropStream || this.session.state === 'closed') return;
    // Never appended (the store takes delivered streams whole): it expires in the store itself.
    const unstored = stream.takeUnstored();
    if (unstored) {
      if (this.settings.retentionMs > 0) this.settings.store.retainDelivered!(this.id, stream.id, unstored.firstSeq, unstored.events, this.settings.clock.now() + this.settings.retentionMs);
      return;
    }
    if (this.settings.retentionMs <= 0) return this.dropStream(stream.id);
    const delivered = (this.own.delivered ??= []);
    delivered.push({ id: stream.id, at: this.settings.clock.now() + this.settings.retentionMs });
    if (delivered.length === 1) this.settings.onDelivered?.(this);
    // A busy session: its oldest delivered streams go early, as the store would evict them anyway.
    else if (delivered.length > MAX_DELIVERED_KEPT) this.dropStream(delivered.shift()!.id);
  }

  /** Lets the store forget the delivered streams whose grace period is over; true while some remain. */
  forgetDelivered(now = this.settings.clock.now()): boolean {
    const streams = this.streams;
    const delivered = streams?.delivered;
    if (!streams || !delivered) return false;
    let n = 0;
    while (n < delivered.length && delivered[n]!.at <= now) this.dropStream(delivered[n++]!.id);
    if (n === delivered.length) {
      streams.delivered = undefined;
      this.releaseIdleStreams();
      return false;
    }
    if (n > 0) delivered.splice(0, n);
    return true;
  }

  /** Lets the streams' bookkeeping go once nothing is left in it: a session idle after its calls holds none. */
  private releaseIdleStreams(): void {
    const streams = this.streams;
    if (streams === undefined) return;
    if (streams.live !== undefined && streams.live.size === 0) streams.live = undefined;
    if (streams.live !== undefined || streams.standalone !== undefined || streams.early !== undefined || streams.delivered !== undefined) return;
    if ((streams.followers !== undefined && streams.followers.size > 0) || streams.standaloneFollowers !== 0 || streams.standaloneOpened) return;
    this.streams = undefined;
  }

  private dropStream(streamId: string): void {
    const dropped = this.settings.store!.dropStream!(this.id, streamId);
    if (dropped) dropped.catch(this.settings.onError);
  }

  /** The standalone stream (created on first GET); messages sent before it existed are delivered now. */
  standaloneStream(): SseStream {
    const streams = this.own;
    if (!streams.standalone) {
      const standalone = (streams.standalone = new SseStream(STANDALONE, this.id, this.settings.store, this.settings.onError));
      (streams.live ??= new FewMap()).set(STANDALONE, standalone);
      const early = streams.early;
      streams.early = undefined;
      if (early) queueMicrotask(() => early.forEach((m) => this.streams?.standalone?.send(m)));
    }
    return streams.standalone;
  }

  liveStream(streamId: string): SseStream | undefined {
    return this.streams?.live?.get(streamId);
  }

  get hasConnection(): boolean {
    const streams = this.streams;
    if (!streams) return false;
    if (streams.followers !== undefined && streams.followers.size > 0) return true;
    if (streams.live) for (const stream of streams.live.values()) if (stream.connected) return true;
    return false;
  }

  /** Busy sessions are never expired: a request in flight or a connection open counts as activity. */
  isIdleSince(cutoff: number): boolean {
    return this.lastActivity < cutoff && this.session.requestsInFlight === 0 && !this.hasConnection;
  }

  /** Closes every connection with a retry hint (shutdown), keeping the streams. */
  closeConnections(retryMs: number): void {
    const live = this.streams?.live;
    if (live) for (const stream of live.values()) stream.closeConnection(retryMs);
  }

  /** Whether other instances share this session (this is one copy of it). */
  get shared(): boolean {
    return this.cluster !== undefined;
  }

  /** Brings this copy of a shared session up to date with its record. */
  apply(record: SessionRecord): void {
    const session = this.session;
    session.state = record.state;
    session.settle(record.protocolVersion, record.clientInfo, record.clientCapabilities, record.serverCapabilities);
    session.logLevel = record.logLevel;
    session.principal = record.principal;
    if (record.openedAt !== undefined) session.openedAt = record.openedAt;
    if (record.standaloneOpened === true) this.standaloneOpened = true;
    session.resetSubscriptions(record.subscriptions);
  }

  /** The record other instances load this session from. */
  record(): SessionRecord {
    const s = this.session;
    return {
      id: this.id,
      state: s.state === 'ready' ? 'ready' : 'initializing',
      protocolVersion: s.protocolVersion,
      clientInfo: s.clientInfo,
      clientCapabilities: s.clientCapabilities,
      serverCapabilities: s.serverCapabilities,
      logLevel: s.logLevel,
      subscriptions: s.subscribedUris(),
      owner: this.owner,
      principal: s.principal,
      openedAt: s.openedAt,
    };
  }

  /** Whether a GET stream was ever opened for this shared session (the first one gets what was sent before it). */
  get standaloneOpened(): boolean {
    return this.streams?.standaloneOpened === true;
  }
  set standaloneOpened(opened: boolean) {
    this.own.standaloneOpened = opened;
  }
  /** GET connections of this copy following the standalone stream (one at a time: a second gets 409). */
  get standaloneFollowers(): number {
    return this.streams?.standaloneFollowers ?? 0;
  }
  set standaloneFollowers(n: number) {
    this.own.standaloneFollowers = n;
  }

  /** Registers a connection following the shared log: it counts as activity, and stops when this copy goes. */
  addFollower(stop: () => void): () => void {
    (this.own.followers ??= new Set()).add(stop);
    return () => void this.streams?.followers?.delete(stop);
  }

  /** Ends the session: aborts its requests, ends its streams, forgets its stored events. `endedHere` false: a shared session another instance ended. */
  close(endedHere = true): void {
    this.session.close(endedHere);
    this.endStreams();
    // A shared session's log is dropped by whoever deletes the session (see SessionManager.delete).
    if (this.settings.store && !this.cluster) void Promise.resolve(this.settings.store.dropSession(this.id)).catch(this.settings.onError);
  }

  /** Drops this instance's copy of a shared session: its work here stops, the session lives on. */
  release(): void {
    this.session.release();
    this.endStreams();
  }

  private endStreams(): void {
    const streams = this.streams;
    if (!streams) return;
    const live = streams.live ? [...streams.live.values()] : [];
    streams.live = undefined;
    for (const stream of live) stream.end();
    streams.early = undefined;
    streams.delivered = undefined;
    for (const stop of [...(streams.followers ?? [])]) stop();
    streams.followers = undefined;
  }
}

/** An HttpSession's streams and what goes with them, made on first need. */
class SessionStreams {
  /** Its live streams, by id. */
  live?: FewMap<string, SseStream>;
  standalone?: SseStream;
  /** What no request asked for, held until the client opens the standalone stream. */
  early?: JsonRpcMessage[];
  /** Request streams delivered in full, oldest first, with the time the store may forget each. */
  delivered?: { id: string; at: number }[];
  /** Whether a GET stream was ever opened for this shared session. */
  standaloneOpened = false;
  /** GET connections of this copy following the standalone stream. */
  standaloneFollowers = 0;
  /** Connections of this copy following the shared log (GET streams), each with how to stop it. */
  followers?: Set<() => void>;
}

// The shared outlet is a class rather than an object literal with getters: in V8 a getter in an
// object literal keeps what it closes over alive through minor collections, and a short session
// was promoted to old space whole.

/**
 * What no request asked for, in a session instances share: the session's standalone stream in the
 * shared log, wherever the client's GET stream is (the instance holding it follows the log).
 */
class SharedOutlet implements MessageChannel {
  constructor(
    readonly http: HttpSession,
    private readonly log: SharedEventLog,
    private readonly onError: (err: unknown) => void,
  ) {}

  get open(): boolean {
    return this.http.session.state !== 'closed';
  }

  send(message: JsonRpcMessage): void {
    const data = encodeMessage(message, this.onError);
    if (data !== undefined) void Promise.resolve(this.log.append(this.http.id, STANDALONE, message, data)).catch(this.onError);
  }

  sessionEnded(): void {
    this.http.sessionEnded();
  }
}

/** The HTTP session an engine's session belongs to, if an HTTP endpoint opened it. */
export function httpSessionOf(session: Session): HttpSession | undefined {
  const channel = session.channel;
  if (channel instanceof HttpSession) return channel;
  return channel instanceof SharedOutlet ? channel.http : undefined;
}
