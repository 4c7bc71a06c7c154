/**
 * The fixtures the official conformance suite (0.2.0-alpha.12) calls at `--spec-version 2026-07-28`,
 * over real HTTP, sent as the suite sends them: each request a POST with `MCP-Protocol-Version`,
 * `Mcp-Method` and `Mcp-Name` headers and the per-request `_meta` (version, client info, and the
 * capabilities sampling, elicitation and roots unless a test says otherwise). Each test makes the
 * suite's calls, asserts what the suite checks, and pins the fixture's own answers.
 *
 * The last block runs the multi round-trip fixtures in process under both eras: the same handlers
 * answer a 2025-11-25 session (asking on the call's stream) and a 2026-07-28 client (retrying).
 */
import pino from 'pino';
import { listen, type McpHttpServer } from '@mcpx/http';
import { connect, type TestClient } from '@mcpx/testing';
import { ConformanceServer, JSON_SCHEMA_2020_12_INPUT } from '../src/conformance-server';

const VERSION = '2026-07-28';
const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CLIENT = 'io.modelcontextprotocol/clientInfo';
const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
const META_SUBSCRIPTION = 'io.modelcontextprotocol/subscriptionId';
const ALL_CAPABILITIES = { sampling: {}, elicitation: {}, roots: { listChanged: true } };

/** The suite's canned answers to input requests. */
const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });
const sampled = (text: string) => ({ role: 'assistant', content: { type: 'text', text }, model: 'test-model', stopReason: 'endTurn' });
const ROOTS = { roots: [{ uri: 'file:///test/root', name: 'Test Root' }] };

let server: McpHttpServer;
let nextId = 1;

beforeAll(async () => {
  server = await listen(new ConformanceServer(), { host: '127.0.0.1', port: 0, handleSignals: false, logger: pino({ level: 'silent' }) });
});

afterAll(async () => {
  await server.close();
});

interface Exchange {
  id: number;
  status: number;
  /** Every message of the answer, in order (one for JSON, the stream's events for SSE). */
  messages: any[];
  /** The message answering the request. */
  response: any;
}

interface PostOptions {
  /** The `_meta` clientCapabilities (default: sampling, elicitation, roots). */
  capabilities?: Record<string, unknown>;
  /** More `_meta` keys. */
  meta?: Record<string, unknown>;
  /** More headers (Mcp-Param-*). */
  headers?: Record<string, string>;
}

function requestInit(id: number, method: string, params: Record<string, unknown>, options: PostOptions = {}, signal?: AbortSignal): RequestInit {
  const meta = {
    [META_VERSION]: VERSION,
    [META_CLIENT]: { name: 'conformance-test-client', version: '1.0.0' },
    [META_CAPABILITIES]: options.capabilities ?? ALL_CAPABILITIES,
    ...options.meta,
  };
  const name = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': VERSION,
    'mcp-method': method,
    ...(name === undefined ? {} : { 'mcp-name': name }),
    ...options.headers,
  };
  return { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }), signal };
}

/** The data of each event of an SSE body. */
function sseData(body: string): any[] {
  return body
    .split('\n\n')
    .map((block) =>
      block
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
        .join('\n'),
    )
    .filter((data) => data !== '')
    .map((data) => JSON.parse(data));
}

/** One modern request as the suite sends it; the answer may be JSON or SSE. Never a request from the server on it. */
async function post(method: string, params: Record<string, unknown> = {}, options: PostOptions = {}): Promise<Exchange> {
  const id = nextId++;
  const res = await fetch(server.url, requestInit(id, method, params, options));
  const body = await res.text();
  const type = res.headers.get('content-type') ?? '';
  let messages: any[];
  if (type.startsWith('application/json')) messages = [JSON.parse(body)];
  else if (type.startsWith('text/event-stream')) messages = sseData(body);
  else throw new Error(`${method}: expected JSON or SSE, got ${res.status} ${type}: ${body}`);
  for (const message of messages) {
    if (message.method !== undefined && message.id !== undefined) throw new Error(`${method}: the server sent a request on the response stream: ${JSON.stringify(message)}`);
  }
  const answers = messages.filter((m) => m.method === undefined);
  expect(answers).toHaveLength(1);
  expect(answers[0].id).toBe(id);
  return { id, status: res.status, messages, response: answers[0] };
}

/** The result of a request that must succeed. */
async function result(method: string, params: Record<string, unknown> = {}, options: PostOptions = {}): Promise<Record<string, any>> {
  const { response, status } = await post(method, params, options);
  if (response.error) throw new Error(`${method} failed with ${response.error.code}: ${response.error.message}`);
  expect(status).toBe(200);
  return response.result;
}

const call = (name: string, extra: Record<string, unknown> = {}, options?: PostOptions) => result('tools/call', { name, arguments: {}, ...extra }, options);
const textOf = (res: Record<string, any>) => (res.content as { type: string; text?: string }[]).map((c) => c.text).join('');

function expectInputRequired(res: Record<string, any>): Record<string, { method: string; params: Record<string, any> }> {
  expect(res.resultType).toBe('input_required');
  expect(typeof res.requestState).toBe('string');
  return res.inputRequests;
}

function expectComplete(res: Record<string, any>): void {
  expect(res.resultType).toBe('complete');
}

/** Reads the events of an open SSE response one at a time, as they arrive. */
class EventReader {
  private buffer = '';
  private readonly decoder = new TextDecoder();
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;

  constructor(body: ReadableStream<Uint8Array>) {
    this.reader = body.getReader();
  }

  async next(): Promise<any> {
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end >= 0) {
        const [event] = sseData(this.buffer.slice(0, end + 2));
        this.buffer = this.buffer.slice(end + 2);
        if (event !== undefined) return event;
        continue; // a comment (heartbeat)
      }
      const { value, done } = await this.reader.read();
      if (done) throw new Error(`the stream ended before the next event (unread: ${JSON.stringify(this.buffer)})`);
      this.buffer += this.decoder.decode(value, { stream: true });
    }
  }
}

/** An open subscriptions/listen stream, its acknowledgement already read. */
async function listenTo(notifications: Record<string, boolean>): Promise<{ id: number; ack: any; events: EventReader; close(): void }> {
  const id = nextId++;
  const abort = new AbortController();
  const res = await fetch(server.url, requestInit(id, 'subscriptions/listen', { notifications }, {}, abort.signal));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events = new EventReader(res.body!);
  const ack = await events.next();
  return { id, ack, events, close: () => abort.abort() };
}

describe('tools/list at 2026-07-28', () => {
  it('lists every tool with a description, test_simple_text first, in the same order every time', async () => {
    const lists = [await result('tools/list'), await result('tools/list'), await result('tools/list')];
    const names = lists.map((list) => list.tools.map((t: { name: string }) => t.name));
    expect(names[1]).toEqual(names[0]);
    expect(names[2]).toEqual(names[0]);
    // The header-validation scenario calls the first tool with {}: it must take no arguments.
    expect(names[0][0]).toBe('test_simple_text');
    for (const tool of lists[0]!.tools) {
      expect(tool.description).toMatch(/.+/);
      expect(tool.name).toMatch(/^[A-Za-z0-9_.-]{1,128}$/);
      expect(tool.inputSchema.type).toBe('object');
    }
    expect(lists[0]).toMatchObject({ resultType: 'complete', ttlMs: expect.any(Number), cacheScope: expect.stringMatching(/^(public|private)$/) });
  });

  it('serves json_schema_2020_12_tool with the SEP-2106 keywords intact', async () => {
    const { tools } = await result('tools/list');
    const tool = tools.find((t: { name: string }) => t.name === 'json_schema_2020_12_tool');
    // The suite's own schema, as stdio-conformance.test.ts spells it out: served unaltered under 2026 too.
    expect(tool.inputSchema).toEqual(JSON_SCHEMA_2020_12_INPUT);
    // The server validates with it: a phone contact needs a phone number.
    const ok = await call('json_schema_2020_12_tool', { arguments: { name: 'Ada', contactMethod: 'phone', phone: '123' } });
    expect(textOf(ok)).toBe('Received: {"name":"Ada","contactMethod":"phone","phone":"123"}');
    const refused = await call('json_schema_2020_12_tool', { arguments: { name: 'Ada', contactMethod: 'phone', email: 'a@b.c' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/phone is required/);
  });
});

describe('server-stateless diagnostic tools', () => {
  it('test_missing_capability: without sampling, HTTP 400 and -32021 naming it, the id echoed', async () => {
    const { status, response, id } = await post('tools/call', { name: 'test_missing_capability', arguments: {} }, { capabilities: {} });
    expect(status).toBe(400);
    expect(response.id).toBe(id);
    expect(response.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: {} } } });
    // With sampling declared, the question comes back as an input request instead.
    const asked = expectInputRequired(await call('test_missing_capability'));
    expect(Object.values(asked).map((r) => r.method)).toEqual(['sampling/createMessage']);
  });

  it('test_streaming_elicitation: the question comes back as an InputRequiredResult, nothing but the response on the stream', async () => {
    const { messages, response } = await post('tools/call', { name: 'test_streaming_elicitation', arguments: {} }, { capabilities: { elicitation: {} } });
    expect(messages).toEqual([response]);
    const asked = expectInputRequired(response.result);
    expect(asked['elicit-1']).toEqual({
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: 'Shall the tool go ahead?',
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean', description: 'Whether to go ahead' } }, required: ['ok'] },
      },
    });
    const done = await call(
      'test_streaming_elicitation',
      { inputResponses: { 'elicit-1': accept({ ok: true }) }, requestState: response.result.requestState },
      { capabilities: { elicitation: {} } },
    );
    expect(textOf(done)).toBe('Elicitation completed: action=accept, ok=true');
  });

  it('test_logging_tool: no log notifications without a logLevel, three at info', async () => {
    const silent = await post('tools/call', { name: 'test_logging_tool', arguments: {} });
    expect(silent.messages.filter((m) => m.method === 'notifications/message')).toEqual([]);
    expect(textOf(silent.response.result)).toBe('Logged three lines');

    const logged = await post('tools/call', { name: 'test_logging_tool', arguments: {} }, { meta: { [META_LOG_LEVEL]: 'info' } });
    const lines = logged.messages.filter((m) => m.method === 'notifications/message');
    expect(lines.map((m) => m.params)).toEqual([
      { level: 'info', data: 'Logging tool started' },
      { level: 'info', data: 'Logging tool working' },
      { level: 'info', data: 'Logging tool finished' },
    ]);
    expect(logged.messages.indexOf(logged.response)).toBe(logged.messages.length - 1);
  });

  it('test_trigger_tool_change and test_trigger_prompt_change: each subscriber hears only the list it asked for, tagged with its subscription', async () => {
    const discover = await result('server/discover');
    expect(discover.capabilities).toMatchObject({ tools: { listChanged: true }, prompts: { listChanged: true } });

    const prompts = await listenTo({ promptsListChanged: true });
    const tools = await listenTo({ toolsListChanged: true });
    try {
      for (const stream of [prompts, tools]) {
        expect(stream.ack.method).toBe('notifications/subscriptions/acknowledged');
        expect(stream.ack.params._meta[META_SUBSCRIPTION]).toBe(stream.id);
      }
      expect(prompts.ack.params.notifications).toEqual({ promptsListChanged: true });
      expect(tools.ack.params.notifications).toEqual({ toolsListChanged: true });

      const toolChange = textOf(await call('test_trigger_tool_change'));
      expect(await tools.events.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [META_SUBSCRIPTION]: tools.id } } });
      const revision = /revision (\d+)$/.exec(toolChange)![1];
      const { tools: listed } = await result('tools/list');
      expect(listed.find((t: { name: string }) => t.name === 'test_dynamic_tool').description).toBe(`A tool the server changes at runtime (revision ${revision})`);

      // The prompts stream got nothing for the tool change: its next event is the prompt change.
      await call('test_trigger_prompt_change');
      expect(await prompts.events.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/prompts/list_changed', params: { _meta: { [META_SUBSCRIPTION]: prompts.id } } });
    } finally {
      prompts.close();
      tools.close();
    }
  });
});

describe('http-custom-header-server-validation: test_custom_headers', () => {
  it('is the first tool with a string x-mcp-header parameter, and runs when the header matches', async () => {
    const { tools } = await result('tools/list');
    const annotated = tools.filter((t: { inputSchema: { properties?: Record<string, Record<string, unknown>> } }) =>
      Object.values(t.inputSchema.properties ?? {}).some((p) => 'x-mcp-header' in p),
    );
    expect(annotated[0].name).toBe('test_custom_headers');
    expect(annotated[0].inputSchema).toMatchObject({
      properties: { region: { type: 'string', 'x-mcp-header': 'Region', description: 'The region the request is routed to' } },
      required: ['region'],
    });
    const ok = await call('test_custom_headers', { arguments: { region: 'Hello' } }, { headers: { 'mcp-param-region': '=?base64?SGVsbG8=?=' } });
    expect(textOf(ok)).toBe('Region: Hello');
    const missing = await post('tools/call', { name: 'test_custom_headers', arguments: { region: 'test-value' } });
    expect(missing.status).toBe(400);
    expect(missing.response.error.code).toBe(-32020);
  });
});

describe('input-required-result-* (multi round-trip requests)', () => {
  const NAME_FORM = { type: 'object', properties: { name: { type: 'string', description: 'Your name' } }, required: ['name'] };

  it('test_input_required_result_elicitation asks under user_name, and completes from the answer to the question it asked', async () => {
    const first = await call('test_input_required_result_elicitation');
    expect(expectInputRequired(first)).toEqual({
      user_name: { method: 'elicitation/create', params: { mode: 'form', message: 'What is your name?', requestedSchema: NAME_FORM } },
    });
    const withState = await call('test_input_required_result_elicitation', { inputResponses: { user_name: accept({ name: 'Alice' }) }, requestState: first.requestState });
    expectComplete(withState);
    expect(textOf(withState)).toBe('Hello, Alice!');
    // Keys the round did not ask are ignored.
    const answers = { user_name: accept({ name: 'Alice' }), unknown_extra_key: accept({ foo: 'bar' }), another_unexpected: accept({ baz: 123 }) };
    expect(textOf(await call('test_input_required_result_elicitation', { inputResponses: answers, requestState: first.requestState }))).toBe('Hello, Alice!');
    // ignore-extra-params sends them with no first round: answers to a question never asked are not taken (SUITE-NOTES.md).
    expect(Object.keys(expectInputRequired(await call('test_input_required_result_elicitation', { inputResponses: answers })))).toEqual(['user_name']);
  });

  it('test_input_required_result_elicitation asks again for a missing answer, and never completes on a malformed one', async () => {
    expect(Object.keys(expectInputRequired(await call('test_input_required_result_elicitation', { inputResponses: { wrong_key: accept({ data: 'wrong' }) } })))).toEqual(['user_name']);
    expect(Object.keys(expectInputRequired(await call('test_input_required_result_elicitation', { inputResponses: { user_name: accept({ nickname: 'Al' }) } })))).toEqual(['user_name']);
    // A malformed answer to the question asked is refused; with no round that asked, it answers nothing and the question is asked.
    const { requestState } = await call('test_input_required_result_elicitation');
    for (const [inputResponses, state] of [
      [{ user_name: 12345 }, requestState],
      [null, undefined],
    ]) {
      const { response } = await post('tools/call', { name: 'test_input_required_result_elicitation', arguments: {}, inputResponses, requestState: state });
      expect(response.error.code).toBe(-32602);
    }
    expect(Object.keys(expectInputRequired(await call('test_input_required_result_elicitation', { inputResponses: { user_name: 12345 } })))).toEqual(['user_name']);
  });

  it('test_input_required_result_sampling and _list_roots ask once, then answer from the reply', async () => {
    const sampling = await call('test_input_required_result_sampling');
    expect(expectInputRequired(sampling)).toEqual({
      'sample-1': { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 } },
    });
    const answered = await call('test_input_required_result_sampling', { inputResponses: { 'sample-1': sampled('The capital of France is Paris.') }, requestState: sampling.requestState });
    expect(textOf(answered)).toBe('The model answered: The capital of France is Paris.');

    const roots = await call('test_input_required_result_list_roots');
    expect(expectInputRequired(roots)).toEqual({ 'roots-1': { method: 'roots/list', params: {} } });
    const listed = await call('test_input_required_result_list_roots', { inputResponses: { 'roots-1': ROOTS }, requestState: roots.requestState });
    expect(textOf(listed)).toBe('The client has 1 root(s): file:///test/root (Test Root)');
  });

  it('test_input_required_result_request_state keeps its own state between rounds and says state-ok', async () => {
    const first = await call('test_input_required_result_request_state');
    expect(Object.keys(expectInputRequired(first))).toEqual(['confirm']);
    const done = await call('test_input_required_result_request_state', { inputResponses: { confirm: accept({ ok: true }) }, requestState: first.requestState });
    expect(textOf(done)).toBe('state-ok: the request state came back, and the user confirmed');
    // Without the state, the answer alone is not enough: it asks again.
    expect(Object.keys(expectInputRequired(await call('test_input_required_result_request_state', { inputResponses: { confirm: accept({ ok: true }) } })))).toEqual(['confirm']);
  });

  it('test_input_required_result_multiple_inputs asks for elicitation, sampling and roots in one round', async () => {
    const first = await call('test_input_required_result_multiple_inputs');
    const asked = expectInputRequired(first);
    expect(Object.entries(asked).map(([key, r]) => [key, r.method])).toEqual([
      ['elicit-1', 'elicitation/create'],
      ['sample-2', 'sampling/createMessage'],
      ['roots-3', 'roots/list'],
    ]);
    const done = await call('test_input_required_result_multiple_inputs', {
      inputResponses: { 'elicit-1': accept({ name: 'Alice' }), 'sample-2': sampled('Hello there!'), 'roots-3': ROOTS },
      requestState: first.requestState,
    });
    expect(textOf(done)).toBe('Hello there! Alice, with 1 root(s)');
  });

  it('test_input_required_result_multi_round takes two rounds, with a new requestState each', async () => {
    const r1 = await call('test_input_required_result_multi_round');
    expect(Object.keys(expectInputRequired(r1))).toEqual(['elicit-1']);
    const r2 = await call('test_input_required_result_multi_round', { inputResponses: { 'elicit-1': accept({ name: 'Alice' }) }, requestState: r1.requestState });
    const asked = expectInputRequired(r2);
    expect(Object.keys(asked)).toEqual(['elicit-2']);
    expect(asked['elicit-2']!.params.message).toBe('Step 2: What is your favorite color?');
    expect(r2.requestState).not.toBe(r1.requestState);
    const r3 = await call('test_input_required_result_multi_round', { inputResponses: { 'elicit-2': accept({ color: 'blue' }) }, requestState: r2.requestState });
    expect(textOf(r3)).toBe("Alice's favourite colour is blue");
  });

  it('test_input_required_result_tampered_state refuses an altered requestState with a JSON-RPC error', async () => {
    const first = await call('test_input_required_result_tampered_state');
    const [key] = Object.keys(expectInputRequired(first));
    const { response } = await post('tools/call', {
      name: 'test_input_required_result_tampered_state',
      arguments: {},
      inputResponses: { [key!]: accept({ ok: true }) },
      requestState: `${first.requestState}-TAMPERED`,
    });
    expect(response.error.code).toBe(-32602);
    expect(response.result).toBeUndefined();
  });

  it('test_input_required_result_capabilities asks only what the client declared', async () => {
    const onlySampling = await call('test_input_required_result_capabilities', {}, { capabilities: { sampling: {} } });
    expect(Object.values(expectInputRequired(onlySampling)).map((r) => r.method)).toEqual(['sampling/createMessage']);
    const all = await call('test_input_required_result_capabilities');
    expect(Object.values(expectInputRequired(all)).map((r) => r.method)).toEqual(['elicitation/create', 'sampling/createMessage', 'roots/list']);
    const none = await call('test_input_required_result_capabilities', {}, { capabilities: {} });
    expect(textOf(none)).toBe('The client declared none of elicitation, sampling and roots, so nothing was asked');
  });

  it('prompt test_input_required_result_prompt asks for its context, then gives the messages', async () => {
    const first = await result('prompts/get', { name: 'test_input_required_result_prompt' });
    const asked = expectInputRequired(first);
    expect(Object.keys(asked)).toEqual(['elicit-1']);
    expect(asked['elicit-1']!.method).toBe('elicitation/create');
    const done = await result('prompts/get', {
      name: 'test_input_required_result_prompt',
      inputResponses: { 'elicit-1': accept({ context: 'test context' }) },
      requestState: first.requestState,
    });
    expectComplete(done);
    expect(done.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Please help with this context: test context' } }]);
    const { prompts } = await result('prompts/list');
    expect(prompts.find((p: { name: string }) => p.name === 'test_input_required_result_prompt').description).toMatch(/.+/);
  });

  it('tools/list and prompts/list never ask for input', async () => {
    expect((await result('tools/list')).resultType).toBe('complete');
    expect((await result('prompts/list')).resultType).toBe('complete');
  });
});

describe('the multi round-trip fixtures in both eras, in process', () => {
  const answers: Record<string, (params: Record<string, any>) => unknown> = {
    'elicitation/create': (params) => {
      const field = Object.keys(params.requestedSchema.properties)[0]!;
      const values: Record<string, unknown> = { name: 'Alice', color: 'blue', ok: true, context: 'test context' };
      return accept({ [field]: values[field] });
    },
    'sampling/createMessage': () => sampled('Hello there!'),
    'roots/list': () => ROOTS,
  };

  const expected: [string, string][] = [
    ['test_input_required_result_elicitation', 'Hello, Alice!'],
    ['test_input_required_result_sampling', 'The model answered: Hello there!'],
    ['test_input_required_result_list_roots', 'The client has 1 root(s): file:///test/root (Test Root)'],
    ['test_input_required_result_request_state', 'state-ok: the request state came back, and the user confirmed'],
    ['test_input_required_result_multiple_inputs', 'Hello there! Alice, with 1 root(s)'],
    ['test_input_required_result_multi_round', "Alice's favourite colour is blue"],
    ['test_input_required_result_tampered_state', 'Confirmed: true'],
    ['test_input_required_result_capabilities', 'name: Alice; model: Hello there!; roots: 1'],
    ['test_streaming_elicitation', 'Elicitation completed: action=accept, ok=true'],
    ['test_missing_capability', 'The model said: Hello there!'],
  ];

  async function client(protocolVersion: string): Promise<TestClient> {
    const peer = await connect(new ConformanceServer(), { protocolVersion, capabilities: ALL_CAPABILITIES, logger: pino({ level: 'silent' }) });
    for (const [method, answer] of Object.entries(answers)) peer.onRequest(method, answer);
    return peer;
  }

  it.each(['2025-11-25', VERSION])('at %s, every tool completes with the same answer', async (protocolVersion) => {
    const peer = await client(protocolVersion);
    for (const [tool, text] of expected) {
      const res = await peer.callTool(tool, {});
      expect({ tool, text: textOf(res), isError: res.isError }).toEqual({ tool, text, isError: undefined });
    }
    const prompt = await peer.getPrompt('test_input_required_result_prompt');
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Please help with this context: test context' } }]);
    peer.close();
  });

  it('at 2025-11-25, test_missing_capability without sampling is a tool error the model can read', async () => {
    const peer = await connect(new ConformanceServer(), { capabilities: {}, logger: pino({ level: 'silent' }) });
    const res = await peer.callTool('test_missing_capability', {});
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(/sampling/);
    peer.close();
  });
});
