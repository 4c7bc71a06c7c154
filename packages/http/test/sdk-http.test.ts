/**
 * Interoperation with the official TypeScript SDK client over Streamable HTTP: the real `Client`
 * with its `StreamableHTTPClientTransport` talks to the notes example served in-process by
 * `listen()` on a real port. The same feature suite runs in the four transport modes: stateful or
 * stateless, each answering requests with SSE streams or with single JSON bodies. Every list is
 * paginated (pageSize 2). A recording fetch keeps a copy of every HTTP exchange, so the tests also
 * check which connection each message rode (POST response or standalone GET stream).
 *
 * Where a mode cannot carry a feature, the test asserts what the server does instead:
 * - JSON responses carry only the response: in stateful JSON mode, progress and log lines of a
 *   request go to the session's standalone GET stream; in stateless JSON mode, nowhere.
 * - Stateless: every POST is a fresh session, so logging/setLevel, subscriptions and list_changed
 *   have no lasting effect, there is no GET stream (405) and no DELETE, and a cancellation
 *   notification cannot reach the request it names (that request runs in another session).
 */
import 'reflect-metadata';
import pino from 'pino';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema, type CallToolResult, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { listen, type McpHttpServer } from '@mcpx/http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NotesServer, SAMPLE_NOTES } from '../../../apps/example/src/notes-server';
import { NotesStore } from '../../../apps/example/src/notes-store';
import { allPages, connectPeer, expectMcpError, takeErrors, textOf, until, type Exchange, type Peer, type Wire } from './sdk-http-fixture';

interface Mode {
  name: string;
  options: { stateless?: boolean; jsonResponse?: boolean };
  stateful: boolean;
  json: boolean;
}

const MODES: Mode[] = [
  { name: 'stateful SSE', options: {}, stateful: true, json: false },
  { name: 'stateful JSON', options: { jsonResponse: true }, stateful: true, json: true },
  { name: 'stateless SSE', options: { stateless: true }, stateful: false, json: false },
  { name: 'stateless JSON', options: { stateless: true, jsonResponse: true }, stateful: false, json: true },
];

const SEEDED = [
  { id: '1', title: 'Welcome', tags: ['intro'] },
  { id: '2', title: 'Shopping', tags: ['home'] },
  { id: '3', title: 'Release plan', tags: ['work', 'planning'] },
];

const noteUri = (id: string) => `notes://notes/${id}`;

/** The example server, whose next export a test can hold after its first note until it opens the gate. */
class HeldNotes extends NotesServer {
  private hold?: { signal?: AbortSignal; opened: Promise<void> };

  /** The next export waits before its second note until the returned function is called. */
  holdExport(): () => void {
    let open!: () => void;
    this.hold = { opened: new Promise<void>((resolve) => (open = resolve)) };
    return open;
  }

  protected override pause(ms: number, signal: AbortSignal): Promise<void> {
    const hold = this.hold;
    if (hold && hold.signal === undefined)
      hold.signal = signal; // the held export's first note
    else if (hold && hold.signal === signal) {
      this.hold = undefined;
      return new Promise((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        void hold.opened.then(resolve);
      });
    }
    return super.pause(ms, signal);
  }
}

const POST_REQUESTS = (wire: Exchange[], method: string) => wire.filter((e) => e.method === 'POST' && e.request?.method === method);
const exchangeOf = (wire: Exchange[], id: Wire['id']) => wire.find((e) => e.method === 'POST' && e.request?.id === id && e.request?.method !== undefined);
const messagesOn = (wire: Exchange[], httpMethod: string) => wire.filter((e) => e.method === httpMethod).flatMap((e) => e.messages);

describe.each(MODES)('the SDK client over Streamable HTTP, $name', (mode) => {
  let server: McpHttpServer;
  let notesServer: HeldNotes;
  let dataDir: string;
  const peers: Peer[] = [];

  const connect = async (): Promise<Peer> => {
    const peer = await connectPeer(server.url);
    peers.push(peer);
    return peer;
  };

  /** Creates a note and returns its id (from the resource_link). */
  const createNote = async (peer: Peer, title: string, body = 'b'): Promise<string> => {
    const result = (await peer.client.callTool({ name: 'create', arguments: { title, body } })) as CallToolResult;
    const link = result.content.find((c) => c.type === 'resource_link') as { uri: string };
    return link.uri.slice(noteUri('').length);
  };

  /** The notes the server holds now, from notes://index. */
  const indexOf = async (client: Client): Promise<{ id: string; title: string; tags: string[] }[]> => {
    const read = await client.readResource({ uri: 'notes://index' });
    return JSON.parse((read.contents[0] as { text: string }).text);
  };

  /** Requests in flight on the server (stateless: each exchange is a session of one request). */
  const inFlight = () => (mode.stateful ? server.endpoint.sessions.requestsInFlight : server.engine.sessionCount);

  beforeAll(async () => {
    // A data folder of its own: every mode starts from the three seeded notes.
    dataDir = mkdtempSync(join(tmpdir(), 'mcpx-notes-'));
    notesServer = new HeldNotes(new NotesStore({ dir: dataDir, seed: SAMPLE_NOTES }));
    server = await listen(notesServer, { port: 0, handleSignals: false, logger: pino({ level: 'silent' }), pageSize: 2, ...mode.options });
  });

  afterEach(async () => {
    // Every peer must have seen only expected traffic (tests take the errors they expect).
    const all = peers.splice(0);
    const errors = all.flatMap((p) => p.errors.map(String));
    await Promise.all(all.map((p) => p.client.close()));
    expect(errors).toEqual([]);
  });

  afterAll(async () => {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('initializes: serverInfo, instructions, capabilities, 2025-11-25 and the session id', async () => {
    const { client, transport, wire } = await connect();
    expect(client.getServerVersion()).toEqual({
      name: 'mcpx-notes',
      title: 'Notes',
      version: '0.1.0',
      description: 'Create, search and read short Markdown notes.',
    });
    expect(client.getInstructions()).toBe('Use search to find notes, then read notes://notes/{id} for the full text.');
    // Stateless sessions cannot hear anything outside their own requests: no list_changed, no subscriptions.
    const live = mode.stateful;
    expect(client.getServerCapabilities()).toEqual({
      logging: {},
      completions: {},
      prompts: { listChanged: live },
      resources: { subscribe: live, listChanged: live },
      tools: { listChanged: live },
      // export can run as a task; tasks outlive a request, so only stateful sessions are offered them.
      ...(live ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {}),
      // Its skill (Skills) and its board (MCP Apps), where clients of both eras read them.
      extensions: { 'io.modelcontextprotocol/skills': { directoryRead: true }, 'io.modelcontextprotocol/ui': {} },
    });
    expect(transport.protocolVersion).toBe('2025-11-25');

    const [init] = POST_REQUESTS(wire, 'initialize');
    expect(init!.status).toBe(200);
    await until(() => init!.closed, 'the initialize response to end');
    expect(init!.messages).toEqual([expect.objectContaining({ id: init!.request!.id, result: expect.objectContaining({ protocolVersion: '2025-11-25' }) })]);
    const [initialized] = POST_REQUESTS(wire, 'notifications/initialized');
    expect(initialized!.status).toBe(202);
    const get = wire.find((e) => e.method === 'GET')!;

    // A request's answer: an SSE stream or one JSON body, as the mode says.
    await expect(client.ping()).resolves.toEqual({});
    const ping = POST_REQUESTS(wire, 'ping')[0]!;
    await until(() => ping.closed, 'the ping response to end');
    expect(ping.headers.get('content-type')).toMatch(mode.json ? /^application\/json/ : /^text\/event-stream/);
    expect(ping.messages).toEqual([{ jsonrpc: '2.0', id: ping.request!.id, result: {} }]);
    expect(ping.requestHeaders.get('mcp-protocol-version')).toBe('2025-11-25');

    if (mode.stateful) {
      const id = transport.sessionId!;
      expect(id).toMatch(/^[\x21-\x7e]{16,}$/);
      // The session id came on the initialize response (always JSON: the id exists only once the session does)...
      expect(init!.headers.get('mcp-session-id')).toBe(id);
      expect(init!.headers.get('content-type')).toMatch(/^application\/json/);
      expect(server.endpoint.sessions.get(id)).toBeDefined();
      // ...and the SDK sent it on every later request, the GET included.
      for (const e of wire.filter((x) => x !== init)) expect(e.requestHeaders.get('mcp-session-id')).toBe(id);
      // The standalone GET stream is open and primed for resumption.
      expect(get.status).toBe(200);
      expect(get.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(get.events[0]).toEqual({ id: '0_0', retry: 1000, data: '' });
      if (!mode.json) expect(ping.events[0]).toEqual({ id: expect.stringMatching(/^[1-9]\d*_0$/), retry: 1000, data: '' });
    } else {
      expect(transport.sessionId).toBeUndefined();
      for (const e of wire) {
        expect(e.headers.get('mcp-session-id')).toBeNull();
        expect(e.requestHeaders.get('mcp-session-id')).toBeNull();
      }
      expect(init!.headers.get('content-type')).toMatch(mode.json ? /^application\/json/ : /^text\/event-stream/);
      // No sessions: no GET stream (405, which the SDK accepts quietly), no resumable events.
      expect(get.status).toBe(405);
      expect(get.headers.get('allow')).toBe('POST');
      if (!mode.json) expect(ping.events.every((e) => e.id === undefined)).toBe(true);
      // Each exchange's session ended with it.
      expect(server.endpoint.sessions.size).toBe(0);
      await until(() => server.engine.sessionCount === 0, 'stateless sessions to close');
    }
  });

  it('walks every list page by page: tools, resources, templates, prompts; rejects a foreign cursor', async () => {
    const { client } = await connect();
    const toolPages = await allPages(
      (cursor) => client.listTools(cursor === undefined ? {} : { cursor }),
      (p) => p.tools.map((t) => t.name),
    );
    expect(toolPages).toEqual([['create', 'search'], ['delete', 'append'], ['export']]);

    const resourcePages = await allPages(
      (cursor) => client.listResources(cursor === undefined ? {} : { cursor }),
      (p) => p.resources.map((r) => r.uri),
    );
    expect(resourcePages.length).toBeGreaterThanOrEqual(2);
    expect(resourcePages[0]).toEqual(['notes://index', 'notes://notes/1']);
    for (const page of resourcePages.slice(0, -1)) expect(page).toHaveLength(2);
    expect(resourcePages.at(-1)!.length).toBeGreaterThanOrEqual(1);
    // Together the pages list the index and every note, each once, in order.
    const notes = await indexOf(client);
    expect(resourcePages.flat()).toEqual(['notes://index', ...notes.map((n) => noteUri(n.id))]);
    const second = await client.listResources({ cursor: (await client.listResources()).nextCursor! });
    expect(second.resources[0]).toEqual({ uri: 'notes://notes/2', name: 'note-2', title: 'Shopping', mimeType: 'text/markdown' });

    const templates = await allPages(
      (cursor) => client.listResourceTemplates(cursor === undefined ? {} : { cursor }),
      (p) => p.resourceTemplates,
    );
    expect(templates).toEqual([
      [
        { uriTemplate: 'notes://notes/{id}', name: 'note', title: 'A note', description: 'One note as Markdown', mimeType: 'text/markdown' },
        { uriTemplate: 'notes://tags/{tag}', name: 'tag', title: 'Notes with a tag', mimeType: 'application/json' },
      ],
      [
        {
          uriTemplate: 'skill://{+path}',
          name: 'io.modelcontextprotocol/skills',
          title: 'Skills',
          description: 'The files of the skills this server serves (1; skills/list lists them)',
        },
      ],
    ]);
    const prompts = await allPages(
      (cursor) => client.listPrompts(cursor === undefined ? {} : { cursor }),
      (p) => p.prompts,
    );
    expect(prompts).toEqual([
      [
        {
          name: 'summarize',
          title: 'Summarise a note',
          description: 'Asks the model to summarise one note.',
          arguments: [
            { name: 'noteId', description: 'Id of the note to summarise', required: true },
            { name: 'style', description: 'Summary style: brief or detailed', required: false },
          ],
        },
      ],
    ]);

    await expectMcpError(client.listTools({ cursor: 'not-a-cursor' }), ErrorCode.InvalidParams, /cursor/i);
    const resourcesCursor = (await client.listResources()).nextCursor!;
    await expectMcpError(client.listTools({ cursor: resourcesCursor }), ErrorCode.InvalidParams, /cursor/i);
  });

  it('tools/call: text plus a readable resource_link, and structuredContent the SDK validates against outputSchema', async () => {
    const { client } = await connect();
    const created = (await client.callTool({ name: 'create', arguments: { title: 'Groceries', body: 'Tea', tags: ['home'] } })) as CallToolResult;
    expect(created.isError).toBeFalsy();
    const link = created.content[1] as { type: string; uri: string };
    const id = link.uri.slice(noteUri('').length);
    expect(created.content).toEqual([
      { type: 'text', text: `Created note ${id}.` },
      { type: 'resource_link', uri: noteUri(id), name: 'Groceries', mimeType: 'text/markdown' },
    ]);
    const read = await client.readResource({ uri: link.uri });
    expect(read.contents).toEqual([{ uri: noteUri(id), mimeType: 'text/markdown', text: '# Groceries\n\nTea' }]);

    // listTools caches output validators for the page it got: the first page holds search.
    const tools = await client.listTools();
    const search = tools.tools.find((t) => t.name === 'search')!;
    expect(search.outputSchema).toMatchObject({ type: 'object', required: ['notes', 'total'] });
    const validatorOf = (client as unknown as { getToolOutputValidator(name: string): unknown }).getToolOutputValidator.bind(client);
    expect(validatorOf('search')).toEqual(expect.any(Function));

    const result = (await client.callTool({ name: 'search', arguments: { query: 'the', limit: 1 } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ notes: [{ id: '1', title: 'Welcome', tags: ['intro'] }], total: 2 });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    const byTag = (await client.callTool({ name: 'search', arguments: { query: 'e', tag: 'work' } })) as CallToolResult;
    expect(byTag.structuredContent).toEqual({ notes: [{ id: '3', title: 'Release plan', tags: ['work', 'planning'] }], total: 1 });
  });

  it('answers invalid arguments with isError naming each field; a failing tool with isError; an unknown tool with -32602', async () => {
    const { client } = await connect();
    await client.listTools(); // search's output validator must not trip on an error result
    const before = (await indexOf(client)).length;
    const bad = (await client.callTool({ name: 'create', arguments: { title: '', body: 5, tags: ['Not OK'] } })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toBeUndefined();
    expect(textOf(bad)).toMatch(/^Invalid arguments:/);
    for (const field of ['title', 'body', 'tags']) expect(textOf(bad)).toMatch(new RegExp(`- ${field}: `));

    const badSearch = (await client.callTool({ name: 'search', arguments: { limit: 0, extra: true } })) as CallToolResult;
    expect(badSearch.isError).toBe(true);
    expect(textOf(badSearch)).toMatch(/- query: /);
    expect(textOf(badSearch)).toMatch(/- limit: /);
    expect(textOf(badSearch)).toMatch(/extra/);
    const badExport = (await client.callTool({ name: 'export', arguments: { format: 'pdf' } })) as CallToolResult;
    expect(badExport.isError).toBe(true);
    expect(textOf(badExport)).toMatch(/- format: /);
    // Nothing was created by the failed call.
    expect(await indexOf(client)).toHaveLength(before);

    expect(await client.callTool({ name: 'append', arguments: { id: '42', line: 'x' } })).toEqual({ content: [{ type: 'text', text: 'No note 42' }], isError: true });
    expect(await client.callTool({ name: 'delete', arguments: { id: '42' } })).toEqual({ content: [{ type: 'text', text: 'No note 42.' }], isError: true });
    await expectMcpError(client.callTool({ name: 'nope', arguments: {} }), ErrorCode.InvalidParams, /Unknown tool: nope/);
  });

  it('resources/read: the fixed resource and both templates; an unknown URI is -32002 with the uri', async () => {
    const { client } = await connect();
    const index = await client.readResource({ uri: 'notes://index' });
    expect(index.contents).toHaveLength(1);
    expect(index.contents[0]).toMatchObject({ uri: 'notes://index', mimeType: 'application/json' });
    expect(JSON.parse((index.contents[0] as { text: string }).text).slice(0, 3)).toEqual(SEEDED);

    const note = await client.readResource({ uri: 'notes://notes/2' });
    expect(note.contents).toEqual([{ uri: 'notes://notes/2', mimeType: 'text/markdown', text: '# Shopping\n\nMilk, eggs, coffee beans.' }]);
    const tagged = await client.readResource({ uri: 'notes://tags/planning' });
    expect(tagged.contents[0]).toMatchObject({ uri: 'notes://tags/planning', mimeType: 'application/json' });
    expect(JSON.parse((tagged.contents[0] as { text: string }).text)).toEqual([{ id: '3', title: 'Release plan' }]);
    const none = await client.readResource({ uri: 'notes://tags/nothing' });
    expect(JSON.parse((none.contents[0] as { text: string }).text)).toEqual([]);

    const err = await expectMcpError(client.readResource({ uri: 'notes://notes/999' }), -32002, /notes:\/\/notes\/999/);
    expect(err.data).toEqual({ uri: 'notes://notes/999' });
    await expectMcpError(client.readResource({ uri: 'https://example.com/x' }), -32002, /Resource not found/);
  });

  it('prompts/get returns the embedded note and the instruction; bad arguments and unknown prompts are -32602', async () => {
    const { client } = await connect();
    const result = await client.getPrompt({ name: 'summarize', arguments: { noteId: '2', style: 'detailed' } });
    expect(result.description).toBe('Summary of "Shopping"');
    expect(result.messages).toEqual([
      {
        role: 'user',
        content: { type: 'resource', resource: { uri: 'notes://notes/2', mimeType: 'text/markdown', text: '# Shopping\n\nMilk, eggs, coffee beans.' } },
      },
      { role: 'user', content: { type: 'text', text: 'Summarise the note above in detail.' } },
    ]);
    const brief = await client.getPrompt({ name: 'summarize', arguments: { noteId: '1' } });
    expect(brief.messages[1]!.content).toEqual({ type: 'text', text: 'Summarise the note above in one sentence.' });

    await expectMcpError(client.getPrompt({ name: 'summarize', arguments: {} }), ErrorCode.InvalidParams, /noteId/);
    await expectMcpError(client.getPrompt({ name: 'summarize', arguments: { noteId: '1', style: 'epic' } }), ErrorCode.InvalidParams, /style/);
    await expectMcpError(client.getPrompt({ name: 'summarize', arguments: { noteId: '77' } }), ErrorCode.InvalidParams, /No note 77/);
    await expectMcpError(client.getPrompt({ name: 'nope' }), ErrorCode.InvalidParams, /Unknown prompt: nope/);
  });

  it('completion/complete: prompt arguments and template variables; an unknown argument is -32602', async () => {
    const { client } = await connect();
    const style = await client.complete({ ref: { type: 'ref/prompt', name: 'summarize' }, argument: { name: 'style', value: 'd' } });
    expect(style.completion).toEqual({ values: ['detailed'], total: 1, hasMore: false });
    const ids = await client.complete({ ref: { type: 'ref/prompt', name: 'summarize' }, argument: { name: 'noteId', value: '' } });
    expect(ids.completion.values).toEqual((await indexOf(client)).map((n) => n.id));
    const tag = await client.complete({ ref: { type: 'ref/resource', uri: 'notes://tags/{tag}' }, argument: { name: 'tag', value: 'p' } });
    expect(tag.completion).toEqual({ values: ['planning'], total: 1, hasMore: false });
    const id = await client.complete({ ref: { type: 'ref/resource', uri: 'notes://notes/{id}' }, argument: { name: 'id', value: '3' } });
    expect(id.completion.values).toEqual(['3']);
    await expectMcpError(client.complete({ ref: { type: 'ref/resource', uri: 'notes://tags/{tag}' }, argument: { name: 'colour', value: '' } }), ErrorCode.InvalidParams, /colour/);
  });

  it('reports progress of the slow export on its own stream (SSE), and not at all in JSON mode, where it has no stream of its own', async () => {
    const peer = await connect();
    const { client, wire } = peer;
    // The export's closing log line (notice) marks below where its progress would have been.
    if (mode.stateful) await client.setLoggingLevel('notice');
    const notes = await indexOf(peer.client);
    const expected: Progress[] = notes.map((n, i) => ({ progress: i + 1, total: notes.length, message: `exported ${n.title}` }));
    const seen: Progress[] = [];
    const result = (await client.callTool({ name: 'export', arguments: { format: 'markdown', delayMs: 20 } }, undefined, {
      onprogress: (p) => void seen.push(p),
    })) as CallToolResult;
    expect(textOf(result).startsWith('# Welcome\n\nThis is the notes example served by mcpx.\n\n---\n\n# Shopping')).toBe(true);
    expect(textOf(result).split('\n\n---\n\n')).toHaveLength(notes.length);

    const call = POST_REQUESTS(wire, 'tools/call').at(-1)!;
    const token = call.request!.params!._meta.progressToken;
    expect(token).toBeDefined();
    await until(() => call.closed, 'the export response to end');
    const onPost = call.messages.filter((m) => m.method === 'notifications/progress');
    const onGet = () => messagesOn(wire, 'GET').filter((m) => m.method === 'notifications/progress');

    if (!mode.json) {
      // SSE: every progress notification rides the request's own stream, before its response.
      expect(seen).toEqual(expected);
      expect(onPost.map((m) => m.params)).toEqual(expected.map((p) => ({ progressToken: token, ...p })));
      expect(call.messages.at(-1)).toMatchObject({ id: call.request!.id, result: expect.any(Object) });
      expect(onGet()).toEqual([]);
    } else {
      // JSON: the POST carries the response alone, and progress has no stream of the request's own to
      // ride. The session's GET stream carries only what concerns no running request (the spec's
      // SHOULD), so progress is not sent at all (docs/transports.md); stateless has no GET stream.
      expect(seen).toEqual([]);
      expect(call.messages).toEqual([expect.objectContaining({ id: call.request!.id, result: expect.any(Object) })]);
      expect(onGet()).toEqual([]);
      if (!mode.stateful) expect(wire.filter((e) => e.method === 'GET').every((e) => e.status === 405)).toBe(true);
    }

    // Without a progress token, no progress is sent anywhere.
    const getBefore = onGet().length;
    await client.callTool({ name: 'export', arguments: { format: 'json', delayMs: 0 } });
    const plain = POST_REQUESTS(wire, 'tools/call').at(-1)!;
    expect(plain.request!.params!._meta).toBeUndefined();
    await until(() => plain.closed, 'the second export response to end');
    // Stateful: its closing log line (notice) travels where progress would have, after it: once it is
    // in, so would progress be. Stateless: the level set by no request survives it, so no log lines;
    // over SSE anything the call sent came before its response on the stream that just ended.
    const finished = () => peer.logs.filter((l) => (l.data as { message?: string }).message === 'export finished').length;
    if (mode.stateful) await until(() => finished() === 2, "both exports' closing log lines");
    else expect(finished()).toBe(0);
    expect(plain.messages.filter((m) => m.method === 'notifications/progress')).toEqual([]);
    expect(onGet()).toHaveLength(getBefore);
  });

  it('logs to the client only once it asked for a level (stateful); stateless sessions forget the level', async () => {
    const peer = await connect();
    const { client, logs } = peer;
    // Stateful JSON: log lines ride the GET stream, so wait for the last expected one; it was sent
    // after every line the calls before it could have produced.
    const expectLogs = async (expected: unknown[]) => {
      await until(() => logs.length >= expected.length, `${expected.length} log lines`);
      await client.ping();
      expect(logs).toEqual(expected);
      logs.length = 0;
    };

    // No level asked for yet: no log notifications at all (the first line below proves it, in order).
    await client.callTool({ name: 'search', arguments: { query: 'x' } }); // logs at debug
    const silent = await createNote(peer, 'silent'); // logs at info

    if (mode.stateful) {
      await expect(client.setLoggingLevel('info')).resolves.toEqual({});
      const a = await createNote(peer, 'A');
      await expectLogs([{ level: 'info', data: { message: 'note created', id: a } }]);
      expect(silent).not.toBe(a);
      await expect(client.setLoggingLevel('debug')).resolves.toEqual({});
      await client.callTool({ name: 'search', arguments: { query: 'milk' } });
      await client.callTool({ name: 'append', arguments: { id: a, line: 'more' } });
      await client.callTool({ name: 'export', arguments: { format: 'json', delayMs: 0 } });
      const count = (await indexOf(peer.client)).length;
      await expectLogs([
        { level: 'debug', data: { message: 'search', query: 'milk', hits: 1 } },
        { level: 'info', data: { message: 'note appended', id: a } },
        { level: 'notice', data: { message: 'export finished', notes: count } },
      ]);

      await expect(client.setLoggingLevel('warning')).resolves.toEqual({});
      await client.callTool({ name: 'search', arguments: { query: 'milk' } });
      const b = await createNote(peer, 'B');
      await client.callTool({ name: 'export', arguments: { format: 'json', delayMs: 0 } });
      await client.callTool({ name: 'delete', arguments: { id: b } });
      await expectLogs([{ level: 'warning', data: { message: 'note deleted', id: b } }]);
      // Levels are per session, and a request's lines go to its caller only: a second client gets
      // nothing until it asks, then lines at its own level.
      const other = await connect();
      await createNote(other, 'C');
      await expect(other.client.setLoggingLevel('info')).resolves.toEqual({});
      const d = await createNote(other, 'D');
      await until(() => other.logs.length === 1, "the second client's info line");
      expect(other.logs).toEqual([{ level: 'info', data: { message: 'note created', id: d } }]);
      await client.ping();
      expect(logs).toEqual([]);
    } else {
      // Stateless: setLevel is answered, but the session it set ends with that exchange: the next
      // request runs in a fresh session with no level again, so no log lines ever reach the client.
      await expect(client.setLoggingLevel('debug')).resolves.toEqual({});
      await client.callTool({ name: 'search', arguments: { query: 'milk' } });
      await client.callTool({ name: 'append', arguments: { id: silent, line: 'more' } });
      await client.ping();
      expect(logs).toEqual([]);
      expect(peer.wire.flatMap((e) => e.messages).filter((m) => m.method === 'notifications/message')).toEqual([]);
    }

    // A level that does not exist is a -32602 that lists the valid ones.
    await expectMcpError(client.setLoggingLevel('loud' as 'debug'), ErrorCode.InvalidParams, /debug, info, notice, warning, error, critical, alert, emergency/);
  });

  it('cancels the slow export on AbortSignal: stopped at once (stateful), run to its end (stateless); the next call works', async () => {
    const peer = await connect();
    const { client, wire } = peer;
    const notes = await indexOf(peer.client);
    const controller = new AbortController();
    const progress: Progress[] = [];
    // The export waits after its first note until the gate opens: it is still running when the cancellation comes.
    const openGate = notesServer.holdExport();
    const call = client
      .callTool({ name: 'export', arguments: { format: 'markdown', delayMs: 1 } }, undefined, {
        signal: controller.signal,
        onprogress: (p) => void progress.push(p),
      })
      .then(
        () => 'resolved',
        (e: unknown) => e,
      );
    await until(() => inFlight() === 1, 'the export to be running on the server');
    // Where progress can reach the client (SSE), wait for the first one: the export is under way.
    if (!mode.json) await until(() => progress.length === 1, 'the first progress');
    controller.abort('user pressed stop');
    const err = await call;
    expect(err).not.toBe('resolved');
    expect(String(err)).toMatch(/user pressed stop/);

    // The SDK told the server, naming the request and the reason; the server accepted it.
    const request = POST_REQUESTS(wire, 'tools/call').at(-1)!.request!;
    await until(() => POST_REQUESTS(wire, 'notifications/cancelled')[0]?.status === 202, 'the cancellation POST to be answered');
    const [cancelled] = POST_REQUESTS(wire, 'notifications/cancelled');
    expect(cancelled!.request!.params).toEqual({ requestId: request.id, reason: 'user pressed stop' });
    expect(cancelled!.status).toBe(202);

    if (mode.stateful) {
      // The export stopped at once: nothing is in flight, no response was sent, no progress after the first.
      await until(() => inFlight() === 0, 'the export to stop');
      const exchange = exchangeOf(wire, request.id);
      if (mode.json) {
        // JSON: the exchange still has to end: 202, no body.
        await until(() => exchange!.status !== 0, 'the export POST to be answered');
        expect(exchange!.status).toBe(202);
        expect(exchange!.messages).toEqual([]);
      } else {
        // SSE: no response is sent, and the stream is not ended either (a stream that ends without its
        // response makes the SDK resume it in a loop): it stays open until the client lets go of it.
        expect(exchange!.messages.filter((m) => m.id === request.id)).toEqual([]);
        expect(exchange!.closed).toBe(false);
        // It is resumable meanwhile: from its priming id, a client gets the one progress.
        const priming = exchange!.events[0]!.id!;
        expect(priming).toMatch(/^\d+_0$/);
        const abort = new AbortController();
        const resumed = await fetch(server.url, {
          signal: abort.signal,
          headers: {
            accept: 'text/event-stream',
            'mcp-session-id': peer.transport.sessionId!,
            'mcp-protocol-version': '2025-11-25',
            'last-event-id': priming,
          },
        });
        expect(resumed.status).toBe(200);
        const reader = resumed.body!.getReader();
        let replay = '';
        while (!replay.includes('"method":"notifications/progress"')) replay += new TextDecoder().decode((await reader.read()).value);
        abort.abort();
        expect(replay).toContain(`id: ${priming.replace(/_0$/, '_1')}\n`);
        expect(replay).not.toContain(`"id":${JSON.stringify(request.id)}`);
      }
      await client.ping();
      // SSE: the one progress sent before the cancellation; JSON: none (no stream of the request's own).
      const sent = mode.json ? [] : [{ progress: 1, total: notes.length, message: 'exported Welcome' }];
      expect(progress).toEqual(sent);
      const allProgress = wire.flatMap((e) => e.messages).filter((m) => m.method === 'notifications/progress');
      expect(allProgress).toHaveLength(sent.length);
      expect(peer.logs.filter((l) => (l.data as { message?: string }).message === 'export finished')).toEqual([]);
    } else {
      // Stateless: the cancellation arrives in a session of its own, which has no such request:
      // the export runs to its end and its response reaches the SDK after the SDK gave up on it.
      expect(inFlight()).toBe(1);
      openGate();
      await until(() => inFlight() === 0, 'the export to finish');
      await until(() => peer.errors.some((e) => /unknown message ID/.test(String(e))), 'the late response');
      const exchange = exchangeOf(wire, request.id)!;
      await until(() => exchange.closed, 'the export exchange to end');
      expect(exchange.status).toBe(200);
      expect(exchange.messages.at(-1)).toMatchObject({ id: request.id, result: { content: [{ type: 'text' }] } });
      expect(takeErrors(peer.errors, /unknown message ID/)).toHaveLength(1);
      if (!mode.json) {
        // Every progress after the first was also sent, and reported by the SDK as for a forgotten token.
        expect(exchange.messages.filter((m) => m.method === 'notifications/progress')).toHaveLength(notes.length);
        expect(takeErrors(peer.errors, /progress notification for an unknown token/)).toHaveLength(notes.length - 1);
      }
    }

    // The server keeps serving, the same tool included.
    const again = (await client.callTool({ name: 'export', arguments: { format: 'json', delayMs: 0 } })) as CallToolResult;
    expect(again.isError).toBeFalsy();
    expect(textOf(again).split('\n')).toHaveLength(notes.length);
  });

  it('sends resources/list_changed on the GET stream when a note is created or deleted (stateful; stateless: never)', async () => {
    const peer = await connect();
    const { client, wire } = peer;
    const events: string[] = [];
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void events.push('list_changed'));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void events.push(`updated ${n.params.uri}`));
    const x = await createNote(peer, 'Listed');

    if (!mode.stateful) {
      // No GET stream and nothing but responses on the POSTs: the notification cannot be delivered.
      await client.ping();
      expect(events).toEqual([]);
      expect(wire.flatMap((e) => e.messages).filter((m) => m.method?.startsWith('notifications/resources/'))).toEqual([]);
      // The new note is listed all the same.
      const uris = (
        await allPages(
          (cursor) => client.listResources(cursor === undefined ? {} : { cursor }),
          (p) => p.resources.map((r) => r.uri),
        )
      ).flat();
      expect(uris).toContain(noteUri(x));
      return;
    }

    await until(() => events.length === 1, 'list_changed after create');
    expect(events).toEqual(['list_changed']);
    // Editing a note does not change the list. resources/updated of a subscribed note (sent after
    // anything the edit caused) marks where the answer would have been.
    await client.subscribeResource({ uri: noteUri(x) });
    await client.callTool({ name: 'append', arguments: { id: x, line: 'edited' } });
    const y = await createNote(peer, 'Also listed');
    await client.callTool({ name: 'append', arguments: { id: x, line: 'marker' } });
    await until(() => events.length >= 4, 'four notifications');
    await client.ping();
    expect(events).toEqual(['list_changed', `updated ${noteUri(x)}`, 'list_changed', `updated ${noteUri(x)}`]);

    const uris = (
      await allPages(
        (cursor) => client.listResources(cursor === undefined ? {} : { cursor }),
        (p) => p.resources.map((r) => r.uri),
      )
    ).flat();
    expect(uris).toEqual(expect.arrayContaining([noteUri(x), noteUri(y)]));
    await client.callTool({ name: 'delete', arguments: { id: y } });
    await until(() => events.length === 5, 'list_changed after delete');
    expect(events[4]).toBe('list_changed');
    await expectMcpError(client.readResource({ uri: noteUri(y) }), -32002, new RegExp(noteUri(y)));

    // All of them rode the standalone GET stream, none a POST response.
    const onGet = messagesOn(wire, 'GET').filter((m) => m.method?.startsWith('notifications/resources/'));
    expect(onGet.map((m) => m.method)).toEqual([
      'notifications/resources/list_changed',
      'notifications/resources/updated',
      'notifications/resources/list_changed',
      'notifications/resources/updated',
      'notifications/resources/list_changed',
    ]);
    expect(messagesOn(wire, 'POST').filter((m) => m.method?.startsWith('notifications/resources/'))).toEqual([]);
    // The GET stream's events carry resumable ids on stream 0, in sequence.
    const get = wire.find((e) => e.method === 'GET')!;
    const ids = get.events.filter((e) => e.data !== '').map((e) => e.id);
    expect(ids).toEqual(ids.map((_, i) => `0_${i + 1}`));
  });

  it('sends resources/updated to subscribers only, until they unsubscribe (stateful; stateless: never)', async () => {
    const peer = await connect();
    const { client, wire } = peer;
    const events: string[] = [];
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void events.push('list_changed'));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void events.push(`updated ${n.params.uri}`));
    const x = await createNote(peer, 'Watched', 'Milk');
    const z = await createNote(peer, 'Unwatched');
    if (mode.stateful) {
      await until(() => events.length === 2, 'list_changed for both creates');
      events.length = 0;
    }

    if (!mode.stateful) {
      // Stateless: subscriptions are not offered (nothing could deliver the updates): -32601.
      await expectMcpError(client.subscribeResource({ uri: noteUri(x) }), -32601, /resources\/subscribe/);
      await client.ping();
      expect(events).toEqual([]);
      return;
    }
    await expect(client.subscribeResource({ uri: noteUri(x) })).resolves.toEqual({});
    await client.callTool({ name: 'append', arguments: { id: x, line: 'Butter' } });
    await client.callTool({ name: 'append', arguments: { id: z, line: 'not subscribed' } });
    await expect(client.unsubscribeResource({ uri: noteUri(x) })).resolves.toEqual({});
    await client.callTool({ name: 'append', arguments: { id: x, line: 'Jam' } });
    const read = await client.readResource({ uri: noteUri(x) });
    expect((read.contents[0] as { text: string }).text).toBe('# Watched\n\nMilk\nButter\nJam');
    // Subscribing to a URI the server cannot read is -32002.
    await expectMcpError(client.subscribeResource({ uri: 'notes://elsewhere' }), -32002, /notes:\/\/elsewhere/);

    // A create afterwards (list_changed on the same GET stream) marks the end.
    await createNote(peer, 'Marker');
    await until(() => events.includes('list_changed'), 'the marker list_changed');
    expect(events).toEqual([`updated ${noteUri(x)}`, 'list_changed']);
    expect(
      messagesOn(wire, 'GET')
        .filter((m) => m.method === 'notifications/resources/updated')
        .map((m) => m.params),
    ).toEqual([{ uri: noteUri(x) }]);
  });

  it('DELETE ends the session; the old session id then gets 404 (stateful); stateless has nothing to delete', async () => {
    const peer = await connect();
    const { client, transport, wire } = peer;
    if (!mode.stateful) {
      // No session id: the SDK sends no DELETE at all, and a DELETE sent anyway is 405.
      await transport.terminateSession();
      expect(wire.filter((e) => e.method === 'DELETE')).toEqual([]);
      const res = await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': 'whatever' } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      const body = await res.json();
      expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
      expect(body).not.toHaveProperty('id');
      await expect(client.ping()).resolves.toEqual({});
      return;
    }

    const id = transport.sessionId!;
    expect(server.endpoint.sessions.get(id)).toBeDefined();
    const get = wire.find((e) => e.method === 'GET')!;
    expect(get.closed).toBe(false);
    await transport.terminateSession();
    // Closing right away: the SDK would otherwise try to reopen the GET stream the server just ended.
    await client.close();
    const del = wire.find((e) => e.method === 'DELETE')!;
    expect(del.status).toBe(200);
    expect(del.requestHeaders.get('mcp-session-id')).toBe(id);
    expect(transport.sessionId).toBeUndefined();
    expect(server.endpoint.sessions.get(id)).toBeUndefined();
    await until(() => get.closed, 'the GET stream to end');

    // A client that reuses the old id (connect() skips initialize when given one) gets 404.
    const stale = await connectPeer(server.url, id);
    peers.push(stale);
    const failure = await stale.client.ping().then(
      () => 'resolved',
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(StreamableHTTPError);
    expect((failure as StreamableHTTPError).code).toBe(404);
    expect(String(failure)).toMatch(/Session not found/);
    expect(stale.wire.map((e) => [e.method, e.status, e.requestHeaders.get('mcp-session-id')])).toEqual([['POST', 404, id]]);
    expect(takeErrors(stale.errors, /Session not found/)).toHaveLength(1);
    // DELETE of an unknown session is 404 too.
    const again = await fetch(server.url, { method: 'DELETE', headers: { 'mcp-session-id': id } });
    expect(again.status).toBe(404);
  });
});
