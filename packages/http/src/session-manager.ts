import { isMcpxError } from '@mcpx/core';
import { ClusterUnavailableError, type Clock, type EventStore, type SharedEventLog } from '@mcpx/core/stores';
import { systemClock, type ClusterLink, type McpEngine, type RequestOrigin } from '@mcpx/core/transport';
import { httpSessionClass, httpSessionOf, type HttpSession, type HttpSessionSettings } from './http-session';
import { newSessionId } from './session-id';

/**
 * The open HTTP sessions: creation under a cap, lookup, idle expiry and draining. They are found
 * in the engine's own map of sessions (each engine session's channel leads to its HTTP session):
 * one map entry per session, not two. When other instances share the sessions (a cluster), those
 * are this instance's copies: a session is loaded from the shared record on each request, and a
 * copy idle here is dropped while the session lives on for as long as its record does.
 */
export class SessionManager {
  /** How many of the engine's sessions are this manager's (counted as made, and as each ends). */
  private count = 0;
  /** Sessions with delivered streams still in their grace period. */
  private readonly retiring = new Set<HttpSession>();
  private readonly stopSweeper: () => void;
  private stopRetirer?: () => void;
  draining = false;
  private readonly cluster?: ClusterLink;
  private readonly settings: HttpSessionSettings;
  /** This manager's sessions' class (their settings on its prototype). */
  private readonly HttpSession: ReturnType<typeof httpSessionClass>;
  private readonly engine: McpEngine;

  constructor(
    engine: McpEngine,
    private readonly store: EventStore | undefined,
    private readonly maxSessions: number,
    private readonly idleTimeoutMs: number,
    private readonly onError: (err: unknown) => void,
    streamRetentionMs = 30_000,
    /** Where idle expiry and stream retention read the time and run their sweeps (tests pass a ManualClock). */
    private readonly clock: Clock = systemClock,
  ) {
    this.engine = engine;
    this.cluster = engine.cluster;
    this.settings = {
      engine,
      store,
      onError,
      retentionMs: streamRetentionMs,
      onDelivered: this.onDelivered,
      onEnded: this.onEnded,
      clock,
      since: clock.now(),
      sharedRetentionMs: idleTimeoutMs,
      streamNumbers: { next: 1 },
    };
    this.HttpSession = httpSessionClass(this.settings);
    this.cluster?.onSessionEvent(({ type, sessionId }) => {
      const copy = this.get(sessionId);
      if (!copy) return;
      if (type === 'sessionClosed') this.endCopy(sessionId, false);
      else {
        this.cluster!.cluster.sessions.peek(sessionId).then(
          (record) => (record ? copy.apply(record) : undefined),
          (err) => this.onError(err),
        );
      }
    });
    // Sweep a few times per timeout period so a session lives at most ~1.25× its idle limit.
    this.stopSweeper = clock.every(Math.max(50, Math.min(idleTimeoutMs / 4, 60_000)), () => this.expireIdle());
    if (streamRetentionMs > 0) {
      // A delivered stream is forgotten between 1× and 1.25× its retention.
      this.stopRetirer = clock.every(Math.max(20, Math.min(streamRetentionMs / 4, 10_000)), () => this.forgetDelivered());
    }
  }

  get size(): number {
    return this.count;
  }

  get full(): boolean {
    return this.count >= this.maxSessions;
  }

  /** `origin`: the initialize request's (telemetry). */
  create(origin?: RequestOrigin): HttpSession {
    const session = new this.HttpSession(newSessionId(), origin);
    this.count++;
    return session;
  }

  /** This manager's sessions, as the engine holds them. */
  private *all(): Generator<HttpSession> {
    for (const session of this.engine.openSessions()) {
      const http = httpSessionOf(session);
      if (http?.settings === this.settings) yield http;
    }
  }

  /** Whether the sessions are shared with other instances. */
  get shared(): boolean {
    return this.cluster !== undefined;
  }

  /** Writes a new shared session's record once initialize succeeded: from then on any instance serves it. */
  async publish(session: HttpSession): Promise<void> {
    await this.shielded(() => this.cluster!.cluster.sessions.create(session.record(), this.idleTimeoutMs));
  }

  /**
   * A shared session for a request of `owner`: its record, loaded (which slides its time to live),
   * applied to this instance's copy. Undefined when it expired, was deleted, or is someone else's.
   * Rejects with ClusterUnavailableError when the shared store cannot be reached. `origin`: the
   * request's, recorded by a copy this creates (telemetry).
   */
  async load(id: string, owner: string | undefined, origin?: RequestOrigin): Promise<HttpSession | undefined> {
    const record = await this.shielded(() => this.cluster!.cluster.sessions.load(id, this.idleTimeoutMs));
    if (!record) {
      // Deleted or expired elsewhere: whatever this copy still ran for it stops.
      this.endCopy(id, false);
      return undefined;
    }
    if (record.owner !== owner) return undefined;
    let copy = this.get(id);
    if (!copy) {
      copy = new this.HttpSession(id, origin);
      this.count++;
    }
    copy.apply(record);
    return copy;
  }

  /**
   * DELETE: ends the session everywhere. Shared, its record and log go, and every instance holding
   * a copy stops what it runs for it; false when there was no such session.
   */
  async delete(id: string): Promise<boolean> {
    if (!this.cluster) return this.close(id);
    const cluster = this.cluster.cluster;
    const existed = await this.shielded(() => cluster.sessions.delete(id));
    await this.shielded(async () => (this.store as SharedEventLog).dropSession(id));
    this.cluster.sessionClosed(id);
    this.endCopy(id, true);
    return existed;
  }

  /** Any failure to reach the shared store is the same fault to a client: 503, retry. */
  private async shielded<T>(run: () => Promise<T> | T): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (isMcpxError(err, 'MCPX_CLUSTER_UNAVAILABLE')) throw err;
      throw new ClusterUnavailableError(undefined, { cause: err });
    }
  }

  /** The session is gone (deleted, expired): this instance's copy stops what it runs and ends its streams. */
  /** `endedHere`: this instance ended the session (DELETE here), so it records the session's duration; the other copies do not. */
  private endCopy(id: string, endedHere: boolean): void {
    this.get(id)?.close(endedHere);
  }

  get(id: string): HttpSession | undefined {
    const session = this.engine.getSession(id);
    const http = session && httpSessionOf(session);
    return http?.settings === this.settings ? http : undefined;
  }

  /**
   * Ends this instance's hold on a session: in memory the session ends; shared, this copy is
   * dropped (what runs here stops) and the session lives on for the other instances.
   */
  close(id: string): boolean {
    const session = this.get(id);
    if (!session) return false;
    if (session.shared) session.release();
    else session.close();
    return true;
  }

  private readonly onDelivered = (session: HttpSession): void => {
    this.retiring.add(session);
  };

  /** However a session ended (here, by the engine, by another instance): it no longer counts, nor waits to forget its streams. */
  private readonly onEnded = (session: HttpSession): void => {
    this.count--;
    this.retiring.delete(session);
  };

  forgetDelivered(now = this.clock.now()): void {
    this.store?.expireDelivered?.(now);
    for (const session of this.retiring) if (!session.forgetDelivered(now)) this.retiring.delete(session);
  }

  expireIdle(now = this.clock.now()): number {
    const cutoff = now - this.idleTimeoutMs;
    let expired = 0;
    // A Map's iteration goes on past entries deleted under it: closing as it goes is safe.
    for (const session of this.all()) {
      if (session.isIdleSince(cutoff)) {
        // Shared, only this copy goes: the session's record expires by itself once no instance uses it.
        session.session.logger.info(session.shared ? 'idle copy of a shared session dropped' : 'session expired after idling');
        this.close(session.id);
        expired++;
      }
    }
    return expired;
  }

  get requestsInFlight(): number {
    let n = 0;
    for (const s of this.all()) n += s.session.requestsInFlight;
    return n;
  }

  closeConnections(retryMs: number): void {
    for (const s of this.all()) s.closeConnections(retryMs);
  }

  closeAll(): void {
    this.stopSweeper();
    this.stopRetirer?.();
    for (const session of [...this.all()]) this.close(session.id);
  }
}
