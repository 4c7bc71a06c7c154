/**
 * The notes in Redis (what `new NotesServer()` uses when MCPX_REDIS_URL is set), against the
 * Redis on 127.0.0.1:6379: the store itself, two stores on one prefix being one notebook (seeded
 * once, ids never repeated, appends made at once all kept, each store hearing the other's changes),
 * and two servers on one prefix serving one notebook, their resource lists kept in step.
 * Each test uses its own key prefix and removes its keys.
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { connect, quietOptions, type TestClient } from '@mcpx/testing';
import { NotesServer, SAMPLE_NOTES, openNotebook } from '../src/notes-server';
import { RedisNotesStore } from '../src/notes-redis-store';
import { NotesStore, type NoteChange } from '../src/notes-store';
import { ThrowawayRedis, freePort } from '../../../packages/redis/test/redis-kit';

const REDIS_URL = process.env.MCPX_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const redis = createClient({ url: REDIS_URL });
let prefix: string;
const stores: RedisNotesStore[] = [];
const clients: TestClient[] = [];

beforeAll(async () => {
  await redis.connect();
});

afterAll(async () => {
  await redis.close();
});

beforeEach(() => {
  prefix = `mcpx-test:${randomBytes(6).toString('hex')}:`;
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await Promise.all(stores.splice(0).map((store) => store.close()));
  const keys: string[] = [];
  for await (const batch of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 200 })) keys.push(...batch);
  if (keys.length) await redis.del(keys);
});

function store(options: { seed?: typeof SAMPLE_NOTES; url?: string; connectTimeoutMs?: number } = {}): RedisNotesStore {
  const s = new RedisNotesStore({ url: options.url ?? REDIS_URL, prefix, seed: options.seed ?? SAMPLE_NOTES, connectTimeoutMs: options.connectTimeoutMs });
  stores.push(s);
  return s;
}

/** Changes a store hears on its feed, and a way to wait for the next ones. */
function watched(s: RedisNotesStore) {
  const changes: NoteChange[] = [];
  const waiters: (() => void)[] = [];
  let resyncs = 0;
  const wake = () => waiters.splice(0).forEach((w) => w());
  s.watch({
    changed: (change) => {
      changes.push(change);
      wake();
    },
    resync: () => {
      resyncs++;
      wake();
    },
  });
  /** Resolves once `predicate` holds, checked after every change and resync (no timers). */
  const until = async (predicate: () => boolean): Promise<void> => {
    while (!predicate()) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return { changes, resyncs: () => resyncs, until };
}

describe('the Redis notes store', () => {
  it('starts a fresh prefix from the seed, and keeps every key under <prefix>notes: without a time to live', async () => {
    const s = store();
    expect((await s.all()).map((n) => [n.id, n.title, n.tags])).toEqual([
      ['1', 'Welcome', ['intro']],
      ['2', 'Shopping', ['home']],
      ['3', 'Release plan', ['work', 'planning']],
    ]);
    const keys = (await redis.keys(`${prefix}*`)).sort();
    expect(keys).toEqual([`${prefix}notes:ids`, `${prefix}notes:note:1`, `${prefix}notes:note:2`, `${prefix}notes:note:3`, `${prefix}notes:seq`]);
    // The notes are the user's data: nothing expires them.
    for (const key of keys) expect(await redis.pTTL(key)).toBe(-1);
  });

  it('creates, reads, updates, appends, searches, lists tags and deletes; ids are never reused', async () => {
    const s = store();
    const created = await s.create('Groceries', 'Milk', ['home', 'todo']);
    expect(created).toMatchObject({ id: '4', title: 'Groceries', body: 'Milk', tags: ['home', 'todo'] });
    expect(await s.get('4')).toEqual(created);
    expect(await s.get('99')).toBeUndefined();

    expect(await s.update('4', { title: 'Shopping list', tags: ['home'] })).toMatchObject({ id: '4', title: 'Shopping list', body: 'Milk', tags: ['home'] });
    expect(await s.update('99', { title: 'x' })).toBeUndefined();
    expect(await s.append('4', 'Bread')).toMatchObject({ body: 'Milk\nBread' });
    expect(await s.append('99', 'x')).toBeUndefined();

    expect((await s.search('milk')).map((n) => n.id)).toEqual(['2', '4']);
    expect((await s.search('milk', 'todo')).map((n) => n.id)).toEqual([]);
    expect(await s.tags()).toEqual(['home', 'intro', 'planning', 'work']);

    expect(await s.delete('4')).toBe(true);
    expect(await s.delete('4')).toBe(false);
    expect(await s.get('4')).toBeUndefined();
    expect((await s.create('Next', '')).id).toBe('5');
    expect((await s.all()).map((n) => n.id)).toEqual(['1', '2', '3', '5']);
  });

  it('keeps text as it is: newlines, quotes, unicode, empty bodies and no tags', async () => {
    const s = store({ seed: [] });
    const body = 'line "one"\n\\two\\ — ünïcödé 🎉\n{"json": [1]}';
    const note = await s.create('Tricky', body, []);
    expect(await s.get(note.id)).toEqual(note);
    expect(await s.append(note.id, '')).toMatchObject({ body: `${body}\n`, tags: [] });
    expect(await s.create('Empty', '')).toMatchObject({ body: '', tags: [] });
  });

  it('is one notebook for every store on the prefix: seeded once, appends made at once all kept', async () => {
    const [a, b, c] = [store(), store(), store()];
    const [fromA, fromB, fromC] = await Promise.all([a.all(), b.all(), c.all()]);
    expect(fromA.map((n) => n.id)).toEqual(['1', '2', '3']);
    expect(fromB).toEqual(fromA);
    expect(fromC).toEqual(fromA);

    const created = await Promise.all([a.create('A', ''), b.create('B', ''), c.create('C', '')]);
    expect(new Set(created.map((n) => n.id))).toEqual(new Set(['4', '5', '6']));

    const lines = Array.from({ length: 30 }, (_, i) => `line ${i}`);
    await Promise.all(lines.map((line, i) => [a, b, c][i % 3]!.append('1', line)));
    const body = (await c.get('1'))!.body.split('\n');
    expect(body[0]).toBe(SAMPLE_NOTES[0]!.body);
    expect(body.slice(1).sort()).toEqual([...lines].sort());
  });

  it('does not seed again a notebook that was emptied', async () => {
    const s = store();
    for (const note of await s.all()) await s.delete(note.id);
    await s.close();
    expect(await store().all()).toEqual([]);
  });

  it('tells every watching store of changes made through any of them, after a first resync', async () => {
    const [a, b] = [store(), store()];
    const heard = watched(b);
    await heard.until(() => heard.resyncs() >= 1);
    const note = await a.create('From A', 'hello', ['x']);
    await a.update(note.id, { title: 'Renamed' });
    await a.append(note.id, 'more');
    await a.delete(note.id);
    await a.delete(note.id); // nothing deleted, nothing told
    await a.delete('1');
    await heard.until(() => heard.changes.length === 5);
    expect(heard.changes).toEqual([
      { type: 'saved', id: note.id, title: 'From A' },
      { type: 'saved', id: note.id, title: 'Renamed' },
      { type: 'saved', id: note.id, title: 'Renamed' },
      { type: 'deleted', id: note.id },
      { type: 'deleted', id: '1' },
    ]);
  });

  it('resyncs a watcher whose connection came back (what was published meanwhile is lost)', async () => {
    // The feed connections of the notes stores (by name), as CLIENT LIST shows them.
    const feeds = async () => {
      const list = (await redis.sendCommand(['CLIENT', 'LIST', 'TYPE', 'pubsub'])) as string;
      return [...list.matchAll(/^id=(\d+) .*\bname=mcpx-notes-feed\b/gm)].map((m) => m[1]!);
    };
    const before = new Set(await feeds());
    const heard = watched(store());
    await heard.until(() => heard.resyncs() >= 1);
    const ours = (await feeds()).filter((id) => !before.has(id));
    expect(ours).toHaveLength(1);
    await redis.sendCommand(['CLIENT', 'KILL', 'ID', ours[0]!]);
    await heard.until(() => heard.resyncs() >= 2);
  });

  it('fails fast while Redis is away, and after it comes back empty starts again from the seed and resyncs', async () => {
    const server = new ThrowawayRedis(await freePort());
    await server.start();
    try {
      const s = store({ url: server.url });
      const heard = watched(s);
      await heard.until(() => heard.resyncs() >= 1);
      expect((await s.create('Lost with Redis', '')).id).toBe('4');

      await server.kill();
      const away = await s.all().then(
        () => undefined,
        (err: Error) => err,
      );
      expect(away?.message).toBe('Storage unavailable, try again');
      expect(String((away?.cause as Error | undefined)?.message)).toMatch(/offline|closed|connect/i);

      await server.start(); // nothing kept: a fresh notebook
      await heard.until(() => heard.resyncs() >= 2);
      expect((await s.all()).map((n) => [n.id, n.title])).toEqual([
        ['1', 'Welcome'],
        ['2', 'Shopping'],
        ['3', 'Release plan'],
      ]);
    } finally {
      await server.kill();
    }
  });

  it('fails the first use clearly when Redis cannot be reached, without the password', async () => {
    const port = await freePort();
    const s = store({ url: `redis://user:secret@127.0.0.1:${port}`, connectTimeoutMs: 300 });
    const failure = await s.all().then(
      () => undefined,
      (err: Error) => err,
    );
    // What the model is told stays clean; the cause (logged) says what and where, without the password.
    expect(failure?.message).toBe('Storage unavailable, try again');
    expect((failure?.cause as Error).message).toBe(`Cannot reach Redis at redis://user:***@127.0.0.1:${port} for the notes (waited 300 ms)`);
  });
});

describe('openNotebook', () => {
  it('keeps the notes in Redis when MCPX_REDIS_URL is set, under MCPX_REDIS_PREFIX, else in the data folder', () => {
    const inRedis = openNotebook({ MCPX_REDIS_URL: REDIS_URL, MCPX_REDIS_PREFIX: prefix });
    expect(inRedis).toBeInstanceOf(RedisNotesStore);
    expect((inRedis as RedisNotesStore).prefix).toBe(prefix);
    expect((openNotebook({ MCPX_REDIS_URL: REDIS_URL }) as RedisNotesStore).prefix).toBe('mcpx:');
    expect(openNotebook({ MCPX_REDIS_URL: '', MCPX_DATA_DIR: '/nonexistent/notes' })).toBeInstanceOf(NotesStore);
  });
});

describe('two servers on one Redis prefix', () => {
  async function server(): Promise<{ client: TestClient; store: RedisNotesStore }> {
    const s = store();
    const client = await connect(new NotesServer(s), { ...quietOptions(), capabilities: { elicitation: { form: {} } } });
    client.onRequest('elicitation/create', () => ({ action: 'accept', content: { confirm: true } }));
    clients.push(client);
    return { client, store: s };
  }

  /** Waits, list_changed by list_changed, until the client's resource list holds exactly `uris`. */
  async function listed(client: TestClient, uris: string[]): Promise<void> {
    for (;;) {
      const now = (await client.listAll('resources')).map((r: { uri: string }) => r.uri);
      if (JSON.stringify(now) === JSON.stringify(uris)) return;
      await client.nextNotification('notifications/resources/list_changed');
    }
  }

  const textOf = (result: { content: unknown }) =>
    (result.content as { type: string; text?: string }[])
      .filter((c) => c.type === 'text')
      .map((c) => c.text)
      .join('\n');

  it('serve one notebook: a note created through one is listed, read, searched, exported and deleted through the other', async () => {
    const one = await server();
    const two = await server();
    const samples = ['notes://index', 'notes://notes/1', 'notes://notes/2', 'notes://notes/3'];
    await listed(one.client, samples);
    await listed(two.client, samples);

    expect(textOf(await one.client.callTool('create', { title: 'Shared', body: 'seen everywhere', tags: ['team'] }))).toBe('Created note 4.');
    await listed(two.client, [...samples, 'notes://notes/4']);
    expect((await two.client.readResource('notes://notes/4')).contents[0]).toMatchObject({ text: '# Shared\n\nseen everywhere' });
    expect((await two.client.callTool('search', { query: 'everywhere' })).structuredContent).toEqual({ notes: [{ id: '4', title: 'Shared', tags: ['team'] }], total: 1 });
    expect(
      textOf(await two.client.callTool('export', { format: 'json', delayMs: 0 }))
        .split('\n')
        .map((line) => JSON.parse(line).title),
    ).toEqual(['Welcome', 'Shopping', 'Release plan', 'Shared']);

    await two.client.callTool('append', { id: '4', line: 'from two' });
    expect((await one.client.readResource('notes://notes/4')).contents[0]).toMatchObject({ text: '# Shared\n\nseen everywhere\nfrom two' });

    expect(textOf(await two.client.callTool('delete', { id: '4' }))).toBe('Deleted note 4.');
    await listed(one.client, samples);
    await expect(one.client.readResource('notes://notes/4')).rejects.toMatchObject({ code: -32002 });
  });

  it('lists the notes in id order, also when it hears of an older note after a newer one', async () => {
    const one = await server();
    const samples = ['notes://index', 'notes://notes/1', 'notes://notes/2', 'notes://notes/3'];
    await listed(one.client, samples);
    // Another replica takes id 4; the server creates 5 before the news of 4 reaches it.
    const four = String(await redis.incr(`${prefix}notes:seq`));
    await redis.hSet(`${prefix}notes:note:${four}`, { title: 'Four', body: '', tags: '[]', updatedAt: new Date().toISOString() });
    await redis.zAdd(`${prefix}notes:ids`, { score: 4, value: four });
    await one.client.callTool('create', { title: 'Five', body: '' });
    await listed(one.client, [...samples, 'notes://notes/5']);
    await redis.publish(`${prefix}notes:changes`, JSON.stringify({ type: 'saved', id: four, title: 'Four' }));
    await listed(one.client, [...samples, 'notes://notes/4', 'notes://notes/5']);
  });
});
