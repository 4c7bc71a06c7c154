import type { SessionRecord } from '@mcpx/core/stores';
import type { RedisCluster } from '../src';
import { RedisTestBed, until } from './redis-kit';

const TTL = 60_000;

function record(id: string, extra: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id,
    state: 'initializing',
    protocolVersion: '2025-11-25',
    clientInfo: { name: 'test-client', version: '1.0.0' },
    clientCapabilities: { elicitation: {}, roots: { listChanged: true } },
    serverCapabilities: { tools: { listChanged: true }, resources: { subscribe: true } },
    subscriptions: [],
    ...extra,
  };
}

describe('RedisSessionStore', () => {
  let bed: RedisTestBed;
  let a: RedisCluster;
  let b: RedisCluster;

  beforeAll(async () => {
    bed = await new RedisTestBed().open();
    a = await bed.cluster();
    b = await bed.cluster();
  });

  afterAll(() => bed.cleanup());

  it('creates a record that another instance loads whole', async () => {
    const created = record('s-create', {
      owner: 'alice',
      principal: { subject: 'alice', scopes: ['notes:read'] } as unknown as SessionRecord['principal'],
      logLevel: 'info',
      standaloneOpened: false,
    });
    await a.sessions.create(created, TTL);
    expect(await b.sessions.load('s-create', TTL)).toEqual(created);
    expect(await b.sessions.peek('s-create')).toEqual(created);
  });

  it('keeps the record as a hash of JSON fields under the session hash tag, with the ttl', async () => {
    await a.sessions.create(record('s-layout'), TTL);
    const key = `${bed.prefix}{s:s-layout}`;
    const fields = (await bed.raw.hGetAll(key)) as Record<string, string>;
    expect(JSON.parse(fields.state!)).toBe('initializing');
    expect(JSON.parse(fields.clientCapabilities!)).toEqual({ elicitation: {}, roots: { listChanged: true } });
    const ttl = await bed.pttl(key);
    expect(ttl).toBeGreaterThan(TTL - 5000);
    expect(ttl).toBeLessThanOrEqual(TTL);
  });

  it('slides the ttl on load, not on peek', async () => {
    await a.sessions.create(record('s-slide'), 5_000);
    const key = `${bed.prefix}{s:s-slide}`;
    await b.sessions.peek('s-slide');
    expect(await bed.pttl(key)).toBeLessThanOrEqual(5_000);
    await b.sessions.load('s-slide', TTL);
    expect(await bed.pttl(key)).toBeGreaterThan(5_000);
  });

  it('answers undefined for an unknown or deleted session', async () => {
    expect(await a.sessions.load('s-none', TTL)).toBeUndefined();
    expect(await a.sessions.peek('s-none')).toBeUndefined();
    await a.sessions.create(record('s-delete'), TTL);
    expect(await b.sessions.delete('s-delete')).toBe(true);
    expect(await a.sessions.load('s-delete', TTL)).toBeUndefined();
    expect(await b.sessions.delete('s-delete')).toBe(false);
    // Loading an unknown session must not leave a key behind.
    expect(await bed.raw.exists(`${bed.prefix}{s:s-none}`)).toBe(0);
  });

  it('updates fields, removes those patched to undefined, and never revives a deleted record', async () => {
    await a.sessions.create(record('s-update', { logLevel: 'debug' }), TTL);
    await b.sessions.update('s-update', { state: 'ready', standaloneOpened: true, logLevel: undefined });
    const loaded = await a.sessions.load('s-update', TTL);
    expect(loaded).toMatchObject({ state: 'ready', standaloneOpened: true });
    expect(loaded).not.toHaveProperty('logLevel');

    await a.sessions.delete('s-update');
    await b.sessions.update('s-update', { state: 'ready' });
    expect(await bed.raw.exists(`${bed.prefix}{s:s-update}`)).toBe(0);
  });

  it('subscribes and unsubscribes, in the record and in the index, with a ttl on the index', async () => {
    const uri = 'notes://subscribed/1';
    await a.sessions.create(record('s-sub-1'), TTL);
    await a.sessions.create(record('s-sub-2'), TTL);
    await a.sessions.load('s-sub-1', TTL);
    await a.sessions.subscribe('s-sub-1', uri, true);
    await b.sessions.subscribe('s-sub-2', uri, true);
    expect((await b.sessions.load('s-sub-1', TTL))!.subscriptions).toEqual([uri]);
    expect((await b.sessions.subscribers(uri)).sort()).toEqual(['s-sub-1', 's-sub-2']);
    expect(await bed.pttl(`${bed.prefix}sub:${uri}`)).toBeGreaterThan(0);

    await b.sessions.subscribe('s-sub-1', uri, false);
    expect((await a.sessions.load('s-sub-1', TTL))!.subscriptions).toEqual([]);
    expect(await a.sessions.subscribers(uri)).toEqual(['s-sub-2']);

    // Deleting the session removes it from the index.
    await a.sessions.delete('s-sub-2');
    expect(await a.sessions.subscribers(uri)).toEqual([]);
  });

  it('does not subscribe a session that does not exist', async () => {
    await a.sessions.subscribe('s-ghost', 'notes://ghost', true);
    expect(await a.sessions.subscribers('notes://ghost')).toEqual([]);
    expect(await bed.raw.exists(`${bed.prefix}{s:s-ghost}`)).toBe(0);
  });

  it('prunes subscribers whose session expired', async () => {
    const uri = 'notes://pruned';
    await a.sessions.create(record('s-expired'), TTL);
    await a.sessions.subscribe('s-expired', uri, true);
    // The record expires (here: is removed behind the store's back) while the index still names it.
    await bed.raw.del(`${bed.prefix}{s:s-expired}`);
    expect(await b.sessions.subscribers(uri)).toEqual([]);
    expect(await bed.raw.sMembers(`${bed.prefix}sub:${uri}`)).toEqual([]);
  });

  it('lists live session ids, with a ttl on the index, and prunes expired ones', async () => {
    await a.sessions.create(record('s-ids'), TTL);
    expect(await b.sessions.ids()).toContain('s-ids');
    expect(await bed.pttl(`${bed.prefix}sessions`)).toBeGreaterThan(TTL);

    // An entry whose time passed is dropped by the next ids().
    await bed.raw.zAdd(`${bed.prefix}sessions`, { score: Date.now() - 1000, value: 's-old' });
    expect(await b.sessions.ids()).not.toContain('s-old');
    expect(await bed.raw.zScore(`${bed.prefix}sessions`, 's-old')).toBeNull();

    await a.sessions.delete('s-ids');
    expect(await b.sessions.ids()).not.toContain('s-ids');
  });

  it('refreshes the ids index on load (at most once per ttl/10)', async () => {
    await a.sessions.create(record('s-refresh'), 1000);
    const before = Number(await bed.raw.zScore(`${bed.prefix}sessions`, 's-refresh'));
    // A load from another instance that never saw the session refreshes its entry with the new ttl.
    await b.sessions.load('s-refresh', TTL);
    const key = `${bed.prefix}sessions`;
    await until(async () => Number(await bed.raw.zScore(key, 's-refresh')) > before, 'the index entry to move');
    expect(Number(await bed.raw.zScore(key, 's-refresh'))).toBeGreaterThanOrEqual(Date.now() + TTL - 5000);
  });
});
