import { InvalidTaskCursorError, type TaskRecord, type TaskStore } from '@mcpx/core/stores';
import type { RedisCommands } from './commands';
import type { RedisKeys } from './keys';
import { flatRecord, UPDATE_HASH, updateHashArgs } from './scripts';

/** How long a task's key outlives its expiresAt: the engine reads it as expired meanwhile, not as unknown. */
const EXPIRY_GRACE_MS = 60_000;
/** How many index entries one read takes while purging. */
const BATCH = 500;

/**
 * Tasks in Redis: one hash per task whose fields hold JSON (an update sets and removes fields in
 * one script, atomically, without decoding anything), expiring by itself after its expiresAt.
 * Two indexes: each owner's tasks in creation order (a sorted set scored by a counter, which
 * `list` pages through) and every task by expiry (which `deleteExpired` reads, so that expired
 * tasks leave their owner's index as well).
 */
export class RedisTaskStore implements TaskStore {
  constructor(
    private readonly redis: RedisCommands,
    private readonly keys: RedisKeys,
  ) {}

  async create(record: TaskRecord): Promise<void> {
    const order = await this.redis.incr(this.keys.taskSeq);
    const key = this.keys.task(record.taskId);
    const index = this.keys.ownerTasks(record.owner);
    const writes: Promise<unknown>[] = [this.redis.hset(key, toFields(record)), this.redis.zadd(index, [{ member: record.taskId, score: order }])];
    if (record.expiresAt !== undefined) {
      const ttlMs = record.expiresAt - Date.now() + EXPIRY_GRACE_MS;
      writes.push(
        this.redis.pexpire(key, ttlMs),
        ...extend(this.redis, index, ttlMs),
        this.redis.zadd(this.keys.taskExpiry, [{ member: expiryMember(record.owner, record.taskId), score: record.expiresAt }]),
        ...extend(this.redis, this.keys.taskExpiry, ttlMs),
        // The counter only orders tasks that still exist: once the last of them expired, it may start over.
        ...extend(this.redis, this.keys.taskSeq, ttlMs),
      );
    }
    await Promise.all(writes);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    return fromFields(await this.redis.hgetall(this.keys.task(taskId)));
  }

  async update(taskId: string, patch: Partial<TaskRecord>): Promise<TaskRecord | undefined> {
    const set: Record<string, string> = {};
    const remove: string[] = [];
    for (const [field, value] of Object.entries(patch)) {
      if (field === 'taskId' || field === 'owner') continue;
      if (value === undefined) remove.push(field);
      else set[field] = JSON.stringify(value);
    }
    const expiresAt = patch.expiresAt;
    const ttlMs = expiresAt === undefined ? undefined : expiresAt - Date.now() + EXPIRY_GRACE_MS;
    const reply = await this.redis.evalScript(UPDATE_HASH, [this.keys.task(taskId)], updateHashArgs(set, remove, { ttlMs, returnAll: true }));
    const record = fromFields(flatRecord(reply) ?? {});
    if (record && expiresAt !== undefined) {
      await this.redis.zadd(this.keys.taskExpiry, [{ member: expiryMember(record.owner, taskId), score: expiresAt }]);
    }
    return record;
  }

  async list(owner: string, cursor: string | undefined, limit: number): Promise<{ tasks: TaskRecord[]; nextCursor?: string }> {
    const index = this.keys.ownerTasks(owner);
    let after = cursor === undefined ? 0 : decodeCursor(cursor);
    const tasks: TaskRecord[] = [];
    const pageSize = Math.max(1, limit);
    for (;;) {
      const want = pageSize - tasks.length;
      // One more than wanted: whether anything follows this page.
      const batch = await this.redis.zrangeByScore(index, `(${after}`, '+inf', { offset: 0, count: want + 1 });
      const taken = batch.slice(0, want);
      const records = await Promise.all(taken.map(({ member }) => this.get(member)));
      const gone = taken.filter((_, i) => records[i] === undefined).map(({ member }) => member);
      if (gone.length > 0) await this.redis.zrem(index, gone);
      for (const record of records) if (record && record.owner === owner) tasks.push(record);
      if (taken.length > 0) after = taken[taken.length - 1]!.score;
      if (batch.length <= want) return { tasks };
      if (tasks.length === pageSize) return { tasks, nextCursor: encodeCursor(after) };
      // Some were gone: fill the page from what follows.
    }
  }

  async delete(taskId: string): Promise<void> {
    const key = this.keys.task(taskId);
    const ownerText = await this.redis.hget(key, 'owner');
    const deleted = this.redis.del([key]);
    if (ownerText === null) return void (await deleted);
    const owner = JSON.parse(ownerText) as string;
    await Promise.all([deleted, this.redis.zrem(this.keys.ownerTasks(owner), [taskId]), this.redis.zrem(this.keys.taskExpiry, [expiryMember(owner, taskId)])]);
  }

  async deleteExpired(now: number): Promise<string[]> {
    const ids: string[] = [];
    for (;;) {
      const batch = await this.redis.zrangeByScore(this.keys.taskExpiry, '-inf', String(now), { offset: 0, count: BATCH });
      if (batch.length === 0) return ids;
      const expired = batch.map(({ member }) => ({ member, ...parseExpiryMember(member) }));
      await Promise.all([
        ...expired.map(({ taskId }) => this.redis.del([this.keys.task(taskId)])),
        ...expired.map(({ owner, taskId }) => this.redis.zrem(this.keys.ownerTasks(owner), [taskId])),
        this.redis.zrem(
          this.keys.taskExpiry,
          expired.map(({ member }) => member),
        ),
      ]);
      ids.push(...expired.map(({ taskId }) => taskId));
      if (batch.length < BATCH) return ids;
    }
  }

  async deleteOwner(owner: string): Promise<string[]> {
    const index = this.keys.ownerTasks(owner);
    const ids = (await this.redis.zrangeByScore(index, '-inf', '+inf')).map(({ member }) => member);
    if (ids.length === 0) return [];
    await Promise.all([
      this.redis.del([index]),
      ...ids.map((id) => this.redis.del([this.keys.task(id)])),
      this.redis.zrem(
        this.keys.taskExpiry,
        ids.map((id) => expiryMember(owner, id)),
      ),
    ]);
    return ids;
  }
}

/** Sets a ttl on a key that has none (NX) or extends a shorter one (GT): an index lives as long as its longest-lived entry. */
function extend(redis: RedisCommands, key: string, ms: number): Promise<boolean>[] {
  return [redis.pexpire(key, ms, 'NX'), redis.pexpire(key, ms, 'GT')];
}

function expiryMember(owner: string, taskId: string): string {
  return JSON.stringify([owner, taskId]);
}

function parseExpiryMember(member: string): { owner: string; taskId: string } {
  const [owner, taskId] = JSON.parse(member) as [string, string];
  return { owner, taskId };
}

function encodeCursor(order: number): string {
  return Buffer.from(`tasks:${order}`).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const order = Number(text.slice('tasks:'.length));
  // Re-encoding must give the cursor back: base64url decoding skips characters it does not know.
  if (!/^tasks:\d+$/.test(text) || !Number.isSafeInteger(order) || encodeCursor(order) !== cursor) {
    throw new InvalidTaskCursorError(`Invalid cursor for tasks/list: ${JSON.stringify(cursor)}`);
  }
  return order;
}

function toFields(record: TaskRecord): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(record)) if (value !== undefined) fields[name] = JSON.stringify(value);
  return fields;
}

function fromFields(fields: Record<string, string>): TaskRecord | undefined {
  if (fields.taskId === undefined) return undefined;
  const record: Record<string, unknown> = {};
  for (const [name, text] of Object.entries(fields)) record[name] = JSON.parse(text);
  return record as unknown as TaskRecord;
}
