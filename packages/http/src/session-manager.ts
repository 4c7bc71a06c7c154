import { type Clock, type EventStore } from '@mcpx/core';
import { systemClock, type McpEngine } from '@mcpx/core/transport';
import { HttpSession, newSessionId } from './http-session';

/** The open HTTP sessions: creation under a cap, lookup, idle expiry and draining. */
export class SessionManager {
  private readonly sessions = new Map<string, HttpSession>();
  /** Sessions with delivered streams still in their grace period. */
  private readonly retiring = new Set<HttpSession>();
  private readonly stopSweeper: () => void;
  private stopRetirer?: () => void;
  draining = false;

  constructor(
    private readonly engine: McpEngine,
    private readonly store: EventStore | undefined,
    private readonly maxSessions: number,
    private readonly idleTimeoutMs: number,
    private readonly onError: (err: unknown) => void,
    private readonly streamRetentionMs = 30_000,
    /** Where idle expiry and stream retention read the time and run their sweeps (tests pass a ManualClock). */
    private readonly clock: Clock = systemClock,
  ) {
    // Sweep a few times per timeout period so a session lives at most ~1.25× its idle limit.
    this.stopSweeper = clock.every(Math.max(50, Math.min(idleTimeoutMs / 4, 60_000)), () => this.expireIdle());
    if (streamRetentionMs > 0) {
      // A delivered stream is forgotten between 1× and 1.25× its retention.
      this.stopRetirer = clock.every(Math.max(20, Math.min(streamRetentionMs / 4, 10_000)), () => this.forgetDelivered());
    }
  }

  get size(): number {
    return this.sessions.size;
  }

  get full(): boolean {
    return this.sessions.size >= this.maxSessions;
  }

  create(): HttpSession {
    const session = new HttpSession(this.engine, newSessionId(), this.store, this.onError, this.streamRetentionMs, this.onDelivered, this.clock);
    this.sessions.set(session.id, session);
    return session;
  }

  get(id: string): HttpSession | undefined {
    return this.sessions.get(id);
  }

  close(id: string): boolean {
    const session = this.sessions.get(id);
    if (!session) return false;
    this.sessions.delete(id);
    this.retiring.delete(session);
    session.close();
    return true;
  }

  private readonly onDelivered = (session: HttpSession): void => {
    this.retiring.add(session);
  };

  forgetDelivered(now = this.clock.now()): void {
    for (const session of this.retiring) if (!session.forgetDelivered(now)) this.retiring.delete(session);
  }

  expireIdle(now = this.clock.now()): number {
    const cutoff = now - this.idleTimeoutMs;
    let expired = 0;
    for (const session of this.sessions.values()) {
      if (session.isIdleSince(cutoff)) {
        session.session.logger.info('session expired after idling');
        this.close(session.id);
        expired++;
      }
    }
    return expired;
  }

  get requestsInFlight(): number {
    let n = 0;
    for (const s of this.sessions.values()) n += s.session.requestsInFlight;
    return n;
  }

  closeConnections(retryMs: number): void {
    for (const s of this.sessions.values()) s.closeConnections(retryMs);
  }

  closeAll(): void {
    this.stopSweeper();
    this.stopRetirer?.();
    for (const id of [...this.sessions.keys()]) this.close(id);
  }
}
