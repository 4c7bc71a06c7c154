/**
 * Every key this package writes, under one prefix (so deployments and tests can share a Redis).
 * A session's keys share one hash tag and a task's `{t:<id>}`, so each lives in one Redis Cluster
 * slot and a script may touch several of them.
 *
 * On a single node (or behind Sentinel) a session's tag is `{s:<id>}`. On a cluster, the streams an
 * instance follows (its sessions', the bus, its inbox) must be read by one blocking XREAD a slot,
 * and a connection each: so there, session and inbox keys are spread over `slotGroups` tags
 * (`{g<n>}`), and an instance holds at most that many blocking readers, however many sessions.
 */
export class RedisKeys {
  /** `slotGroups`: on a cluster, how many slots the followed streams share (absent: a tag per session). */
  constructor(
    readonly prefix: string,
    readonly slotGroups?: number,
  ) {
    if (slotGroups !== undefined && (!Number.isInteger(slotGroups) || slotGroups < 1 || slotGroups > 16384)) {
      throw new RangeError(`slotGroups must be an integer from 1 to 16384, got ${slotGroups}`);
    }
  }

  /** Where a session's keys start: the prefix and the session's hash tag. */
  private sessionBase(sessionId: string): string {
    return this.slotGroups === undefined ? `${this.prefix}{s:${sessionId}}` : `${this.prefix}{g${groupOf(sessionId, this.slotGroups)}}s:${sessionId}`;
  }

  /** The session record (hash). */
  session(sessionId: string): string {
    return this.sessionBase(sessionId);
  }

  /** One SSE stream of a session (Redis Stream). */
  stream(sessionId: string, streamId: string): string {
    return `${this.sessionBase(sessionId)}:ev:${streamId}`;
  }

  /** The ids of a session's request streams (set), so dropping the session finds them. */
  streams(sessionId: string): string {
    return `${this.sessionBase(sessionId)}:streams`;
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
    return this.slotGroups === undefined ? `${this.prefix}bus` : `${this.prefix}{g0}bus`;
  }

  /** Messages to one instance (Redis Stream). */
  inbox(instanceId: string): string {
    return this.slotGroups === undefined ? `${this.prefix}inbox:${instanceId}` : `${this.prefix}{g${groupOf(instanceId, this.slotGroups)}}inbox:${instanceId}`;
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

/** FNV-1a of the id, mod `groups`: stable across instances and releases. */
function groupOf(id: string, groups: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % groups;
}
