/**
 * The notes example in process: its file-backed store (survives a restart, writes atomically),
 * the confirmation delete asks for, subscriptions that fire on change, completion, and the
 * export tool run as a task with progress.
 */
import 'reflect-metadata';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, quietOptions, type TestClient } from '@mcpx/testing';
import { NotesServer, SAMPLE_NOTES } from '../src/notes-server';
import { NotesStore } from '../src/notes-store';

let dataDir: string;
const clients: TestClient[] = [];

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'mcpx-notes-test-'));
});

afterEach(() => {
  for (const client of clients.splice(0)) client.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A server on the test's data folder, as `mcpx serve` would build it: no constructor arguments, MCPX_DATA_DIR set. */
function serverOnDataDir(): NotesServer {
  const saved = process.env.MCPX_DATA_DIR;
  process.env.MCPX_DATA_DIR = dataDir;
  try {
    return new NotesServer();
  } finally {
    if (saved === undefined) delete process.env.MCPX_DATA_DIR;
    else process.env.MCPX_DATA_DIR = saved;
  }
}

async function client(server: NotesServer, capabilities: Record<string, unknown> = {}): Promise<TestClient> {
  const c = await connect(server, { ...quietOptions(), capabilities });
  clients.push(c);
  return c;
}

const textOf = (result: { content: unknown }) =>
  (result.content as { type: string; text?: string }[])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');

describe('the file-backed store', () => {
  it('survives a restart: notes created by one server are read by a new one on the same data folder', async () => {
    const first = await client(serverOnDataDir(), { elicitation: { form: {} } });
    first.onRequest('elicitation/create', () => ({ action: 'accept', content: { confirm: true } }));
    const created = await first.callTool('create', { title: 'Persisted', body: 'Still here', tags: ['keep'] });
    expect(textOf(created)).toBe('Created note 4.');
    await first.callTool('append', { id: '4', line: 'after a restart' });
    await first.callTool('delete', { id: '2' });
    first.close();

    // A new server instance (a restart) on the same folder.
    const second = await client(serverOnDataDir());
    const read = await second.readResource('notes://notes/4');
    expect(read.contents).toEqual([{ uri: 'notes://notes/4', mimeType: 'text/markdown', text: '# Persisted\n\nStill here\nafter a restart' }]);
    const index = JSON.parse(((await second.readResource('notes://index')).contents[0] as { text: string }).text);
    expect(index).toEqual([
      { id: '1', title: 'Welcome', tags: ['intro'] },
      { id: '3', title: 'Release plan', tags: ['work', 'planning'] },
      { id: '4', title: 'Persisted', tags: ['keep'] },
    ]);
    // Stored notes are listed as resources at start, and ids are not reused after a delete.
    const uris = (await second.listAll('resources')).map((r: { uri: string }) => r.uri);
    expect(uris).toEqual(['notes://index', 'notes://notes/1', 'notes://notes/3', 'notes://notes/4']);
    expect(textOf(await second.callTool('create', { title: 'Next', body: '' }))).toBe('Created note 5.');
  });

  it('starts a fresh folder from the sample notes, writes nothing until a change, and leaves no temporary file', () => {
    const dir = join(dataDir, 'nested', 'notes');
    const store = new NotesStore({ dir, seed: SAMPLE_NOTES });
    expect(store.all().map((n) => n.title)).toEqual(['Welcome', 'Shopping', 'Release plan']);
    expect(existsSync(dir)).toBe(false);
    store.create('One', 'body', ['x']);
    expect(readdirSync(dir)).toEqual(['notes.json']);
    const saved = JSON.parse(readFileSync(join(dir, 'notes.json'), 'utf8'));
    expect(saved).toMatchObject({ version: 1, nextId: 5 });
    expect(saved.notes.map((n: { title: string }) => n.title)).toEqual(['Welcome', 'Shopping', 'Release plan', 'One']);
    // An emptied folder stays empty after a restart: the seed is for fresh folders only.
    for (const note of store.all()) store.delete(note.id);
    expect(new NotesStore({ dir, seed: SAMPLE_NOTES }).all()).toEqual([]);
  });

  it('removes temporary files a crash left mid-write, and keeps the notes file', () => {
    const store = new NotesStore({ dir: dataDir, seed: SAMPLE_NOTES });
    store.create('Saved', 'before the crash');
    // What a process killed between writing and renaming leaves behind: a process that is gone.
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    writeFileSync(join(dataDir, `notes.json.${gone}.tmp`), '{"version":1,"nextId":9,"notes":[]}');
    writeFileSync(join(dataDir, `notes.json.${process.pid}.tmp`), '{"trunc');
    writeFileSync(join(dataDir, 'notes.json.bak'), 'a file of the user’s');
    const restarted = new NotesStore({ dir: dataDir });
    expect(readdirSync(dataDir).sort()).toEqual(['notes.json', 'notes.json.bak']);
    expect(restarted.all().map((n) => n.title)).toEqual(['Welcome', 'Shopping', 'Release plan', 'Saved']);
  });

  it('keeps the temporary file of a live process: it may be writing it now', async () => {
    const writer = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      writeFileSync(join(dataDir, `notes.json.${writer.pid}.tmp`), '{"version":1,');
      new NotesStore({ dir: dataDir });
      expect(readdirSync(dataDir)).toEqual([`notes.json.${writer.pid}.tmp`]);
    } finally {
      writer.kill();
      await new Promise((exited) => writer.once('exit', exited));
    }
  });

  it('refuses a file that is not a notes file rather than overwrite it', () => {
    writeFileSync(join(dataDir, 'notes.json'), '{"something":"else"}');
    expect(() => new NotesStore({ dir: dataDir })).toThrow(/not a notes file/);
  });
});

describe('delete', () => {
  const elicitation = { elicitation: { form: {} } };

  it('asks a client that declared elicitation to confirm, and deletes on accept with confirm=true', async () => {
    const c = await client(serverOnDataDir(), elicitation);
    const asked: Record<string, unknown>[] = [];
    c.onRequest('elicitation/create', (params) => {
      asked.push(params);
      return { action: 'accept', content: { confirm: true } };
    });
    expect(textOf(await c.callTool('delete', { id: '2' }))).toBe('Deleted note 2.');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      mode: 'form',
      message: 'Delete note 2 "Shopping" for good?',
      requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
    });
    await expect(c.readResource('notes://notes/2')).rejects.toMatchObject({ code: -32002 });
    // The deletion is on disk too.
    expect(new NotesStore({ dir: dataDir }).get('2')).toBeUndefined();
  });

  it.each([
    ['decline', { action: 'decline' }],
    ['cancel', { action: 'cancel' }],
    ['accept with confirm=false', { action: 'accept', content: { confirm: false } }],
  ])('keeps the note on %s', async (_name, answer) => {
    const c = await client(serverOnDataDir(), elicitation);
    let asked = 0;
    c.onRequest('elicitation/create', () => {
      asked++;
      return answer;
    });
    const result = await c.callTool('delete', { id: '2' });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('Kept note 2: the deletion was not confirmed.');
    expect(asked).toBe(1);
    expect((await c.readResource('notes://notes/2')).contents[0]).toMatchObject({ text: '# Shopping\n\nMilk, eggs, coffee beans.' });
    expect(existsSync(join(dataDir, 'notes.json'))).toBe(false); // nothing changed, nothing written
  });

  it('fails closed for a client that declared no elicitation: not asked, the note kept, the reason given', async () => {
    const c = await client(serverOnDataDir());
    let asked = 0;
    c.onRequest('elicitation/create', () => {
      asked++;
      return { action: 'accept', content: { confirm: true } };
    });
    expect(await c.callTool('delete', { id: '3' })).toEqual({
      content: [{ type: 'text', text: 'Kept note 3: this client cannot show the confirmation form a deletion needs (it declared no elicitation capability).' }],
      isError: true,
    });
    expect(asked).toBe(0);
    expect((await c.readResource('notes://notes/3')).contents[0]).toMatchObject({ text: expect.stringContaining('Release plan') });
  });

  it('answers an unknown id with isError without asking', async () => {
    const c = await client(serverOnDataDir(), elicitation);
    let asked = 0;
    c.onRequest('elicitation/create', () => {
      asked++;
      return { action: 'accept', content: { confirm: true } };
    });
    expect(await c.callTool('delete', { id: '42' })).toEqual({ content: [{ type: 'text', text: 'No note 42.' }], isError: true });
    expect(asked).toBe(0);
  });
});

describe('subscriptions and completion', () => {
  it('tells subscribers of a note, the index and a tag view when a note changes', async () => {
    const c = await client(serverOnDataDir());
    await c.subscribe('notes://notes/2');
    await c.subscribe('notes://index');
    await c.subscribe('notes://tags/home');
    await c.callTool('append', { id: '2', line: 'Bread' });
    await c.callTool('create', { title: 'Work only', body: '', tags: ['work'] });
    await c.ping();
    const updated = () => c.notifications.filter((n) => n.method === 'notifications/resources/updated').map((n) => n.params?.uri);
    expect(updated()).toEqual(['notes://notes/2', 'notes://index', 'notes://tags/home', 'notes://index']);
    await c.unsubscribe('notes://index');
    await c.callTool('create', { title: 'Unwatched', body: '' });
    await c.ping();
    expect(updated()).toHaveLength(4);
  });

  it('completes note ids and tags from what is stored', async () => {
    const c = await client(serverOnDataDir());
    await c.callTool('create', { title: 'Tagged', body: '', tags: ['hobby'] });
    expect((await c.complete({ type: 'ref/resource', uri: 'notes://tags/{tag}' }, { name: 'tag', value: 'ho' })).completion.values).toEqual(['hobby', 'home']);
    expect((await c.complete({ type: 'ref/prompt', name: 'summarize' }, { name: 'noteId', value: '' })).completion.values).toEqual(['1', '2', '3', '4']);
  });
});

describe('export as a task', () => {
  it('lists taskSupport optional, answers at once with a task and delivers the result with tasks/result', async () => {
    const c = await client(serverOnDataDir());
    const tool = (await c.listAll('tools')).find((t: { name: string }) => t.name === 'export');
    expect(tool.execution).toEqual({ taskSupport: 'optional' });
    const created = await c.request<{ task: { taskId: string; status: string } }>('tools/call', {
      name: 'export',
      arguments: { format: 'json', delayMs: 5 },
      task: { ttl: 60_000 },
    });
    expect(created.task.status).toBe('working');
    const result = await c.request<{ content: { text: string }[] }>('tasks/result', { taskId: created.task.taskId });
    expect(result.content[0]!.text.split('\n').map((line) => JSON.parse(line).title)).toEqual(['Welcome', 'Shopping', 'Release plan']);
    expect(await c.request('tasks/get', { taskId: created.task.taskId })).toMatchObject({ status: 'completed' });
  });

  it('reports progress when run directly', async () => {
    const c = await client(serverOnDataDir());
    const seen: unknown[] = [];
    await c.callTool('export', { format: 'markdown', delayMs: 0 }, { onProgress: ({ progress, total, message }) => seen.push({ progress, total, message }) });
    expect(seen).toEqual([
      { progress: 1, total: 3, message: 'exported Welcome' },
      { progress: 2, total: 3, message: 'exported Shopping' },
      { progress: 3, total: 3, message: 'exported Release plan' },
    ]);
  });
});
