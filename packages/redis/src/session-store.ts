import type { SessionPatch, SessionRecord, SessionStore } from '@mcpx/core/stores';
import type { RedisCommands } from './commands';
import type { RedisKeys } from './keys';
import type { Logger } from './logger';
import { UPDATE_HASH, updateHashArgs } from './scripts';

/** Hash fields holding subscriptions: `sub:<uri>`, so subscribing is one field, not a rewrite of a list. */
const SUBSCRIPTION = 'sub:';

/** How long a session's place in the indexes outlives its last refresh, as a share of its ttl. */
const INDEX_SLACK = 0.1;

/**
 * Session records in Redis: one hash per session whose fields hold JSON, its ttl slid by every
 * `load`. Two indexes: `sessions` (a sorted set scored by the time each session may have expired,
 * for `ids()`) and one set per subscribed resource (for `subscribers()`); both are refreshed at
 * most once per ttl/10 per session by each instance, so a request costs no index write.
 */
export class RedisSessionStore implements SessionStore {
  /** When this instance last refreshed each session's index entries, and the session's ttl. */
  private readonly refreshed = new Map<string, { at: number; ttlMs: number }>();

  constructor(
    private readonly redis: RedisCommands,
    private readonly keys: RedisKeys,
    private readonly logger: Logger,
  ) {}

  async create(record: SessionRecord, ttlMs: number): Promise<void> {
    const key = this.keys.session(record.id);
    const written = this.redis.hset(key, toFields(record));
    const expiring = this.redis.pexpire(key, ttlMs);
    const subscribed = record.subscriptions.map((uri) => this.redis.sadd(this.keys.subscribers(uri), [record.id]));
    await Promise.all([written, expiring, ...subscribed, this.refreshIndexes(record, ttlMs)]);
  }

  /**
   * Reads the record, and slides its ttl (with the indexes) at most once per ttl/10 per session on
   * this instance: a request costs one command. The ttl set is the session's plus that slack, so a
   * session lives at least its ttl after its last request, at most 1.1 times it.
   */
  async load(id: string, ttlMs: number): Promise<SessionRecord | undefined> {
    const key = this.keys.session(id);
    const last = this.refreshed.get(id);
    const now = Date.now();
    const slide = !last || now - last.at >= ttlMs * INDEX_SLACK || last.ttlMs !== ttlMs;
    // Sent together: one round trip slides the ttl (when due) and reads the record.
    const [, fields] = await Promise.all([slide ? this.redis.pexpire(key, ttlMs * (1 + INDEX_SLACK)) : undefined, this.redis.hgetall(key)]);
    const record = fromFields(fields);
    if (!record) {
      this.refreshed.delete(id);
      return undefined;
    }
    if (slide) this.refreshIndexes(record, ttlMs).catch((err) => this.logger.debug({ err, sessionId: id }, 'could not refresh the session indexes'));
    return record;
  }

  async peek(id: string): Promise<SessionRecord | undefined> {
    return fromFields(await this.redis.hgetall(this.keys.session(id)));
  }

  async update(id: string, patch: SessionPatch): Promise<void> {
    const set: Record<string, string> = {};
    const remove: string[] = [];
    for (const [field, value] of Object.entries(patch)) {
      if (value === undefined) remove.push(field);
      else set[field] = JSON.stringify(value);
    }
    await this.redis.evalScript(UPDATE_HASH, [this.keys.session(id)], updateHashArgs(set, remove));
  }

  async subscribe(id: string, uri: string, on: boolean): Promise<void> {
    const key = this.keys.session(id);
    const index = this.keys.subscribers(uri);
    if (!on) {
      await Promise.all([this.redis.evalScript(UPDATE_HASH, [key], updateHashArgs({}, [SUBSCRIPTION + uri])), this.redis.srem(index, [id])]);
      return;
    }
    const done = await this.redis.evalScript(UPDATE_HASH, [key], updateHashArgs({ [SUBSCRIPTION + uri]: '1' }, []));
    if (done === null || done === undefined) return;
    const ttlMs = this.refreshed.get(id)?.ttlMs ?? DEFAULT_INDEX_TTL_MS;
    await Promise.all([this.redis.sadd(index, [id]), ...extend(this.redis, index, ttlMs * (1 + INDEX_SLACK))]);
  }

  async subscribers(uri: string): Promise<string[]> {
    const index = this.keys.subscribers(uri);
    const ids = await this.redis.smembers(index);
    if (ids.length === 0) return [];
    const alive = await Promise.all(ids.map((id) => this.redis.exists(this.keys.session(id))));
    const gone = ids.filter((_, i) => !alive[i]);
    if (gone.length > 0) await this.redis.srem(index, gone);
    return ids.filter((_, i) => alive[i]);
  }

  async ids(): Promise<string[]> {
    const now = Date.now();
    const [live] = await Promise.all([this.redis.zrangeByScore(this.keys.sessions, String(now), '+inf'), this.redis.zremRangeByScore(this.keys.sessions, '-inf', `(${now}`)]);
    return live.map((entry) => entry.member);
  }

  async delete(id: string): Promise<boolean> {
    this.refreshed.delete(id);
    const key = this.keys.session(id);
    const record = fromFields(await this.redis.hgetall(key));
    const [deleted] = await Promise.all([
      this.redis.del([key]),
      this.redis.zrem(this.keys.sessions, [id]),
      ...(record?.subscriptions ?? []).map((uri) => this.redis.srem(this.keys.subscribers(uri), [id])),
    ]);
    return deleted > 0;
  }

  /**
   * Puts the session in `sessions` until its ttl (and a slack) from now, and keeps the indexes of
   * the resources it subscribed to alive as long. Each index's own ttl only ever grows here.
   */
  private async refreshIndexes(record: SessionRecord, ttlMs: number): Promise<void> {
    const now = Date.now();
    this.refreshed.set(record.id, { at: now, ttlMs });
    this.forgetStale(now);
    const lifetime = ttlMs * (1 + INDEX_SLACK);
    await Promise.all([
      this.redis.zadd(this.keys.sessions, [{ member: record.id, score: now + lifetime }]),
      ...extend(this.redis, this.keys.sessions, lifetime),
      ...record.subscriptions.flatMap((uri) => extend(this.redis, this.keys.subscribers(uri), lifetime)),
    ]);
  }

  /** Drops what this instance remembers of sessions it has not seen for longer than their ttl. */
  private forgetStale(now: number): void {
    if (this.refreshed.size < STALE_SWEEP_SIZE) return;
    for (const [id, { at, ttlMs }] of this.refreshed) if (now - at > ttlMs) this.refreshed.delete(id);
  }
}

/** The subscription index's ttl when this instance has not seen the session's ttl (30 min, the default session ttl). */
const DEFAULT_INDEX_TTL_MS = 30 * 60_000;
/** Past this many remembered sessions, each refresh sweeps out the stale ones. */
const STALE_SWEEP_SIZE = 1024;

/** Sets a ttl on a key that has none (NX) or extends a shorter one (GT): a ttl that only grows. */
function extend(redis: RedisCommands, key: string, ms: number): Promise<boolean>[] {
  return [redis.pexpire(key, ms, 'NX'), redis.pexpire(key, ms, 'GT')];
}

function toFields(record: SessionRecord): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(record)) {
    if (name === 'subscriptions' || value === undefined) continue;
    fields[name] = JSON.stringify(value);
  }
  for (const uri of record.subscriptions) fields[SUBSCRIPTION + uri] = '1';
  return fields;
}

function fromFields(fields: Record<string, string>): SessionRecord | undefined {
  if (fields.id === undefined) return undefined;
  const record: Record<string, unknown> = { subscriptions: [] };
  const subscriptions: string[] = [];
  for (const [name, text] of Object.entries(fields)) {
    if (name.startsWith(SUBSCRIPTION)) subscriptions.push(name.slice(SUBSCRIPTION.length));
    else record[name] = JSON.parse(text);
  }
  record.subscriptions = subscriptions;
  return record as unknown as SessionRecord;
}
