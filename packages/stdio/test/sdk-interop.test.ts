/**
 * Interoperation with the official TypeScript SDK client: the real `Client` spawns the built
 * example server (`apps/example/dist/main-stdio.js`) over stdio and talks to it. Every list is
 * paginated (MCPX_PAGE_SIZE=2). A tap between the client and its transport records every
 * JSON-RPC message in both directions, so the wire itself can be checked too.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StdioTap } from './stdio-tap';
import {
  ElicitRequestSchema,
  ErrorCode,
  LoggingMessageNotificationSchema,
  McpError,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  type CallToolResult,
  type LoggingMessageNotification,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';

const ROOT = resolve(__dirname, '../../..');
const SERVER = resolve(ROOT, 'apps/example/dist/main-stdio.js');

interface Peer {
  client: Client;
  tap: StdioTap;
  /** Everything the SDK reported through onerror (unparsable lines, unknown response ids, stray progress...). */
  errors: Error[];
  stderr(): string;
  /** Every notifications/message received, in order. */
  logs: LoggingMessageNotification['params'][];
}

const peers: Peer[] = [];
/** Every spawned server gets a data folder of its own, so each starts from the three seeded notes. */
const dataDirs: string[] = [];
let sharedPeer: Promise<Peer> | undefined;

/** One server for the tests that change nothing (spawning one costs ~0.3 s). */
function shared(): Promise<Peer> {
  return (sharedPeer ??= connect(false));
}

async function connect(ownedByTest = true): Promise<Peer> {
  const inner = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER],
    cwd: ROOT,
    env: { MCPX_PAGE_SIZE: '2', MCPX_DATA_DIR: dataDirs[dataDirs.push(mkdtempSync(join(tmpdir(), 'mcpx-notes-'))) - 1]! },
    stderr: 'pipe',
  });
  let stderr = '';
  inner.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const tap = new StdioTap(inner);
  // A client that can show forms and confirms whatever it is asked (the example's delete asks first).
  const client = new Client({ name: 'mcpx-sdk-interop', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { confirm: true } }));
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  const logs: Peer['logs'] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  await client.connect(tap);
  const peer: Peer = { client, tap, errors, logs, stderr: () => stderr };
  if (ownedByTest) peers.push(peer);
  return peer;
}

/** A round trip: everything the server wrote before the ping's answer has been handled by then. */
async function settle(peer: Peer): Promise<void> {
  await peer.client.ping();
  await new Promise((r) => setImmediate(r));
}

function textOf(result: CallToolResult | { content: unknown }): string {
  const content = result.content as { type: string; text?: string }[];
  return content
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
}

async function expectMcpError(promise: Promise<unknown>, code: number, message: RegExp): Promise<McpError> {
  const err = await promise.then(
    () => {
      throw new Error(`expected an McpError ${code}, but the call succeeded`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(McpError);
  expect((err as McpError).code).toBe(code);
  expect((err as McpError).message).toMatch(message);
  return err as McpError;
}

beforeAll(() => {
  if (!existsSync(SERVER)) {
    throw new Error(`${SERVER} does not exist: run "npm run build" first (npm test builds before running jest)`);
  }
});

afterEach(async () => {
  // Every peer must have seen only well-formed, expected traffic.
  const all = peers.splice(0);
  await Promise.all(all.map((peer) => peer.client.close()));
  if (sharedPeer) all.push(await sharedPeer);
  for (const peer of all) expect(peer.errors.map(String)).toEqual([]);
});

afterAll(async () => {
  if (sharedPeer) await (await sharedPeer).client.close();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

describe('initialize', () => {
  it('negotiates 2025-11-25 and reports serverInfo, instructions and capabilities', async () => {
    const { client, tap } = await connect();
    expect(client.getServerVersion()).toEqual({
      name: 'mcpx-notes',
      title: 'Notes',
      version: '0.1.0',
      description: 'Create, search and read short Markdown notes.',
    });
    expect(client.getInstructions()).toBe('Use search to find notes, then read notes://notes/{id} for the full text.');
    expect(client.getServerCapabilities()).toEqual({
      logging: {},
      completions: {},
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      tools: { listChanged: true },
      // export can run as a task.
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      // Its skill (Skills) and its board (MCP Apps), where clients of both eras read them.
      extensions: { 'io.modelcontextprotocol/skills': { directoryRead: true }, 'io.modelcontextprotocol/ui': {} },
    });

    // On the wire: the client asked for the latest version and the server agreed to it.
    const init = tap.outgoing().find((m) => m.method === 'initialize')!;
    expect(init.params!.protocolVersion).toBe('2025-11-25');
    const answer = tap.incoming().find((m) => m.id === init.id)!;
    expect(answer.result!.protocolVersion).toBe('2025-11-25');
    // The SDK followed up with notifications/initialized, and the session then serves requests.
    expect(tap.outgoing().some((m) => m.method === 'notifications/initialized')).toBe(true);
    await expect(client.ping()).resolves.toEqual({});
  });
});

describe('lists, paginated two at a time', () => {
  it('walks every page of tools/list by nextCursor', async () => {
    const { client } = await shared();
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      pages.push(page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor !== undefined && pages.length < 10);
    expect(pages).toEqual([['create', 'search'], ['delete', 'append'], ['export']]);
    for (const t of (await client.listTools()).tools) {
      expect(t.inputSchema.type).toBe('object');
    }
  });

  it('walks resources/list and resources/templates/list; prompts/list fits one page', async () => {
    const { client } = await shared();
    const first = await client.listResources();
    expect(first.resources.map((r) => r.uri)).toEqual(['notes://index', 'notes://notes/1']);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await client.listResources({ cursor: first.nextCursor! });
    expect(second.resources.map((r) => r.uri)).toEqual(['notes://notes/2', 'notes://notes/3']);
    expect(second.resources[0]).toEqual({ uri: 'notes://notes/2', name: 'note-2', title: 'Shopping', mimeType: 'text/markdown' });
    // The last page has no nextCursor (it ends exactly at the page size).
    expect(second.nextCursor).toBeUndefined();

    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates).toEqual([
      { uriTemplate: 'notes://notes/{id}', name: 'note', title: 'A note', description: 'One note as Markdown', mimeType: 'text/markdown' },
      { uriTemplate: 'notes://tags/{tag}', name: 'tag', title: 'Notes with a tag', mimeType: 'application/json' },
    ]);
    // Then the skills' files (the example publishes one skill).
    const skills = await client.listResourceTemplates({ cursor: templates.nextCursor! });
    expect(skills.resourceTemplates).toEqual([
      { uriTemplate: 'skill://{+path}', name: 'io.modelcontextprotocol/skills', title: 'Skills', description: 'The files of the skills this server serves (1; skills/list lists them)' },
    ]);
    expect(skills.nextCursor).toBeUndefined();

    const prompts = await client.listPrompts();
    expect(prompts.prompts).toEqual([
      {
        name: 'summarize',
        title: 'Summarise a note',
        description: 'Asks the model to summarise one note.',
        arguments: [
          { name: 'noteId', description: 'Id of the note to summarise', required: true },
          { name: 'style', description: 'Summary style: brief or detailed', required: false },
        ],
      },
    ]);
    expect(prompts.nextCursor).toBeUndefined();
  });

  it('keeps a cursor valid while the list grows, and rejects a forged or foreign cursor with -32602', async () => {
    const { client } = await connect();
    const first = await client.listResources();
    await client.callTool({ name: 'create', arguments: { title: 'Fourth', body: 'b' } });
    await client.callTool({ name: 'create', arguments: { title: 'Fifth', body: 'b' } });
    const uris = [...first.resources.map((r) => r.uri)];
    let cursor = first.nextCursor;
    while (cursor !== undefined) {
      const page = await client.listResources({ cursor });
      expect(page.resources.length).toBeLessThanOrEqual(2);
      uris.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
    }
    expect(uris).toEqual(['notes://index', 'notes://notes/1', 'notes://notes/2', 'notes://notes/3', 'notes://notes/4', 'notes://notes/5']);

    await expectMcpError(client.listTools({ cursor: 'not-a-cursor' }), ErrorCode.InvalidParams, /cursor/i);
    // A resources cursor is not a tools cursor.
    await expectMcpError(client.listTools({ cursor: first.nextCursor! }), ErrorCode.InvalidParams, /cursor/i);
    await expect(client.ping()).resolves.toEqual({});
  });
});

describe('tools/call', () => {
  it('create returns text plus a resource_link the client can read', async () => {
    const { client } = await connect();
    const result = (await client.callTool({ name: 'create', arguments: { title: 'Groceries', body: 'Tea', tags: ['home'] } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([
      { type: 'text', text: 'Created note 4.' },
      { type: 'resource_link', uri: 'notes://notes/4', name: 'Groceries', mimeType: 'text/markdown' },
    ]);
    const link = result.content[1] as { uri: string };
    const read = await client.readResource({ uri: link.uri });
    expect(read.contents).toEqual([{ uri: 'notes://notes/4', mimeType: 'text/markdown', text: '# Groceries\n\nTea' }]);
  });

  it('search returns structuredContent that the SDK validates against the listed outputSchema', async () => {
    const { client } = await shared();
    const tools = await client.listTools(); // the first page holds search; the SDK caches its output validator
    const search = tools.tools.find((t) => t.name === 'search')!;
    expect(search.outputSchema).toMatchObject({ type: 'object', required: ['notes', 'total'] });
    expect(search.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    // The SDK really compiled a validator for it, so the callTool below is checked client-side.
    const validatorOf = (client as unknown as { getToolOutputValidator(name: string): unknown }).getToolOutputValidator.bind(client);
    expect(validatorOf('search')).toEqual(expect.any(Function));

    const result = (await client.callTool({ name: 'search', arguments: { query: 'the', limit: 1 } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ notes: [{ id: '1', title: 'Welcome', tags: ['intro'] }], total: 2 });
    // Backwards compatibility: the same JSON as text.
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);

    const byTag = (await client.callTool({ name: 'search', arguments: { query: 'e', tag: 'work' } })) as CallToolResult;
    expect(byTag.structuredContent).toEqual({ notes: [{ id: '3', title: 'Release plan', tags: ['work', 'planning'] }], total: 1 });
  });

  it('answers invalid arguments with isError naming every failing field (not a protocol error)', async () => {
    const { client } = await shared();
    await client.listTools(); // search's output validator must not trip on an error result
    const bad = (await client.callTool({ name: 'create', arguments: { title: '', body: 5, tags: ['Not OK'] } })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toBeUndefined();
    const message = textOf(bad);
    expect(message).toMatch(/^Invalid arguments:/);
    expect(message).toMatch(/- title: /);
    expect(message).toMatch(/- body: /);
    expect(message).toMatch(/- tags: /);

    const badSearch = (await client.callTool({ name: 'search', arguments: { limit: 0, extra: true } })) as CallToolResult;
    expect(badSearch.isError).toBe(true);
    expect(textOf(badSearch)).toMatch(/- query: /);
    expect(textOf(badSearch)).toMatch(/- limit: /);
    expect(textOf(badSearch)).toMatch(/extra/);

    const badExport = (await client.callTool({ name: 'export', arguments: { format: 'pdf' } })) as CallToolResult;
    expect(badExport.isError).toBe(true);
    expect(textOf(badExport)).toMatch(/- format: /);

    // Nothing was created by the failed call.
    const resources = [...(await client.listResources()).resources];
    expect(resources.map((r) => r.uri)).not.toContain('notes://notes/4');
  });

  it('reports a failure inside the tool as isError, and an unknown tool as -32602', async () => {
    const { client } = await shared();
    const missing = (await client.callTool({ name: 'append', arguments: { id: '42', line: 'x' } })) as CallToolResult;
    expect(missing).toEqual({ content: [{ type: 'text', text: 'No note 42' }], isError: true });
    const gone = (await client.callTool({ name: 'delete', arguments: { id: '42' } })) as CallToolResult;
    expect(gone).toEqual({ content: [{ type: 'text', text: 'No note 42.' }], isError: true });
    await expectMcpError(client.callTool({ name: 'nope', arguments: {} }), ErrorCode.InvalidParams, /Unknown tool: nope/);
  });
});

describe('resources/read', () => {
  it('reads the fixed resource and both templates', async () => {
    const { client } = await shared();
    const index = await client.readResource({ uri: 'notes://index' });
    expect(index.contents).toHaveLength(1);
    expect(index.contents[0]).toMatchObject({ uri: 'notes://index', mimeType: 'application/json' });
    expect(JSON.parse((index.contents[0] as { text: string }).text)).toEqual([
      { id: '1', title: 'Welcome', tags: ['intro'] },
      { id: '2', title: 'Shopping', tags: ['home'] },
      { id: '3', title: 'Release plan', tags: ['work', 'planning'] },
    ]);

    const note = await client.readResource({ uri: 'notes://notes/2' });
    expect(note.contents).toEqual([{ uri: 'notes://notes/2', mimeType: 'text/markdown', text: '# Shopping\n\nMilk, eggs, coffee beans.' }]);

    const tagged = await client.readResource({ uri: 'notes://tags/home' });
    expect(tagged.contents[0]).toMatchObject({ uri: 'notes://tags/home', mimeType: 'application/json' });
    expect(JSON.parse((tagged.contents[0] as { text: string }).text)).toEqual([{ id: '2', title: 'Shopping' }]);
    const none = await client.readResource({ uri: 'notes://tags/nothing' });
    expect(JSON.parse((none.contents[0] as { text: string }).text)).toEqual([]);
  });

  it('answers an unknown URI with McpError -32002 carrying the uri', async () => {
    const { client } = await shared();
    const err = await expectMcpError(client.readResource({ uri: 'notes://notes/999' }), -32002, /notes:\/\/notes\/999/);
    expect(err.data).toEqual({ uri: 'notes://notes/999' });
    await expectMcpError(client.readResource({ uri: 'https://example.com/x' }), -32002, /Resource not found/);
  });
});

describe('prompts/get', () => {
  it('returns the note as an embedded resource followed by the instruction', async () => {
    const { client } = await shared();
    const result = await client.getPrompt({ name: 'summarize', arguments: { noteId: '2', style: 'detailed' } });
    expect(result.description).toBe('Summary of "Shopping"');
    expect(result.messages).toEqual([
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: { uri: 'notes://notes/2', mimeType: 'text/markdown', text: '# Shopping\n\nMilk, eggs, coffee beans.' },
        },
      },
      { role: 'user', content: { type: 'text', text: 'Summarise the note above in detail.' } },
    ]);
    const brief = await client.getPrompt({ name: 'summarize', arguments: { noteId: '1' } });
    expect(brief.messages[1]!.content).toEqual({ type: 'text', text: 'Summarise the note above in one sentence.' });
  });

  it('answers a missing required argument, a bad value and an unknown prompt with -32602', async () => {
    const { client } = await shared();
    await expectMcpError(client.getPrompt({ name: 'summarize', arguments: {} }), ErrorCode.InvalidParams, /noteId/);
    await expectMcpError(client.getPrompt({ name: 'summarize', arguments: { noteId: '1', style: 'epic' } }), ErrorCode.InvalidParams, /style/);
    await expectMcpError(client.getPrompt({ name: 'summarize', arguments: { noteId: '77' } }), ErrorCode.InvalidParams, /No note 77/);
    await expectMcpError(client.getPrompt({ name: 'nope' }), ErrorCode.InvalidParams, /Unknown prompt: nope/);
  });
});

describe('completion/complete', () => {
  it('completes a prompt argument', async () => {
    const { client } = await shared();
    const style = await client.complete({ ref: { type: 'ref/prompt', name: 'summarize' }, argument: { name: 'style', value: 'd' } });
    expect(style.completion).toEqual({ values: ['detailed'], total: 1, hasMore: false });
    const ids = await client.complete({ ref: { type: 'ref/prompt', name: 'summarize' }, argument: { name: 'noteId', value: '' } });
    expect(ids.completion.values).toEqual(['1', '2', '3']);
  });

  it('completes a resource template variable, and rejects an unknown argument with -32602', async () => {
    const { client } = await shared();
    const tag = await client.complete({ ref: { type: 'ref/resource', uri: 'notes://tags/{tag}' }, argument: { name: 'tag', value: 'p' } });
    expect(tag.completion).toEqual({ values: ['planning'], total: 1, hasMore: false });
    const all = await client.complete({ ref: { type: 'ref/resource', uri: 'notes://tags/{tag}' }, argument: { name: 'tag', value: '' } });
    expect(all.completion.values).toEqual(['home', 'intro', 'planning', 'work']);
    const id = await client.complete({ ref: { type: 'ref/resource', uri: 'notes://notes/{id}' }, argument: { name: 'id', value: '3' } });
    expect(id.completion.values).toEqual(['3']);
    await expectMcpError(client.complete({ ref: { type: 'ref/resource', uri: 'notes://tags/{tag}' }, argument: { name: 'colour', value: '' } }), ErrorCode.InvalidParams, /colour/);
  });
});

describe('progress', () => {
  it('reports increasing progress with a total through onprogress', async () => {
    const { client, tap } = await connect(); // messages reach the SDK as its transport reads them: no workaround (see StdioTap)
    const seen: Progress[] = [];
    const result = (await client.callTool({ name: 'export', arguments: { format: 'markdown', delayMs: 10 } }, undefined, {
      onprogress: (p) => void seen.push(p),
    })) as CallToolResult;
    expect(seen).toEqual([
      { progress: 1, total: 3, message: 'exported Welcome' },
      { progress: 2, total: 3, message: 'exported Shopping' },
      { progress: 3, total: 3, message: 'exported Release plan' },
    ]);
    expect(textOf(result)).toBe(
      '# Welcome\n\nThis is the notes example served by mcpx.\n\n---\n\n# Shopping\n\nMilk, eggs, coffee beans.\n\n---\n\n# Release plan\n\nCut the release on Friday; write the changelog first.',
    );
    // The server echoed the SDK's progress token, and sent all progress before the response.
    const call = tap.outgoing().find((m) => m.method === 'tools/call')!;
    const token = call.params!._meta.progressToken;
    expect(token).toBeDefined();
    const progressIdx = tap.incoming().flatMap((m, i) => (m.method === 'notifications/progress' ? [i] : []));
    expect(progressIdx).toHaveLength(3);
    for (const i of progressIdx) expect(tap.incoming()[i]!.params!.progressToken).toBe(token);
    const responseIdx = tap.incoming().findIndex((m) => m.id === call.id);
    expect(Math.max(...progressIdx)).toBeLessThan(responseIdx);
    // Between them the server pinged, and answered only once the SDK had answered the ping
    // (proof that it had read the progress: the response cannot share that read).
    const ping = tap.wire.findIndex((w) => w.dir === 'in' && w.msg.method === 'ping');
    const pong = tap.wire.findIndex((w) => w.dir === 'out' && w.msg.id === tap.wire[ping]?.msg.id && w.msg.result !== undefined);
    const response = tap.wire.findIndex((w) => w.dir === 'in' && w.msg.id === call.id && w.msg.method === undefined);
    expect(ping).toBeGreaterThan(Math.max(...tap.wire.flatMap((w, i) => (w.msg.method === 'notifications/progress' ? [i] : []))));
    expect(pong).toBeGreaterThan(ping);
    expect(response).toBeGreaterThan(pong);
  });

  it('sends no progress when the request carries no progress token', async () => {
    const peer = await shared();
    const mark = peer.tap.incoming().length;
    const result = (await peer.client.callTool({ name: 'export', arguments: { format: 'json', delayMs: 0 } })) as CallToolResult;
    await settle(peer);
    expect(textOf(result).split('\n')).toHaveLength(3);
    expect(
      peer.tap
        .outgoing()
        .filter((m) => m.method === 'tools/call')
        .at(-1)!.params!._meta,
    ).toBeUndefined();
    expect(
      peer.tap
        .incoming()
        .slice(mark)
        .some((m) => m.method === 'notifications/progress'),
    ).toBe(false);
  });
});

describe('logging', () => {
  it('sends nothing until the client sets a level, then that level and above: info, everything at debug, warning and above at warning', async () => {
    const peer = await connect();
    const { client, logs } = peer;

    // No level set yet: neither search's debug line nor the create's info line is sent.
    await client.callTool({ name: 'search', arguments: { query: 'x' } });
    await client.callTool({ name: 'create', arguments: { title: 'Quiet', body: 'b' } });
    await settle(peer);
    expect(logs).toEqual([]);
    expect(peer.tap.incoming().filter((m) => m.method === 'notifications/message')).toEqual([]);
    await client.callTool({ name: 'delete', arguments: { id: '4' } });
    await settle(peer);
    expect(logs).toEqual([]);

    await client.setLoggingLevel('info');
    await client.callTool({ name: 'search', arguments: { query: 'x' } });
    await client.callTool({ name: 'create', arguments: { title: 'A', body: 'b' } });
    await settle(peer);
    expect(logs).toEqual([{ level: 'info', data: { message: 'note created', id: '5' } }]);
    logs.length = 0;

    await client.setLoggingLevel('debug');
    await client.callTool({ name: 'search', arguments: { query: 'milk' } });
    await client.callTool({ name: 'append', arguments: { id: '2', line: 'Bread' } });
    await client.callTool({ name: 'export', arguments: { format: 'json', delayMs: 0 } });
    await settle(peer);
    expect(logs).toEqual([
      { level: 'debug', data: { message: 'search', query: 'milk', hits: 1 } },
      { level: 'info', data: { message: 'note appended', id: '2' } },
      { level: 'notice', data: { message: 'export finished', notes: 4 } },
    ]);
    logs.length = 0;

    await client.setLoggingLevel('warning');
    await client.callTool({ name: 'search', arguments: { query: 'milk' } });
    await client.callTool({ name: 'create', arguments: { title: 'B', body: 'b' } });
    await client.callTool({ name: 'export', arguments: { format: 'json', delayMs: 0 } });
    await client.callTool({ name: 'delete', arguments: { id: '5' } });
    await settle(peer);
    expect(logs).toEqual([{ level: 'warning', data: { message: 'note deleted', id: '5' } }]);

    // A level that does not exist is a -32602 that lists the valid ones; the threshold stays.
    await expectMcpError(client.setLoggingLevel('loud' as 'debug'), ErrorCode.InvalidParams, /debug, info, notice, warning, error, critical, alert, emergency/);
    logs.length = 0;
    await client.callTool({ name: 'create', arguments: { title: 'C', body: 'b' } });
    await settle(peer);
    expect(logs).toEqual([]);
  });
});

describe('cancellation', () => {
  it('stops the slow export on AbortSignal, never answers it, and keeps serving', async () => {
    const peer = await connect();
    const { client, tap } = peer;
    const controller = new AbortController();
    const progress: Progress[] = [];
    let firstProgress!: () => void;
    const started = new Promise<void>((r) => (firstProgress = r));
    // The server is another process, so nothing can hold the export: its 1 s pause after the first note is
    // the margin the cancellation has to arrive in (it is sent the moment the first progress arrives).
    const call = client.callTool({ name: 'export', arguments: { format: 'markdown', delayMs: 1000 } }, undefined, {
      signal: controller.signal,
      onprogress: (p) => {
        progress.push(p);
        firstProgress();
      },
    });
    const outcome = call.then(
      () => 'resolved',
      (e: unknown) => e,
    );
    await started;
    controller.abort('user pressed stop');
    const err = await outcome;
    expect(err).not.toBe('resolved');
    expect(String(err)).toMatch(/user pressed stop/);

    // The SDK told the server, naming the request and the reason.
    const request = tap.outgoing().find((m) => m.method === 'tools/call')!;
    const cancelled = tap.outgoing().find((m) => m.method === 'notifications/cancelled')!;
    expect(cancelled.params).toEqual({ requestId: request.id, reason: 'user pressed stop' });

    // The operator's log on stderr (JSON lines; pino writes asynchronously) says when the server took the
    // cancellation, with the reason: from then on the export is stopped. The round trip after it brings in
    // everything the server wrote before.
    const cancelLine = () =>
      peer
        .stderr()
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => /cancel/i.test(String(l.msg)));
    for (const until = Date.now() + 10_000; !cancelLine() && Date.now() < until;) await new Promise((r) => setTimeout(r, 20));
    expect(cancelLine()).toMatchObject({ requestId: request.id, reason: 'user pressed stop' });
    await settle(peer);
    expect(tap.incoming().filter((m) => m.id === request.id)).toEqual([]);
    expect(progress).toEqual([{ progress: 1, total: 3, message: 'exported Welcome' }]);
    // No progress for it after the cancel, nor the "export finished" log line.
    expect(tap.incoming().filter((m) => m.method === 'notifications/progress')).toHaveLength(1);
    expect(peer.logs.filter((l) => (l.data as { message?: string }).message === 'export finished')).toEqual([]);

    // The server keeps serving, the same tool included.
    const again = (await client.callTool({ name: 'export', arguments: { format: 'json', delayMs: 0 } })) as CallToolResult;
    expect(again.isError).toBeFalsy();
    expect(textOf(again).split('\n')).toHaveLength(3);
    // Still no answer to the cancelled call, and no progress for it, after all that.
    expect(tap.incoming().filter((m) => m.id === request.id)).toEqual([]);
    expect(tap.incoming().filter((m) => m.method === 'notifications/progress')).toHaveLength(1);
  });
});

describe('notifications', () => {
  it('sends resources/list_changed when a note is created, not when one is only edited', async () => {
    const peer = await connect();
    const { client } = peer;
    let listChanged = 0;
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void listChanged++);

    await client.callTool({ name: 'append', arguments: { id: '1', line: 'more' } });
    await settle(peer);
    expect(listChanged).toBe(0);

    await client.callTool({ name: 'create', arguments: { title: 'New', body: 'text' } });
    await settle(peer);
    expect(listChanged).toBe(1);
    const uris: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor === undefined ? {} : { cursor });
      uris.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(uris).toContain('notes://notes/4');

    await client.callTool({ name: 'delete', arguments: { id: '4' } });
    await settle(peer);
    expect(listChanged).toBe(2);
    // The deleted note's URI is gone from both the resource list and the template.
    await expectMcpError(client.readResource({ uri: 'notes://notes/4' }), -32002, /notes:\/\/notes\/4/);
    expect((await client.listResources({ cursor: (await client.listResources()).nextCursor! })).resources.map((r) => r.uri)).not.toContain('notes://notes/4');
  });

  it('sends resources/updated for a subscribed note until unsubscribed', async () => {
    const peer = await connect();
    const { client } = peer;
    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));

    await expect(client.subscribeResource({ uri: 'notes://notes/2' })).resolves.toEqual({});
    await client.callTool({ name: 'append', arguments: { id: '2', line: 'Butter' } });
    await client.callTool({ name: 'append', arguments: { id: '1', line: 'not subscribed' } });
    await settle(peer);
    expect(updated).toEqual(['notes://notes/2']);
    const read = await client.readResource({ uri: 'notes://notes/2' });
    expect((read.contents[0] as { text: string }).text).toBe('# Shopping\n\nMilk, eggs, coffee beans.\nButter');

    await expect(client.unsubscribeResource({ uri: 'notes://notes/2' })).resolves.toEqual({});
    await client.callTool({ name: 'append', arguments: { id: '2', line: 'Jam' } });
    await settle(peer);
    expect(updated).toEqual(['notes://notes/2']);

    // Subscribing to a URI the server cannot read is a -32002.
    await expectMcpError(client.subscribeResource({ uri: 'notes://elsewhere' }), -32002, /notes:\/\/elsewhere/);
  });
});

describe('shutdown', () => {
  it('exits by itself when the client closes stdin', async () => {
    const peer = await connect();
    const { client, tap } = peer;
    let exited = false;
    const inner = tap.inner;
    const prev = inner.onclose;
    inner.onclose = () => {
      exited = true;
      prev?.();
    };
    await client.close();
    // StdioClientTransport.close ends stdin and escalates to SIGTERM only if the server has not exited 2 s
    // later: the server must not need that. On a signal it would log "stopping" with the signal.
    expect(exited).toBe(true);
    const lines = peer
      .stderr()
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.filter((l) => l.msg === 'stopping' || l.signal !== undefined)).toEqual([]);
  });
});
