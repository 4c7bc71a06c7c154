/**
 * The official conformance suite's server scenarios (@modelcontextprotocol/conformance 0.1.16),
 * replayed over stdio against the same fixtures (`apps/conformance/dist/main-stdio.js`).
 *
 * The client is what the suite uses: the official SDK `Client` (1.32.2), clientInfo
 * `conformance-test-client` 1.0.0, capabilities `{sampling:{}, elicitation:{}}`; only the transport
 * differs (StdioClientTransport instead of StreamableHTTPClientTransport). Each scenario performs
 * the calls the suite performs and asserts the conditions the suite checks (see
 * /work/shared/conformance/FIXTURES.md §4), plus the exact fixture values where FIXTURES.md pins them.
 * The three HTTP-only scenarios assert their stdio equivalents instead.
 *
 * The suite opens a fresh connection per scenario. Here every scenario that depends on session state
 * (the handshake itself, the log level, subscriptions, handlers for server→client requests, progress)
 * gets a fresh connection to a fresh server process; the read-only ones share one connection, since a
 * server process costs ~0.4 s of CPU to start and the file must stay fast.
 *
 * Every stdout line the server writes is recorded (from the SDK transport's child process) and must
 * be a JSON-RPC 2.0 message; every message is also logged in order, both ways, to check the wire.
 */
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StdioTap, type Wire } from '../../../packages/stdio/test/stdio-tap';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  JSONRPCMessageSchema,
  LoggingLevelSchema,
  LoggingMessageNotificationSchema,
  type CallToolResult,
  type CreateMessageRequest,
  type ElicitRequest,
  type LoggingMessageNotification,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';

const ROOT = resolve(__dirname, '../../..');
const SERVER = resolve(ROOT, 'apps/conformance/dist/main-stdio.js');

/** Server processes started ahead of need (each costs ~0.4 s of CPU to load). */
const WARM = 2;

/** The stdio tap, with the lookups these checks make in its wire log. */
class Tap extends StdioTap {
  /** Index in the wire log of the last request `method` the client sent. */
  lastSent(method: string): number {
    for (let i = this.wire.length - 1; i >= 0; i--) {
      const { dir, msg } = this.wire[i]!;
      if (dir === 'out' && msg.method === method && msg.id !== undefined) return i;
    }
    throw new Error(`the client sent no ${method} request`);
  }

  /** Index in the wire log of the server's response to request `id` (exactly one must exist). */
  responseTo(id: string | number | undefined): number {
    const hits = this.wire.flatMap(({ dir, msg }, i) => (dir === 'in' && msg.method === undefined && msg.id === id ? [i] : []));
    expect(hits).toHaveLength(1);
    return hits[0]!;
  }

  /** The raw result of the last `method` request, as the server wrote it (before any SDK parsing). */
  rawResult(method: string): Record<string, any> | undefined {
    const request = this.wire[this.lastSent(method)]!.msg;
    const response = this.wire[this.responseTo(request.id)]!.msg;
    expect(response.error).toBeUndefined();
    return response.result;
  }

  received(method: string): { index: number; msg: Wire }[] {
    return this.wire.flatMap(({ dir, msg }, index) => (dir === 'in' && msg.method === method ? [{ index, msg }] : []));
  }
}

interface Peer {
  client: Client;
  tap: Tap;
  errors: Error[];
  stderr(): string;
}

async function open(clientInfo = { name: 'conformance-test-client', version: '1.0.0' }, capabilities: Record<string, object> = { sampling: {}, elicitation: {} }): Promise<Peer> {
  const inner = new StdioClientTransport({ command: process.execPath, args: [SERVER], cwd: ROOT, stderr: 'pipe' });
  let stderr = '';
  inner.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const tap = new Tap(inner);
  const client = new Client(clientInfo, { capabilities });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(tap);
  return { client, tap, errors, stderr: () => stderr };
}

const warm: Promise<Peer>[] = [];
const inUse: Peer[] = [];
let sharedPeer: Promise<Peer> | undefined;

/** One connection for the read-only scenarios (verified in afterAll, once it is closed). */
function shared(): Promise<Peer> {
  return (sharedPeer ??= open());
}

function refill(): void {
  while (warm.length < WARM) {
    const next = open();
    next.catch(() => undefined); // reported when a test takes it
    warm.push(next);
  }
}

/** A fresh connection to a fresh server process, as each suite scenario makes. */
async function fresh(): Promise<Peer> {
  refill();
  const next = warm.shift()!;
  refill();
  const peer = await next;
  inUse.push(peer);
  return peer;
}

async function own(peer: Promise<Peer>): Promise<Peer> {
  const p = await peer;
  inUse.push(p);
  return p;
}

/** A round trip: every message the server wrote before the ping's answer has been handled by then. */
async function settle(client: Client): Promise<void> {
  await client.ping();
  await new Promise((r) => setImmediate(r));
}

function contentOf(result: unknown): any[] {
  const content = (result as CallToolResult).content;
  expect(Array.isArray(content)).toBe(true);
  return content as any[];
}

/** Strict base64 (what the SDK's schema accepts and what round-trips), decoded. */
function base64(data: unknown): Buffer {
  expect(typeof data).toBe('string');
  const s = data as string;
  expect(s.length).toBeGreaterThan(0);
  expect(s.length % 4).toBe(0);
  expect(s).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
  const bytes = Buffer.from(s, 'base64');
  expect(bytes.toString('base64')).toBe(s);
  return bytes;
}

/** A PNG that decodes: signature, IHDR first, IEND last, and its dimensions. */
function expectPng(data: unknown): void {
  const png = base64(data);
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(png.toString('latin1', 12, 16)).toBe('IHDR');
  expect(png.readUInt32BE(16)).toBeGreaterThan(0); // width
  expect(png.readUInt32BE(20)).toBeGreaterThan(0); // height
  expect(png.toString('latin1', png.length - 8, png.length - 4)).toBe('IEND');
}

function expectWav(data: unknown): void {
  const wav = base64(data);
  expect(wav.toString('latin1', 0, 4)).toBe('RIFF');
  expect(wav.readUInt32LE(4)).toBe(wav.length - 8);
  expect(wav.toString('latin1', 8, 12)).toBe('WAVE');
}

/** Checks everything a closed connection saw: SDK errors, every stdout line, the server's stderr. */
function verifyClosed({ tap, errors, stderr }: Peer): void {
  // The SDK reported nothing through onerror: no unparsable line, unknown response id or stray progress.
  expect(errors.map(String)).toEqual([]);
  // Every line the server wrote to stdout is one JSON-RPC 2.0 message, and the SDK got each of them.
  expect(tap.stdout.endsWith('\n')).toBe(true);
  const lines = tap.stdout.slice(0, -1).split('\n');
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) {
    let parsed: unknown;
    expect(() => (parsed = JSON.parse(line))).not.toThrow();
    if (!JSONRPCMessageSchema.safeParse(parsed).success) throw new Error(`not a JSON-RPC message on stdout: ${line}`);
    expect((parsed as Wire).jsonrpc).toBe('2.0');
  }
  expect(lines.map((l) => JSON.parse(l))).toEqual(tap.wire.filter((w) => w.dir === 'in').map((w) => w.msg));
  // And the server logged nothing at error level or above on stderr (pino JSON lines).
  const bad = stderr()
    .split('\n')
    .filter((l) => l.trim() !== '')
    .filter((l) => {
      try {
        return (JSON.parse(l) as { level?: number }).level! >= 50;
      } catch {
        return true; // not even a log line
      }
    });
  expect(bad).toEqual([]);
}

beforeAll(() => {
  if (!existsSync(SERVER)) {
    throw new Error(`${SERVER} does not exist: run "npm run build" first (npm test builds before running jest)`);
  }
  refill();
  shared().catch(() => undefined); // start it now; a failure is reported by the first test that uses it
});

afterEach(async () => {
  const peers = inUse.splice(0);
  await Promise.all(peers.map((peer) => peer.client.close()));
  for (const peer of peers) verifyClosed(peer);
  if (sharedPeer) expect((await sharedPeer).errors.map(String)).toEqual([]);
});

afterAll(async () => {
  const spare = await Promise.allSettled(warm.splice(0));
  await Promise.all(spare.flatMap((s) => (s.status === 'fulfilled' ? [s.value.client.close()] : [])));
  if (sharedPeer) {
    const peer = await sharedPeer;
    await peer.client.close();
    verifyClosed(peer);
  }
});

describe('core protocol', () => {
  it('server-initialize', async () => {
    const { client, tap } = await fresh();
    const init = tap.wire[tap.lastSent('initialize')]!.msg;
    expect(init.params).toEqual({
      protocolVersion: '2025-11-25',
      capabilities: { sampling: {}, elicitation: {} },
      clientInfo: { name: 'conformance-test-client', version: '1.0.0' },
    });
    const result = tap.rawResult('initialize')!;
    expect(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07']).toContain(result.protocolVersion);
    expect(result.protocolVersion).toBe('2025-11-25');
    expect(result.serverInfo).toMatchObject({ name: expect.stringMatching(/.+/), version: expect.stringMatching(/.+/) });
    expect(result.capabilities).toEqual({
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      logging: {},
      completions: {},
    });
    // The SDK accepted it: the handshake completed and notifications/initialized followed.
    expect(client.getServerVersion()).toEqual(result.serverInfo);
    expect(tap.wire.some((w) => w.dir === 'out' && w.msg.method === 'notifications/initialized')).toBe(true);
  });

  it('logging-set-level', async () => {
    const { client, tap } = await fresh();
    const result = await client.setLoggingLevel('info');
    expect(result).toEqual({});
    expect(tap.wire[tap.lastSent('logging/setLevel')]!.msg.params).toEqual({ level: 'info' });
    expect(tap.rawResult('logging/setLevel')).toEqual({});
  });

  it('ping', async () => {
    const { client, tap } = await shared();
    expect(await client.ping()).toEqual({});
    expect(tap.wire[tap.lastSent('ping')]!.msg.params).toBeUndefined();
    expect(tap.rawResult('ping')).toEqual({});
  });

  it('completion-complete', async () => {
    const { client } = await shared();
    const result = await client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'test' } });
    expect(Array.isArray(result.completion.values)).toBe(true);
    for (const v of result.completion.values) expect(typeof v).toBe('string');
    expect(result.completion.values.length).toBeLessThanOrEqual(100);
    // The fixture's completer has nothing starting with "test"; a prefix it knows proves it is wired.
    expect(result.completion.values).toEqual([]);
    const par = await client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'par' } });
    expect(par.completion.values).toEqual(['paris', 'park', 'parrot']);
  });
});

describe('tools', () => {
  it('tools-list', async () => {
    const { client, tap } = await shared();
    const { tools, nextCursor } = await client.listTools();
    // The suite does not follow nextCursor: everything must come on the first page.
    expect(nextCursor).toBeUndefined();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'json_schema_2020_12_tool',
        'test_audio_content',
        'test_elicitation',
        'test_elicitation_sep1034_defaults',
        'test_elicitation_sep1330_enums',
        'test_embedded_resource',
        'test_error_handling',
        'test_image_content',
        'test_multiple_content_types',
        'test_reconnection',
        'test_sampling',
        'test_simple_text',
        'test_tool_with_logging',
        'test_tool_with_progress',
        // Called by the suite at 2026-07-28 only, listed in both eras.
        'test_missing_capability',
        'test_streaming_elicitation',
        'test_logging_tool',
        'test_trigger_tool_change',
        'test_trigger_prompt_change',
        'test_custom_headers',
        'test_input_required_result_elicitation',
        'test_input_required_result_sampling',
        'test_input_required_result_list_roots',
        'test_input_required_result_request_state',
        'test_input_required_result_multiple_inputs',
        'test_input_required_result_multi_round',
        'test_input_required_result_tampered_state',
        'test_input_required_result_capabilities',
        'test_dynamic_tool',
      ].sort(),
    );
    // Checked on the raw result, so nothing the SDK's parsing might add or drop hides a problem.
    for (const tool of tap.rawResult('tools/list')!.tools as any[]) {
      expect(tool.name).toMatch(/.+/);
      expect(typeof tool.description).toBe('string');
      expect(tool.description.length).toBeGreaterThan(0);
      expect(tool.inputSchema).toMatchObject({ type: 'object' });
      for (const prop of Object.values(tool.inputSchema.properties ?? {})) expect(prop).toEqual(expect.any(Object));
      if (tool.inputSchema.required !== undefined) {
        expect(Array.isArray(tool.inputSchema.required)).toBe(true);
        for (const r of tool.inputSchema.required) expect(typeof r).toBe('string');
      }
    }
  });

  it('tools-call-simple-text', async () => {
    const { client, tap } = await shared();
    const result = await client.callTool({ name: 'test_simple_text' });
    // Sent as the suite sends it: no `arguments` member at all.
    const sent = tap.wire[tap.lastSent('tools/call')]!.msg;
    expect(sent.params).toEqual({ name: 'test_simple_text' });
    expect('arguments' in sent.params!).toBe(false);
    const content = contentOf(result);
    expect(content.length).toBeGreaterThan(0);
    expect(content.find((c) => c.type === 'text')?.text).toMatch(/.+/);
    expect(content).toEqual([{ type: 'text', text: 'This is a simple text response for testing.' }]);
    expect(result.isError).toBeFalsy();
  });

  it('tools-call-image', async () => {
    const { client } = await shared();
    const result = await client.callTool({ name: 'test_image_content', arguments: {} });
    const img = contentOf(result).find((c) => c.type === 'image');
    expect(img).toBeDefined();
    expect(img.mimeType).toBe('image/png');
    expectPng(img.data);
  });

  it('tools-call-audio', async () => {
    const { client } = await shared();
    const result = await client.callTool({ name: 'test_audio_content', arguments: {} });
    const content = contentOf(result);
    expect(content.length).toBeGreaterThan(0);
    const audio = content.find((c) => c.type === 'audio');
    expect(audio).toBeDefined();
    expect(audio.mimeType).toBe('audio/wav');
    expectWav(audio.data);
  });

  it('tools-call-embedded-resource', async () => {
    const { client } = await shared();
    const result = await client.callTool({ name: 'test_embedded_resource', arguments: {} });
    const content = contentOf(result);
    const item = content.find((c) => c.type === 'resource');
    expect(item?.resource).toMatchObject({ uri: expect.stringMatching(/.+/), mimeType: expect.stringMatching(/.+/) });
    expect(item.resource.text || item.resource.blob).toBeTruthy();
    expect(content).toEqual([{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }]);
  });

  it('tools-call-mixed-content', async () => {
    const { client } = await shared();
    const result = await client.callTool({ name: 'test_multiple_content_types', arguments: {} });
    const content = contentOf(result);
    expect(content.length).toBeGreaterThanOrEqual(2);
    expect(content.map((c) => c.type)).toEqual(['text', 'image', 'resource']);
    expect(content[0]).toEqual({ type: 'text', text: 'Multiple content types test:' });
    expect(content[1].mimeType).toBe('image/png');
    expectPng(content[1].data);
    expect(content[2].resource).toMatchObject({ uri: 'test://mixed-content-resource', mimeType: 'application/json' });
    expect(JSON.parse(content[2].resource.text)).toEqual({ test: 'data', value: 123 });
  });

  it('tools-call-with-logging', async () => {
    const { client, tap } = await fresh();
    const logs: LoggingMessageNotification['params'][] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    expect(await client.setLoggingLevel('debug')).toEqual({});
    expect(tap.rawResult('logging/setLevel')).toEqual({});
    const result = await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    await settle(client);
    expect(logs.length).toBeGreaterThanOrEqual(3);
    for (const l of logs) expect(LoggingLevelSchema.safeParse(l.level).success).toBe(true);
    expect(logs.filter((l) => l.level === 'info').map((l) => l.data)).toEqual(['Tool execution started', 'Tool processing data', 'Tool execution completed']);
    expect(contentOf(result)).toEqual([{ type: 'text', text: 'Tool with logging executed successfully' }]);
    // All three were written before the tool's result.
    const response = tap.responseTo(tap.wire[tap.lastSent('tools/call')]!.msg.id);
    const messages = tap.received('notifications/message');
    expect(messages.length).toBeGreaterThanOrEqual(3);
    for (const m of messages) expect(m.index).toBeLessThan(response);
  });

  it('tools-call-error', async () => {
    const { client, tap } = await shared();
    const result = await client.callTool({ name: 'test_error_handling', arguments: {} });
    expect(result.isError).toBe(true);
    expect(contentOf(result)[0].text).toBe('This tool intentionally returns an error for testing');
    // A CallToolResult, not a JSON-RPC error.
    expect(tap.rawResult('tools/call')).toMatchObject({ isError: true });
  });

  it('tools-call-with-progress', async () => {
    const { client, tap } = await fresh();
    const seen: Progress[] = [];
    const result = await client.request(
      { method: 'tools/call', params: { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'progress-test-1' } } },
      CallToolResultSchema,
      { onprogress: (p) => void seen.push(p) },
    );
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen[0]!.progress).toBeLessThanOrEqual(seen[1]!.progress);
    expect(seen[1]!.progress).toBeLessThanOrEqual(seen[2]!.progress);
    expect(seen.map(({ progress, total }) => ({ progress, total }))).toEqual([
      { progress: 0, total: 100 },
      { progress: 50, total: 100 },
      { progress: 100, total: 100 },
    ]);

    // On the wire: the SDK replaced the token with the (numeric) request id; the server echoed it
    // unchanged on every notification, all of them before the response.
    const call = tap.wire[tap.lastSent('tools/call')]!.msg;
    const token = call.params!._meta.progressToken;
    expect(token).toBe(call.id);
    expect(typeof token).toBe('number');
    const progress = tap.received('notifications/progress');
    expect(progress).toHaveLength(3);
    const response = tap.responseTo(call.id);
    for (const p of progress) {
      expect(p.msg.params!.progressToken).toBe(token);
      expect(p.index).toBeLessThan(response);
    }
    expect(contentOf(result)).toEqual([{ type: 'text', text: String(token) }]);
  });

  it('tools-call-sampling', async () => {
    const { client, tap } = await fresh();
    const requests: CreateMessageRequest['params'][] = [];
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      requests.push(request.params);
      return { role: 'assistant', content: { type: 'text', text: 'This is a test response from the client' }, model: 'test-model', stopReason: 'endTurn' };
    });
    const result = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Test prompt for sampling' } });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ messages: [{ role: 'user', content: { type: 'text', text: 'Test prompt for sampling' } }], maxTokens: 100 });
    const content = contentOf(result);
    expect(content.length).toBeGreaterThan(0);
    expect(content).toEqual([{ type: 'text', text: 'LLM response: This is a test response from the client' }]);
    // The server asked before it answered the call.
    const [ask] = tap.received('sampling/createMessage');
    expect(ask!.index).toBeLessThan(tap.responseTo(tap.wire[tap.lastSent('tools/call')]!.msg.id));
  });

  it('tools-call-elicitation', async () => {
    const { client } = await fresh();
    const requests: ElicitRequest['params'][] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      requests.push(request.params);
      return { action: 'accept', content: { username: 'testuser', email: 'test@example.com' } };
    });
    const result = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Please provide your information' } });
    expect(requests).toHaveLength(1);
    const params = requests[0] as Extract<ElicitRequest['params'], { requestedSchema: unknown }>;
    expect(params.message).toBe('Please provide your information');
    expect(params.requestedSchema).toEqual({
      type: 'object',
      properties: {
        username: { type: 'string', description: "User's response" },
        email: { type: 'string', description: "User's email address" },
      },
      required: ['username', 'email'],
    });
    const content = contentOf(result);
    expect(content.length).toBeGreaterThan(0);
    expect(content).toEqual([{ type: 'text', text: 'User response: action=accept, content={"username":"testuser","email":"test@example.com"}' }]);
  });

  it('json-schema-2020-12', async () => {
    const { client, tap } = await shared();
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'json_schema_2020_12_tool');
    expect(tool).toBeDefined();
    expect(tool!.description).toMatch(/.+/);
    // The suite's schema (0.2.0 checks SEP-2106's allOf/anyOf, if/then/else and $anchor too).
    const authored = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: {
        name: { type: 'string' },
        address: { $ref: '#/$defs/address' },
        contactMethod: { type: 'string', enum: ['phone', 'email'] },
        phone: { type: 'string' },
        email: { type: 'string' },
      },
      allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
      if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
      then: { required: ['phone'] },
      else: { required: ['email'] },
      additionalProperties: false,
    };
    // As the SDK hands it to the suite, and as the server wrote it.
    expect(tool!.inputSchema).toEqual(authored);
    const raw = (tap.rawResult('tools/list')!.tools as any[]).find((t) => t.name === 'json_schema_2020_12_tool');
    expect(raw.inputSchema).toEqual(authored);
    expect(raw.inputSchema.additionalProperties).toBe(false);
  });

  it('elicitation-sep1034-defaults', async () => {
    const { client } = await fresh();
    const requests: ElicitRequest['params'][] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      requests.push(request.params);
      return { action: 'accept', content: { name: 'Jane Smith', age: 25, score: 88, status: 'inactive', verified: false } };
    });
    const result = await client.callTool({ name: 'test_elicitation_sep1034_defaults', arguments: {} });
    expect(requests).toHaveLength(1);
    const props = (requests[0] as any).requestedSchema.properties;
    expect(props.name).toMatchObject({ type: 'string', default: 'John Doe' });
    expect(props.age).toMatchObject({ type: 'integer', default: 30 });
    expect(props.score).toMatchObject({ type: 'number', default: 95.5 });
    expect(props.status).toMatchObject({ type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' });
    expect(props.status.enum).toContain(props.status.default);
    expect(props.verified).toMatchObject({ type: 'boolean', default: true });
    expect(Object.keys(props).sort()).toEqual(['age', 'name', 'score', 'status', 'verified']);
    expect(contentOf(result)).toEqual([
      {
        type: 'text',
        text: 'Elicitation completed: action=accept, content={"name":"Jane Smith","age":25,"score":88,"status":"inactive","verified":false}',
      },
    ]);
  });

  it('elicitation-sep1330-enums', async () => {
    const { client } = await fresh();
    const requests: ElicitRequest['params'][] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      requests.push(request.params);
      return {
        action: 'accept',
        content: { untitledSingle: 'option1', titledSingle: 'value1', legacyEnum: 'opt1', untitledMulti: ['option1', 'option2'], titledMulti: ['value1', 'value2'] },
      };
    });
    const result = await client.callTool({ name: 'test_elicitation_sep1330_enums', arguments: {} });
    expect(requests).toHaveLength(1);
    const props = (requests[0] as any).requestedSchema.properties;
    // Each exactly as FIXTURES.md §4.20 has it; a description is the only addition allowed.
    const withoutDescription = (p: Record<string, unknown>) => {
      const { description, ...rest } = p;
      if (description !== undefined) expect(typeof description).toBe('string');
      return rest;
    };
    expect(withoutDescription(props.untitledSingle)).toEqual({ type: 'string', enum: ['option1', 'option2', 'option3'] });
    expect(withoutDescription(props.titledSingle)).toEqual({
      type: 'string',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    });
    expect(withoutDescription(props.legacyEnum)).toEqual({
      type: 'string',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    });
    expect(withoutDescription(props.untitledMulti)).toEqual({
      type: 'array',
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
      minItems: 1,
      maxItems: 3,
    });
    expect(withoutDescription(props.titledMulti)).toEqual({
      type: 'array',
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
      minItems: 1,
      maxItems: 3,
    });
    expect(Object.keys(props).sort()).toEqual(['legacyEnum', 'titledMulti', 'titledSingle', 'untitledMulti', 'untitledSingle']);
    expect(contentOf(result)[0].text).toBe(
      'Elicitation completed: action=accept, content={"untitledSingle":"option1","titledSingle":"value1","legacyEnum":"opt1","untitledMulti":["option1","option2"],"titledMulti":["value1","value2"]}',
    );
  });
});

describe('resources', () => {
  it('resources-list', async () => {
    const { client } = await shared();
    const { resources, nextCursor } = await client.listResources();
    expect(nextCursor).toBeUndefined();
    for (const r of resources) {
      expect(r.uri).toMatch(/.+/);
      expect(r.name).toMatch(/.+/);
    }
    expect(resources.map(({ uri, name, mimeType }) => ({ uri, name, mimeType }))).toEqual([
      { uri: 'test://static-text', name: 'static-text', mimeType: 'text/plain' },
      { uri: 'test://static-binary', name: 'static-binary', mimeType: 'image/png' },
      { uri: 'test://watched-resource', name: 'watched-resource', mimeType: 'text/plain' },
    ]);
  });

  it('resources-read-text', async () => {
    const { client } = await shared();
    const { contents } = await client.readResource({ uri: 'test://static-text' });
    expect(contents.length).toBeGreaterThan(0);
    expect(contents[0]).toMatchObject({ uri: expect.stringMatching(/.+/), mimeType: expect.stringMatching(/.+/), text: expect.stringMatching(/.+/) });
    expect(contents).toEqual([{ uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' }]);
  });

  it('resources-read-binary', async () => {
    const { client } = await shared();
    const { contents } = await client.readResource({ uri: 'test://static-binary' });
    expect(contents).toHaveLength(1);
    expect(contents[0]).toMatchObject({ uri: 'test://static-binary', mimeType: 'image/png' });
    expect('text' in contents[0]!).toBe(false);
    expectPng((contents[0] as { blob: string }).blob);
  });

  it('resources-templates-read', async () => {
    const { client } = await shared();
    const { contents } = await client.readResource({ uri: 'test://template/123/data' });
    expect(contents.length).toBeGreaterThan(0);
    const first = contents[0] as { uri: string; mimeType?: string; text?: string };
    expect(first.uri).toBe('test://template/123/data');
    expect(typeof first.text).toBe('string'); // a blob-only answer fails the suite
    expect(first.text).toContain('123');
    expect(first.mimeType).toBe('application/json');
    expect(JSON.parse(first.text!)).toEqual({ id: '123', templateTest: true, data: 'Data for ID: 123' });
  });

  it('resources-subscribe', async () => {
    const { client, tap } = await fresh();
    expect(await client.subscribeResource({ uri: 'test://watched-resource' })).toEqual({});
    expect(tap.rawResult('resources/subscribe')).toEqual({});
  });

  it('resources-unsubscribe', async () => {
    const { client, tap } = await fresh();
    expect(await client.subscribeResource({ uri: 'test://watched-resource' })).toEqual({});
    expect(tap.rawResult('resources/subscribe')).toEqual({});
    expect(await client.unsubscribeResource({ uri: 'test://watched-resource' })).toEqual({});
    expect(tap.rawResult('resources/unsubscribe')).toEqual({});
  });
});

describe('prompts', () => {
  it('prompts-list', async () => {
    const { client } = await shared();
    const { prompts, nextCursor } = await client.listPrompts();
    expect(nextCursor).toBeUndefined();
    for (const p of prompts) {
      expect(p.name).toMatch(/.+/);
      expect(p.description).toMatch(/.+/);
    }
    expect(prompts.map((p) => p.name)).toEqual([
      'test_simple_prompt',
      'test_prompt_with_arguments',
      'test_prompt_with_embedded_resource',
      'test_prompt_with_image',
      'test_input_required_result_prompt',
      'test_dynamic_prompt',
    ]);
    const withArgs = prompts.find((p) => p.name === 'test_prompt_with_arguments')!;
    expect(withArgs.arguments?.map(({ name, required }) => ({ name, required }))).toEqual([
      { name: 'arg1', required: true },
      { name: 'arg2', required: true },
    ]);
  });

  it('prompts-get-simple', async () => {
    const { client, tap } = await shared();
    const { messages } = await client.getPrompt({ name: 'test_simple_prompt' });
    expect(tap.wire[tap.lastSent('prompts/get')]!.msg.params).toEqual({ name: 'test_simple_prompt' });
    expect(messages.length).toBeGreaterThan(0);
    for (const m of messages) {
      expect(m.role).toBeTruthy();
      expect(m.content).toBeTruthy();
    }
    expect(messages).toEqual([{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }]);
  });

  it('prompts-get-with-args', async () => {
    const { client } = await shared();
    const { messages } = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'testValue1', arg2: 'testValue2' } });
    expect(messages.length).toBeGreaterThan(0);
    expect(JSON.stringify(messages)).toContain('testValue1');
    expect(JSON.stringify(messages)).toContain('testValue2');
    expect(messages).toEqual([{ role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='testValue1', arg2='testValue2'" } }]);
  });

  it('prompts-get-embedded-resource', async () => {
    const { client } = await shared();
    const { messages } = await client.getPrompt({ name: 'test_prompt_with_embedded_resource', arguments: { resourceUri: 'test://example-resource' } });
    expect(messages.some((m) => m.content.type === 'resource')).toBe(true);
    expect(messages).toEqual([
      {
        role: 'user',
        content: { type: 'resource', resource: { uri: 'test://example-resource', mimeType: 'text/plain', text: 'Embedded resource content for testing.' } },
      },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ]);
  });

  it('prompts-get-with-image', async () => {
    const { client } = await shared();
    const { messages } = await client.getPrompt({ name: 'test_prompt_with_image' });
    const images = messages.filter((m) => m.content.type === 'image').map((m) => m.content as { data: string; mimeType: string });
    expect(images).toHaveLength(1);
    expect(images[0]!.mimeType).toBe('image/png');
    expectPng(images[0]!.data);
    expect(messages[1]).toEqual({ role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } });
  });
});

/**
 * HTTP-only scenarios: they test Streamable HTTP itself (SSE priming, retry and resumption; several
 * POST streams on one session; Host/Origin checks), so they cannot run over stdio. Each asserts the
 * stdio equivalent of what the scenario needs from the server.
 */
describe('HTTP-only scenarios, their stdio equivalent', () => {
  it('server-sse-polling (HTTP-only): test_reconnection still answers over stdio, where closeStream is a no-op', async () => {
    const { client } = await fresh();
    const result = await client.callTool({ name: 'test_reconnection', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(contentOf(result)).toEqual([{ type: 'text', text: 'Reconnection test completed successfully: the result arrived after the client resumed the stream.' }]);
    // The connection is still there afterwards (nothing was closed under it).
    expect(await client.ping()).toEqual({});
  });

  it('server-sse-multiple-streams (HTTP-only): three concurrent tools/list in flight on one stdio connection are all answered', async () => {
    const { client, tap } = await fresh();
    const lists = await Promise.all([client.listTools(), client.listTools(), client.listTools()]);
    const calls = tap.wire.flatMap(({ dir, msg }, i) => (dir === 'out' && msg.method === 'tools/list' ? [{ i, id: msg.id }] : []));
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((c) => c.id)).size).toBe(3);
    const answers = calls.map((c) => tap.responseTo(c.id));
    // All three were in flight together: every request went out before the first answer came back.
    expect(Math.max(...calls.map((c) => c.i))).toBeLessThan(Math.min(...answers));
    for (const list of lists) expect(list).toEqual(lists[0]);
    expect(lists[0]!.tools.length).toBe(29);
  });

  it('dns-rebinding-protection (HTTP-only): no Host/Origin over stdio; the legitimate initialize succeeds and the server listens on no socket', async () => {
    // The scenario's "legitimate" request: a fresh initialize from conformance-dns-rebinding-test, capabilities {}.
    const peer = await own(open({ name: 'conformance-dns-rebinding-test', version: '1.0.0' }, {}));
    expect(peer.tap.rawResult('initialize')!.protocolVersion).toBe('2025-11-25');
    expect(await peer.client.ping()).toEqual({});
    // The attack needs a network listener to rebind to; the stdio server has none. Its only sockets
    // are the three stdio socketpairs Node gave it (fds 0-2).
    const pid = peer.tap.inner.pid;
    expect(pid).toEqual(expect.any(Number));
    if (process.platform !== 'linux') return; // /proc is Linux-only; the CI and this repo's Node binary are Linux
    const sockets = readdirSync(`/proc/${pid}/fd`).filter((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:');
      } catch {
        return false; // closed meanwhile
      }
    });
    expect(sockets.sort()).toEqual(['0', '1', '2']);
  });
});
