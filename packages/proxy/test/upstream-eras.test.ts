/**
 * Upstreams of both eras behind one gateway: the example notes server and a small mcpx fixture
 * (over stdio) speak 2026-07-28 with it, the SDK v1 fixture 2025-11-25. From the 2026-07-28
 * upstreams: a call with progress and its log line, a cancellation passed on, their changes heard
 * on a subscriptions/listen stream (list_changed, resources/updated), an input request
 * (elicitation) answered by a 2025-11-25 and by a 2026-07-28 downstream client, an app view passed
 * on, and a process killed: started again, listened to again.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { McpServer } from '@mcpx/core';
import { connect, quietOptions, type TestClient } from '@mcpx/testing';
import { proxyServer, type Gateway } from '../src';

jest.setTimeout(40_000);

const NOTES = join(__dirname, '..', '..', '..', 'apps', 'example', 'dist', 'main-stdio.js');
const SDK1 = join(__dirname, 'fixtures', 'sdk1-stdio-server.js');
const MCPX = join(__dirname, 'fixtures', 'mcpx-stdio-server.js');

let server: McpServer & { gateway: Gateway };
let client: TestClient;

beforeAll(async () => {
  const config = {
    mcpServers: {
      notes: { command: process.execPath, args: [NOTES], env: { MCPX_DATA_DIR: mkdtempSync(join(tmpdir(), 'mcpx-eras-')) } },
      docs: { command: process.execPath, args: [SDK1] },
      waiter: { command: process.execPath, args: [MCPX] },
    },
  };
  server = await proxyServer(config, { backoffMs: 50 });
  client = await connect(server, quietOptions());
  await server.gateway.ready();
});

afterAll(async () => {
  client.close();
  await server.gateway.close();
});

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;
const notes = () => server.gateway.upstreams.find((u) => u.config.key === 'notes')!;

async function until<T>(what: () => Promise<T | undefined> | T | undefined, label: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = await what();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${label}`);
}

async function createNote(title: string): Promise<string> {
  const created = textOf(await client.callTool('notes_create', { title, body: `About ${title}` }));
  return /^Created note (\S+)\.$/.exec(created)![1]!;
}

it('reaches each upstream in the era it speaks', async () => {
  expect(server.gateway.upstreams.map((u) => [u.config.key, u.state, u.protocolVersion])).toEqual([
    ['notes', 'up', '2026-07-28'],
    ['docs', 'up', '2025-11-25'],
    ['waiter', 'up', '2026-07-28'],
  ]);
  const names = (await client.listTools()).tools.map((t) => t.name);
  expect(names).toEqual(expect.arrayContaining(['notes_create', 'notes_export', 'notes_delete', 'docs_add']));
  expect(textOf(await client.callTool('docs_add', { a: 2, b: 3 }))).toBe('5');
});

it("forwards a 2026-07-28 upstream's progress and log lines, and hears its changes on its listen stream", async () => {
  await client.setLogLevel('info');
  await client.subscribe('notes://notes/index');
  const before = client.notifications.length;
  const id = await createNote('first');
  // The log line the upstream wrote for this call (it logs only when asked, per request).
  const line = await until(() => client.notifications.slice(before).find((n) => n.method === 'notifications/message'), 'the log line');
  expect(line.params).toEqual({ level: 'info', logger: 'notes', data: JSON.stringify({ message: 'note created', id }) });
  // Its resources/updated and list_changed came on the listen stream the gateway holds open.
  await until(() => client.notifications.slice(before).find((n) => n.method === 'notifications/resources/updated'), 'resources/updated');
  expect(
    client.notifications
      .slice(before)
      .filter((n) => n.method === 'notifications/resources/updated')
      .map((n) => n.params),
  ).toContainEqual({ uri: 'notes://notes/index' });
  await until(async () => ((await client.listResources()).resources.some((r) => r.uri === `notes://notes/notes/${id}`) ? true : undefined), 'the new note to be listed');

  const progress: number[] = [];
  const exported = await client.callTool('notes_export', { format: 'markdown', delayMs: 1 }, { onProgress: (p) => progress.push(p.progress) });
  expect(textOf(exported)).toContain('# first');
  expect(progress.length).toBeGreaterThan(0);
  expect(progress[progress.length - 1]).toBe(progress.length);
});

it("passes an upstream's app view on to the clients that render views, under the prefix", async () => {
  const apps = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };
  const host = await connect(server, { ...quietOptions(), capabilities: apps });
  try {
    const search = (await host.listTools()).tools.find((t) => t.name === 'notes_search')!;
    expect(search._meta).toMatchObject({ ui: { resourceUri: 'ui://notes/notes/board' }, 'ui/resourceUri': 'ui://notes/notes/board' });
    const view = (await host.readResource('ui://notes/notes/board')).contents[0] as { mimeType: string; text: string };
    expect(view.mimeType).toBe('text/html;profile=mcp-app');
    expect(view.text).toMatch(/^<!doctype html>/i);
  } finally {
    host.close();
  }
  // A client that renders no views gets the tool without them.
  expect((await client.listTools()).tools.find((t) => t.name === 'notes_search')!._meta).toBeUndefined();
});

it('passes a cancellation on to a 2026-07-28 upstream', async () => {
  const controller = new AbortController();
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const call = client.callTool('waiter_wait', {}, { signal: controller.signal, onProgress: () => started() });
  await running; // the upstream runs it: its progress came back through the gateway
  controller.abort('enough');
  await expect(call).rejects.toThrow();
  expect(await until(async () => (textOf(await client.callTool('waiter_cancellations')) === '1' ? true : undefined), 'the upstream to see the cancellation')).toBe(true);
});

it('puts the input a 2026-07-28 upstream asks for to a 2025-11-25 client and to a 2026-07-28 client', async () => {
  const legacy = await connect(server, { ...quietOptions(), capabilities: { elicitation: {} } });
  const modern = await connect(server, { ...quietOptions(), protocolVersion: '2026-07-28', capabilities: { elicitation: {} } });
  try {
    const asked: string[] = [];
    for (const asking of [legacy, modern]) {
      asking.onRequest('elicitation/create', (params) => {
        asked.push(String(params.message));
        return { action: 'accept', content: { confirm: true } };
      });
    }
    const a = await createNote('for the legacy client');
    const b = await createNote('for the modern client');
    expect(textOf(await legacy.callTool('notes_delete', { id: a }))).toBe(`Deleted note ${a}.`);
    expect(textOf(await modern.callTool('notes_delete', { id: b }))).toBe(`Deleted note ${b}.`);
    expect(asked).toEqual([`Delete note ${a} "for the legacy client" for good?`, `Delete note ${b} "for the modern client" for good?`]);
  } finally {
    legacy.close();
    modern.close();
  }
});

it('starts a killed 2026-07-28 upstream again and listens to it again', async () => {
  await client.subscribe('notes://notes/index');
  const pid = notes().pid!;
  expect(pid).toBeGreaterThan(0);
  const before = client.notifications.length;
  process.kill(pid, 'SIGKILL');
  await until(() => client.notifications.slice(before).find((n) => n.method === 'notifications/tools/list_changed'), 'the tools to leave');
  // Up, and listed again: its listen stream names the resources it lists.
  await until(() => (notes().state === 'up' && notes().settled && notes().pid !== pid ? true : undefined), 'the upstream to be started again');
  expect(notes().protocolVersion).toBe('2026-07-28');
  await until(async () => ((await client.listTools()).tools.some((t) => t.name === 'notes_create') ? true : undefined), 'its tools to come back');
  const after = client.notifications.length;
  await createNote('after the restart');
  const updated = await until(
    () => client.notifications.slice(after).find((n) => n.method === 'notifications/resources/updated' && (n.params as { uri: string }).uri === 'notes://notes/index'),
    'resources/updated from the new process',
  );
  expect(updated.params).toEqual({ uri: 'notes://notes/index' });
});
