import type { EventStore, McpEngine } from '@mcpx/core';
import { HttpSession, newSessionId } from './http-session';

/** The open HTTP sessions: creation under a cap, lookup, idle expiry and draining. */
export class SessionManager {
  private readonly sessions = new Map<string, HttpSession>();
  /** Sessions with delivered streams still in their grace period. */
  private readonly retiring = new Set<HttpSession>();
  private sweeper?: NodeJS.Timeout;
  private retirer?: NodeJS.Timeout;
  draining = false;

  constructor(
    private readonly engine: McpEngine,
    private readonly store: EventStore | undefined,
    private readonly maxSessions: number,
    private readonly idleTimeoutMs: number,
    private readonly onError: (err: unknown) => void,
    private readonly streamRetentionMs = 30_000,
  ) {
    // Sweep a few times per timeout period so a session lives at most ~1.25× its idle limit.
    this.sweeper = setInterval(() => this.expireIdle(), Math.max(50, Math.min(idleTimeoutMs / 4, 60_000)));
    this.sweeper.unref();
    if (streamRetentionMs > 0) {
      // A delivered stream is forgotten between 1× and 1.25× its retention.
      this.retirer = setInterval(() => this.forgetDelivered(), Math.max(20, Math.min(streamRetentionMs / 4, 10_000)));
      this.retirer.unref();
    }
  }

  get size(): number {
    return this.sessions.size;
  }

  get full(): boolean {
    return this.sessions.size >= this.maxSessions;
  }

  create(): HttpSession {
    const session = new HttpSession(this.engine, newSessionId(), this.store, this.onError, this.streamRetentionMs, this.onDelivered);
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

  forgetDelivered(now = Date.now()): void {
    for (const session of this.retiring) if (!session.forgetDelivered(now)) this.retiring.delete(session);
  }

  expireIdle(now = Date.now()): number {
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
    clearInterval(this.sweeper);
    clearInterval(this.retirer);
    for (const id of [...this.sessions.keys()]) this.close(id);
  }
}
