/**
 * Every key this package writes, under one prefix (so deployments and tests can share a Redis).
 * A session's keys share the hash tag `{s:<id>}` and a task's `{t:<id>}`, so each lives in one
 * Redis Cluster slot and a script may touch several of them.
 */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  /** The session record (hash). */
  session(sessionId: string): string {
    return `${this.prefix}{s:${sessionId}}`;
  }

  /** One SSE stream of a session (Redis Stream). */
  stream(sessionId: string, streamId: string): string {
    return `${this.prefix}{s:${sessionId}}:ev:${streamId}`;
  }

  /** The ids of a session's request streams (set), so dropping the session finds them. */
  streams(sessionId: string): string {
    return `${this.prefix}{s:${sessionId}}:streams`;
  }

  /** Live session ids (sorted set, scored by when each may have expired). */
  get sessions(): string {
    return `${this.prefix}sessions`;
  }

  /** The sessions subscribed to a resource (set). */
  subscribers(uri: string): string {
    return `${this.prefix}sub:${uri}`;
  }

  /** A task (hash). */
  task(taskId: string): string {
    return `${this.prefix}{t:${taskId}}`;
  }

  /** One owner's task ids (sorted set, scored by creation order). */
  ownerTasks(owner: string): string {
    return `${this.prefix}tasks:${owner}`;
  }

  /** The counter that orders tasks by creation. */
  get taskSeq(): string {
    return `${this.prefix}task-seq`;
  }

  /** Every task with an expiry, scored by it, so expired ones leave their owner's index. */
  get taskExpiry(): string {
    return `${this.prefix}task-expiry`;
  }

  /** An instance's lease. */
  instance(instanceId: string): string {
    return `${this.prefix}instance:${instanceId}`;
  }

  /** Messages to every instance (Redis Stream). */
  get bus(): string {
    return `${this.prefix}bus`;
  }

  /** Messages to one instance (Redis Stream). */
  inbox(instanceId: string): string {
    return `${this.prefix}inbox:${instanceId}`;
  }

  secret(name: string): string {
    return `${this.prefix}secret:${name}`;
  }

  claim(key: string): string {
    return `${this.prefix}claim:${key}`;
  }

  /** One rate limit counter (a sorted set of request times). */
  rateLimit(key: string): string {
    return `${this.prefix}ratelimit:${key}`;
  }
}
