import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { connect, quietOptions, rpcErrorOf } from '@mcpx/testing';
import { listen } from '@mcpx/http';
import { TeamServer } from '../../../docs/examples/tools-input';
import { WeatherServer } from '../../../docs/examples/tools-output-class';
import { CalcServer } from '../../../docs/examples/tools-raw-schema';
import { FilesServer } from '../../../docs/examples/tools-errors';
import { MaskedNotes } from '../../../docs/examples/errors-masking';
import { WeatherApp } from '../../../docs/examples/apps-view';
import { TeamGateway, upstreams as gatewayUpstreams } from '../../../docs/examples/composition-gateway';
import { InventoryServer, serverLimits } from '../../../docs/examples/tools-limits';
import { NotesResources } from '../../../docs/examples/resources';
import { PluginServer } from '../../../docs/examples/resources-live-registry';
import { PromptServer } from '../../../docs/examples/prompts-and-completion';
import { AssistantServer } from '../../../docs/examples/context-client-requests';
import { engine as tasksEngine } from '../../../docs/examples/tasks-options';
import { statelessOptions } from '../../../docs/examples/transports-modes';
import { buildApp } from '../../../docs/examples/transports-plugin';
import { ProtectedNotes, auth as authExample } from '../../../docs/examples/authorization';
import { ErasNotes } from '../../../docs/examples/protocol-eras';
import { WarehouseServer } from '../../../docs/examples/tools-header';
import { OrdersServer } from '../../../docs/examples/observability';
import { ReleaseServer } from '../../../docs/examples/skills-folder';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

// The jest suites shown in docs/testing.md run here, as they are printed.
import '../../../docs/examples/testing';
import '../../../docs/examples/protocol-eras-testing';

const root = join(__dirname, '..', '..', '..');
const docsDir = join(root, 'docs');
const examplesDir = join(docsDir, 'examples');
const MARKER = /<!-- example: ([\w.-]+) -->\n```ts\n([\s\S]*?)```/g;

const pages = readdirSync(docsDir).filter((f) => f.endsWith('.md'));
const markers = pages.flatMap((page) => [...readFileSync(join(docsDir, page), 'utf8').matchAll(MARKER)].map((m) => ({ page, file: m[1]!, block: m[2]! })));

describe('docs examples', () => {
  it('are shown verbatim: every marked block equals its file byte for byte', () => {
    expect(markers.length).toBeGreaterThan(0);
    for (const { page, file, block } of markers) {
      const source = readFileSync(join(examplesDir, file), 'utf8');
      expect({ page, file, block }).toEqual({ page, file, block: source });
    }
  });

  it('has no marker without its code block right after it', () => {
    for (const page of pages) {
      const text = readFileSync(join(docsDir, page), 'utf8');
      const bare = (text.match(/<!-- example: /g) ?? []).length;
      const complete = [...text.matchAll(MARKER)].length;
      expect({ page, markers: bare }).toEqual({ page, markers: complete });
    }
  });

  it('are all referenced: every docs/examples/*.ts is shown on some page', () => {
    const shown = new Set(markers.map((m) => m.file));
    const files = readdirSync(examplesDir).filter((f) => f.endsWith('.ts'));
    expect(files.filter((f) => !shown.has(f))).toEqual([]);
  });

  it('every page is linked from docs/README.md', () => {
    const index = readFileSync(join(docsDir, 'README.md'), 'utf8');
    const missing = pages.filter((p) => p !== 'README.md' && !index.includes(`(${p})`));
    expect(missing).toEqual([]);
  });
});

describe('docs examples, run', () => {
  it('skills: the folder next to the example and the skill written in code, each file with its digest', async () => {
    const client = await connect(new ReleaseServer(), quietOptions());
    const { skills } = await client.request<{ skills: { uri: string; resources: { uri: string }[] }[] }>('skills/list');
    expect(skills.map((s) => s.uri)).toEqual(['skill://release-notes/SKILL.md', 'skill://team/changelog-style/SKILL.md']);
    expect(skills[0]!.resources.map((r) => r.uri)).toEqual(['skill://release-notes/SKILL.md', 'skill://release-notes/templates/entry.md']);
    expect((await client.readResource('skill://team/changelog-style/examples/good.md')).contents[0]).toMatchObject({ text: '- **search**: Match tags case-insensitively (#412)\n' });
    client.close();
  });

  it('observability: the tool sets an attribute on its request span and nests a span of its own under it', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    // The example gets its tracer from the global provider, as an application would.
    expect(trace.setGlobalTracerProvider(provider)).toBe(true);
    try {
      const client = await connect(new OrdersServer(), quietOptions());
      expect(JSON.stringify((await client.callTool('lookup', { orderId: 'A-17' })).content)).toContain('shipped');
      client.close();
      const spans = exporter.getFinishedSpans();
      const call = spans.find((s) => s.name === 'tools/call lookup')!;
      const query = spans.find((s) => s.name === 'orders.query')!;
      expect(call.attributes).toMatchObject({ 'orders.id': 'A-17', 'gen_ai.tool.name': 'lookup', 'mcp.method.name': 'tools/call' });
      expect(query.spanContext().traceId).toBe(call.spanContext().traceId);
      expect(query.parentSpanContext?.spanId).toBe(call.spanContext().spanId);
    } finally {
      trace.disable();
    }
  });

  it('tools-limits: a tool carries more than the defaults and drops what it does not declare; the others refuse', async () => {
    const client = await connect(new InventoryServer(), { ...quietOptions(), argumentLimits: serverLimits });
    const rows = Array.from({ length: 6000 }, (_, i) => ({ sku: `s${i}`, qty: i, note: 'extra' }));
    expect(await client.callTool('import', { rows })).toEqual({ content: [{ type: 'text', text: 'Imported 6000 rows' }] });
    expect(await client.callTool('check', { sku: 'a', qty: 2, note: 'extra' })).toEqual({
      content: [{ type: 'text', text: 'Invalid arguments:\n- note: property note should not exist' }],
      isError: true,
    });
    expect(await client.callTool('check', { sku: 'x'.repeat(70_000), qty: 1 })).toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining('longer than the limit of 65536') }],
    });
  });

  it('tools-input: the schema comes from the class, a broken rule is an isError result', async () => {
    const client = await connect(new TeamServer(), quietOptions());
    const { tools } = await client.listTools();
    const invite = tools.find((t) => t.name === 'invite')!;
    expect(invite.inputSchema).toMatchObject({
      type: 'object',
      properties: { email: { type: 'string', format: 'email', description: 'Who to invite' }, days: { type: 'integer', minimum: 1, maximum: 30, default: 7 } },
      required: ['email'],
    });
    expect((await client.callTool('invite', { email: 'ada@example.com', role: 'editor' })).content).toEqual([{ type: 'text', text: 'Invited ada@example.com as editor for 7 days' }]);
    const bad = await client.callTool('invite', { email: 'ada@example.com', days: 90 });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain('days');
    expect((await client.callTool('pending')).content).toEqual([{ type: 'text', text: '0 pending' }]);
    client.close();
  });

  it('tools-output-class and tools-raw-schema: structuredContent plus a text copy', async () => {
    const weather = await connect(new WeatherServer(), quietOptions());
    const [tool] = (await weather.listTools()).tools;
    expect(tool!.outputSchema).toMatchObject({ type: 'object', properties: { temperature: { type: 'number' }, conditions: { type: 'string' } } });
    const result = await weather.callTool('weather', { city: 'Oslo' });
    expect(result.structuredContent).toEqual({ temperature: 4, conditions: 'clear' });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual({ temperature: 4, conditions: 'clear' });
    weather.close();

    const calc = await connect(new CalcServer(), quietOptions());
    expect((await calc.callTool('sum', { numbers: [1, 2, 3] })).structuredContent).toEqual({ sum: 6 });
    expect((await calc.callTool('sum', { numbers: [] })).isError).toBe(true);
    calc.close();
  });

  it('tools-errors: toolError and Error are isError results, McpError is a JSON-RPC error', async () => {
    const client = await connect(new FilesServer(), quietOptions());
    expect(await client.callTool('read', { path: 'nope' })).toMatchObject({ isError: true });
    expect(await client.callTool('remove', { path: 'nope' })).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Cannot delete nope: no such file' }] });
    expect((await rpcErrorOf(client.callTool('fetch', { path: 'x' }))).code).toBe(-32602);
    client.close();
  });

  it('apps: a tool with a view, and one only the view calls', async () => {
    const host = await connect(new WeatherApp(), { ...quietOptions(), capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } } });
    expect((await host.listTools()).tools.map((t) => [t.name, (t._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri])).toEqual([
      ['forecast', 'ui://weather/dashboard'],
      ['refresh', 'ui://weather/dashboard'],
    ]);
    const view = (await host.readResource('ui://weather/dashboard')).contents[0]!;
    expect(view).toMatchObject({ mimeType: 'text/html;profile=mcp-app', _meta: { ui: { prefersBorder: true } } });
    expect((await host.callTool('refresh', { city: 'Lyon' })).content).toEqual([{ type: 'text', text: 'Refreshed Lyon' }]);
    host.close();
    const plain = await connect(new WeatherApp(), quietOptions());
    expect((await plain.listTools()).tools.map((t) => [t.name, t._meta])).toEqual([['forecast', undefined]]);
    expect((await plain.callTool('forecast', { city: 'Lyon' })).content).toEqual([{ type: 'text', text: 'Sunny in Lyon, 21 °C' }]);
    plain.close();
  });

  it('errors-masking: maskErrors hides a driver error from the client, keeps it in the log, and tells a ToolError as it is', async () => {
    const { memoryLogger } = await import('@mcpx/testing');
    const log = memoryLogger('warn');
    const client = await connect(new MaskedNotes(), { logger: log.logger, maskErrors: true });
    const masked = await client.callTool('get_note', { id: 'broken' });
    expect(masked).toEqual({ isError: true, content: [{ type: 'text', text: `Tool "get_note" failed with an unexpected error; the server's log has the details` }] });
    expect(JSON.stringify(masked)).not.toContain('10.0.4.12');
    const line = log.lines.find((l) => l.msg === 'tool failed');
    expect(line).toMatchObject({ tool: 'get_note', err: { message: 'connect ECONNREFUSED 10.0.4.12:5432 (notes_prod)' } });
    expect(line!.err.stack).toContain('errors-masking');
    expect(await client.callTool('get_note', { id: 'nope' })).toEqual({ isError: true, content: [{ type: 'text', text: 'No note has id "nope"; search_notes lists them' }] });
    expect((await client.callTool('get_note', { id: 'welcome' })).content).toEqual([{ type: 'text', text: 'Hello' }]);
    expect((await client.callTool('get_note', { id: 7 })).isError).toBe(true);
    client.close();

    const unmasked = await connect(new MaskedNotes(), quietOptions());
    expect((await unmasked.callTool('get_note', { id: 'broken' })).content).toEqual([{ type: 'text', text: 'connect ECONNREFUSED 10.0.4.12:5432 (notes_prod)' }]);
    unmasked.close();
  });

  it('composition-gateway: its own tool and an upstream of the sdk, namespaced; an upstream that cannot start is left down', async () => {
    const fixture = join(root, 'packages/proxy/test/fixtures/sdk1-stdio-server.js');
    // The docs upstream is the SDK fixture; tickets points at a closed loopback port (no test reaches the internet).
    const tickets = { ...gatewayUpstreams.mcpServers.tickets, url: 'http://127.0.0.1:1/mcp' };
    const config = { mcpServers: { docs: { command: process.execPath, args: [fixture] }, tickets } };
    const before = process.env.TICKETS_TOKEN;
    process.env.TICKETS_TOKEN = 't-1';
    const server = new TeamGateway(config);
    const client = await connect(server, quietOptions());
    try {
      await server.gateway.ready();
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['on_call', 'docs_add', 'docs_count']));
      expect((await client.callTool('docs_add', { a: 1, b: 2 })).content).toEqual([{ type: 'text', text: '3' }]);
      // The tickets upstream cannot be reached: it is down, the rest serves.
      expect(server.gateway.upstreams.map((u) => [u.config.key, u.state])).toEqual([
        ['docs', 'up'],
        ['tickets', 'down'],
      ]);
    } finally {
      client.close();
      await server.gateway.close();
      if (before === undefined) delete process.env.TICKETS_TOKEN;
      else process.env.TICKETS_TOKEN = before;
    }
  });

  it('resources: reads, templates, completion and subscriptions', async () => {
    const client = await connect(new NotesResources(), quietOptions());
    expect((await client.readResource('notes://index')).contents).toEqual([{ uri: 'notes://index', mimeType: 'application/json', text: '["welcome"]' }]);
    expect((await client.readResource('notes://logo')).contents[0]).toMatchObject({ blob: 'iVBORw0KGgo=' });
    expect((await client.readResource('notes://notes/welcome')).contents[0]).toMatchObject({ text: 'Hello from mcpx' });
    expect((await rpcErrorOf(client.readResource('notes://notes/missing'))).code).toBe(-32002);
    expect((await client.complete({ type: 'ref/resource', uri: 'notes://notes/{id}' }, { name: 'id', value: 'we' })).completion.values).toEqual(['welcome']);
    await client.subscribe('notes://notes/welcome');
    await client.callTool('set_note', { id: 'welcome', text: 'changed' });
    expect((await client.nextNotification('notifications/resources/updated')).params).toEqual({ uri: 'notes://notes/welcome' });
    client.close();
  });

  it('resources-live-registry: runtime entries and list_changed', async () => {
    const client = await connect(new PluginServer(), quietOptions());
    expect((await client.readResource('plugins://motd')).contents[0]).toMatchObject({ text: 'Message of the day' });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['toggle_beta']);
    expect((await client.callTool('toggle_beta')).content).toEqual([{ type: 'text', text: 'beta on' }]);
    await client.nextNotification('notifications/tools/list_changed');
    expect((await client.callTool('beta_feature', {})).content).toEqual([{ type: 'text', text: 'beta!' }]);
    client.close();
  });

  it('prompts-and-completion: arguments from a class, messages, completion with context', async () => {
    const client = await connect(new PromptServer(), quietOptions());
    const review = (await client.listPrompts()).prompts.find((p) => p.name === 'review')!;
    expect(review.arguments).toEqual([
      { name: 'language', description: 'The language of the code', required: true },
      { name: 'tone', description: 'How strict to be', required: false },
    ]);
    const prompt = await client.getPrompt('review', { language: 'rust', tone: 'strict' });
    expect(prompt.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect((await client.getPrompt('summarise', { topic: 'MCP' })).description).toBe('Summary of MCP');
    expect((await client.complete({ type: 'ref/prompt', name: 'review' }, { name: 'language', value: 'ty' })).completion.values).toEqual(['typescript']);
    expect((await client.complete({ type: 'ref/prompt', name: 'review' }, { name: 'tone', value: '' }, { language: 'rust' })).completion).toMatchObject({ values: ['strict'] });
    client.close();
  });

  it('context-client-requests: URL elicitation, -32042, roots', async () => {
    const client = await connect(new AssistantServer(), { ...quietOptions(), capabilities: { elicitation: { form: {}, url: {} }, roots: {} } });
    client.onRequest('elicitation/create', () => ({ action: 'accept' }));
    client.onRequest('roots/list', () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
    expect((await client.callTool('connect_account')).content).toEqual([{ type: 'text', text: 'Connected' }]);
    expect((await client.nextNotification('notifications/elicitation/complete')).params).toHaveProperty('elicitationId');
    expect((await rpcErrorOf(client.callTool('calendar'))).code).toBe(-32042);
    expect((await client.callTool('roots')).content).toEqual([{ type: 'text', text: 'work file:///work' }]);
    client.close();
  });

  it('tasks: a task-augmented call returns a task, tasks/result the outcome', async () => {
    const client = await connect(tasksEngine, quietOptions());
    expect((await client.callTool('build_report', { months: 2 })).content).toEqual([{ type: 'text', text: 'Report over 2 months' }]);
    const created = await client.request<{ task: { taskId: string; status: string } }>('tools/call', { name: 'build_report', arguments: { months: 3 }, task: {} });
    expect(created.task.status).toBe('working');
    expect(await client.request('tasks/result', { taskId: created.task.taskId })).toMatchObject({ content: [{ type: 'text', text: 'Report over 3 months' }] });
    expect((await client.request<{ status: string }>('tasks/get', { taskId: created.task.taskId })).status).toBe('completed');
    client.close();
  });

  it('transports-modes and transports-plugin: real HTTP', async () => {
    const server = await listen(new TeamServer(), { ...statelessOptions, port: 0, handleSignals: false, requestLogging: false, logLevel: 'silent' });
    try {
      const response = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'pending', arguments: {} } }),
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: '0 pending' }] } });
    } finally {
      await server.close();
    }

    const app = await buildApp();
    app.log.level = 'silent';
    try {
      const base = await app.listen({ host: '127.0.0.1', port: 0 });
      expect(await (await fetch(`${base}/`)).json()).toEqual({ hello: 'world' });
      expect((await fetch(`${base}/api/healthz`)).status).toBe(200);
      const init = await fetch(`${base}/api/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'docs', version: '1' } } }),
      });
      expect(init.status).toBe(200);
      expect(init.headers.get('mcp-session-id')).toBeTruthy();
      expect(await init.text()).toContain('"name":"team"');
    } finally {
      await app.close();
    }
  });

  it.each([
    ['2025-11-25 (the default)', undefined],
    ['2026-07-28', '2026-07-28'],
  ])('protocol-eras under %s: ctx.elicit and InputRequired, answered with onRequest', async (_era, protocolVersion) => {
    const server = new ErasNotes();
    const client = await connect(server, { ...quietOptions(), protocolVersion, capabilities: { elicitation: { form: {} } } });
    const modern = protocolVersion !== undefined;
    expect(client.era).toBe(modern ? 'modern' : 'legacy');
    const asked: unknown[] = [];
    client.onRequest('elicitation/create', (params) => {
      asked.push(params.message);
      return params.message === 'Archive draft?' ? { action: 'decline' } : { action: 'accept', content: { confirm: true } };
    });
    const received = client.record();

    expect((await client.callTool('archive', { id: 'welcome' })).content).toEqual([{ type: 'text', text: 'Archived welcome' }]);
    expect((await client.callTool('archive', { id: 'draft' })).content).toEqual([{ type: 'text', text: 'Kept it' }]);
    expect((await client.callTool('remove', { id: 'draft' })).content).toEqual([{ type: 'text', text: 'Deleted draft' }]);
    expect(asked).toEqual(['Archive welcome?', 'Archive draft?', 'Delete draft?']);
    expect([...server.archived]).toEqual(['welcome']);
    expect([...server.notes.keys()]).toEqual(['welcome']);

    // Legacy: requests to the client on the call's stream. 2026-07-28: InputRequiredResults, answered by retrying.
    const requests = received.filter((m) => 'method' in m && 'id' in m);
    const inputRequired = received.flatMap((m) => ('result' in m && m.result.resultType === 'input_required' ? [m.result] : []));
    if (modern) {
      expect(requests).toEqual([]);
      expect(inputRequired.map((r) => Object.keys(r.inputRequests as object))).toEqual([['elicit-1'], ['elicit-1'], ['confirm']]);
      expect(inputRequired.every((r) => typeof r.requestState === 'string')).toBe(true);
      expect(await client.readResource('notes://index')).toMatchObject({ resultType: 'complete', ttlMs: 60_000, cacheScope: 'private' });
    } else {
      expect(requests.map((m) => ('method' in m ? m.method : ''))).toEqual(['elicitation/create', 'elicitation/create', 'elicitation/create']);
      expect(inputRequired).toEqual([]);
      expect(await client.readResource('notes://index')).not.toHaveProperty('ttlMs');
    }
    client.close();
  });

  it('tools-header: @Field({ header }) lists x-mcp-header, and the HTTP endpoint checks Mcp-Param-* against the arguments', async () => {
    const client = await connect(new WarehouseServer(), quietOptions());
    const [query] = (await client.listTools()).tools;
    expect(query!.inputSchema).toMatchObject({
      properties: { target: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } }, dryRun: { type: 'boolean', 'x-mcp-header': 'Dry-Run' } },
    });
    client.close();

    const server = await listen(new WarehouseServer(), { port: 0, handleSignals: false, requestLogging: false, logLevel: 'silent' });
    try {
      const call = (region: string) =>
        fetch(server.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'tools/call',
            'mcp-name': 'query',
            'mcp-param-region': region,
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: {
              name: 'query',
              arguments: { sql: 'select 1', target: { region: 'eu-west-1' } },
              _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
            },
          }),
        });
      const ok = await call('eu-west-1');
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('Ran in eu-west-1: select 1');
      const mismatch = await call('us-east-1');
      expect(mismatch.status).toBe(400);
      expect(await mismatch.json()).toMatchObject({ id: 1, error: { code: -32020, message: expect.stringContaining('Mcp-Param-Region') } });
    } finally {
      await server.close();
    }
  });

  it('authorization: scopes on entries, the principal in handlers, the configured metadata', async () => {
    const client = await connect(new ProtectedNotes(), { ...quietOptions(), principal: { subject: 'ada', clientId: 'desk', scopes: ['notes:read'], claims: {} } });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['whoami']);
    expect((await client.callTool('whoami')).content).toEqual([{ type: 'text', text: 'ada (client desk)' }]);
    expect((await rpcErrorOf(client.callTool('purge'))).message).toBe('Insufficient scope: tool "purge" needs notes:admin');
    expect((await client.readResource('notes://all')).contents[0]).toMatchObject({ text: 'every note' });
    expect(authExample.resource).toBe('https://mcp.example.com/mcp');
    client.close();
  });
});
