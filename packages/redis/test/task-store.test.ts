import { InvalidTaskCursorError, type TaskRecord } from '@mcpx/core/stores';
import type { RedisCluster } from '../src';
import { RedisTestBed } from './redis-kit';

let counter = 0;
function task(owner: string, extra: Partial<TaskRecord> = {}): TaskRecord {
  const at = new Date().toISOString();
  return {
    taskId: `task-${++counter}`,
    owner,
    status: 'working',
    createdAt: at,
    lastUpdatedAt: at,
    ttl: 60_000,
    pollInterval: 500,
    expiresAt: Date.now() + 60_000,
    ...extra,
  };
}

describe('RedisTaskStore', () => {
  let bed: RedisTestBed;
  let a: RedisCluster;
  let b: RedisCluster;

  beforeAll(async () => {
    bed = await new RedisTestBed().open();
    a = await bed.cluster();
    b = await bed.cluster();
  });

  afterAll(() => bed.cleanup());

  it('creates a task that another instance reads whole, under the task hash tag, with a ttl from expiresAt', async () => {
    const created = task('owner-get', { runner: a.instanceId, statusMessage: 'started' });
    await a.tasks.create(created);
    expect(await b.tasks.get(created.taskId)).toEqual(created);
    expect(await b.tasks.get('task-none')).toBeUndefined();
    const ttl = await bed.pttl(`${bed.prefix}{t:${created.taskId}}`);
    // expiresAt plus a grace of a minute.
    expect(ttl).toBeGreaterThan(60_000);
    expect(ttl).toBeLessThanOrEqual(121_000);
    expect(await bed.pttl(`${bed.prefix}tasks:owner-get`)).toBeGreaterThan(60_000);
  });

  it('updates atomically: merges the patch, removes fields patched to undefined, keeps values exactly', async () => {
    const created = task('owner-update', {
      status: 'input_required',
      inputRequests: { ask: { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object', properties: {} } } } },
    } as Partial<TaskRecord>);
    await a.tasks.create(created);
    const outcome = { result: { content: [], structuredContent: { list: [], ratio: 0.1 + 0.2, big: 2 ** 53 - 1 } } };
    const updated = await b.tasks.update(created.taskId, { status: 'completed', inputRequests: undefined, outcome, lastUpdatedAt: 'later' });
    expect(updated).toEqual({ ...created, status: 'completed', outcome, lastUpdatedAt: 'later', inputRequests: undefined });
    expect(updated).not.toHaveProperty('inputRequests');
    expect(await a.tasks.get(created.taskId)).toEqual(updated);
    expect(await a.tasks.update('task-none', { status: 'failed' })).toBeUndefined();
    expect(await bed.raw.exists(`${bed.prefix}{t:task-none}`)).toBe(0);
  });

  it('applies concurrent updates of different fields without losing either', async () => {
    const created = task('owner-concurrent');
    await a.tasks.create(created);
    await Promise.all([
      a.tasks.update(created.taskId, { statusMessage: 'from a' }),
      b.tasks.update(created.taskId, { runner: 'other' }),
      a.tasks.update(created.taskId, { status: 'input_required' }),
    ]);
    expect(await b.tasks.get(created.taskId)).toMatchObject({ statusMessage: 'from a', runner: 'other', status: 'input_required' });
  });

  it('lists an owner’s tasks oldest first, page by page, with an opaque cursor', async () => {
    const owner = 'owner-list';
    const created: TaskRecord[] = [];
    for (let i = 0; i < 7; i++) {
      const t = task(owner);
      await (i % 2 ? a : b).tasks.create(t);
      created.push(t);
    }
    await a.tasks.create(task('someone-else'));

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await b.tasks.list(owner, cursor, 3);
      seen.push(...page.tasks.map((t) => t.taskId));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(created.map((t) => t.taskId));
    expect(pages).toBe(3);
  });

  it('skips and prunes tasks that are gone from an owner’s index', async () => {
    const owner = 'owner-prune';
    const kept = task(owner);
    const gone = task(owner);
    await a.tasks.create(gone);
    await a.tasks.create(kept);
    await bed.raw.del(`${bed.prefix}{t:${gone.taskId}}`);
    expect((await b.tasks.list(owner, undefined, 1)).tasks.map((t) => t.taskId)).toEqual([kept.taskId]);
    expect(await bed.raw.zScore(`${bed.prefix}tasks:${owner}`, gone.taskId)).toBeNull();
  });

  it('rejects a cursor it did not issue', async () => {
    await expect(a.tasks.list('owner-list', 'bogus', 3)).rejects.toBeInstanceOf(InvalidTaskCursorError);
    await expect(a.tasks.list('owner-list', Buffer.from('tasks:x').toString('base64url'), 3)).rejects.toBeInstanceOf(InvalidTaskCursorError);
  });

  it('deletes one task, and every task of an owner', async () => {
    const owner = 'owner-delete';
    const [one, two, three] = [task(owner), task(owner), task(owner)];
    for (const t of [one!, two!, three!]) await a.tasks.create(t);
    await b.tasks.delete(one!.taskId);
    expect(await a.tasks.get(one!.taskId)).toBeUndefined();
    expect((await a.tasks.list(owner, undefined, 10)).tasks.map((t) => t.taskId)).toEqual([two!.taskId, three!.taskId]);

    expect((await b.tasks.deleteOwner(owner)).sort()).toEqual([two!.taskId, three!.taskId].sort());
    expect(await a.tasks.get(two!.taskId)).toBeUndefined();
    expect(await bed.raw.exists(`${bed.prefix}tasks:${owner}`)).toBe(0);
    expect(await b.tasks.deleteOwner(owner)).toEqual([]);
  });

  it('deletes expired tasks and their index entries, and returns their ids', async () => {
    const owner = 'owner-expired';
    const now = Date.now();
    const expired = task(owner, { expiresAt: now - 1 });
    const live = task(owner, { expiresAt: now + 60_000 });
    await a.tasks.create(expired);
    await a.tasks.create(live);
    const ids = await b.tasks.deleteExpired(now);
    expect(ids).toContain(expired.taskId);
    expect(ids).not.toContain(live.taskId);
    expect(await a.tasks.get(expired.taskId)).toBeUndefined();
    expect(await bed.raw.zScore(`${bed.prefix}tasks:${owner}`, expired.taskId)).toBeNull();
    expect((await a.tasks.list(owner, undefined, 10)).tasks.map((t) => t.taskId)).toEqual([live.taskId]);
    expect(await b.tasks.deleteExpired(now)).not.toContain(expired.taskId);
  });

  it('moves the expiry when an update moves expiresAt', async () => {
    const t = task('owner-extend');
    await a.tasks.create(t);
    await b.tasks.update(t.taskId, { expiresAt: Date.now() + 600_000 });
    expect(await bed.pttl(`${bed.prefix}{t:${t.taskId}}`)).toBeGreaterThan(600_000);
    expect(await a.tasks.deleteExpired(Date.now() + 120_000)).not.toContain(t.taskId);
  });
});
