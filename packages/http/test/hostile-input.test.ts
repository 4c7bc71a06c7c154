/**
 * Hostile input over Streamable HTTP, against the example server: arguments built to stall the
 * event loop, protocol fields checked as the schema says, the per-session in-flight cap, and what
 * a stateless server does where it cannot reach the client. Each answer is checked to the status,
 * the error code and the message that names the limit or field.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer, Tool } from '@mcpx/core';
import type { McpHttpServer } from '@mcpx/http';
import { NotesServer, SAMPLE_NOTES } from '../../../apps/example/src/notes-server';
import { NotesStore } from '../../../apps/example/src/notes-store';
import { Gate, initializeBody, jsonOf, openSession, post, postHeaders, postSse, request, rpc, rpcErrorOf, startServer, waitFor, type RawResponse } from './http-kit';

const dataDirs: string[] = [];
afterAll(() => {
  for (const dir of dataDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function notesServer(): NotesServer {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-hostile-'));
  dataDirs.push(dir);
  return new NotesServer(new NotesStore({ dir, seed: SAMPLE_NOTES }));
}

const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
const manyKeys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`key${i}`, i]));

/** A tools/call body whose arguments are spliced in as raw JSON text. */
const rawCall = (id: string | number, name: string, argumentsJson: string) =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${argumentsJson}}}`;

/** The JSON-RPC response of a request answered as JSON or as an SSE stream (the mode decides). */
function responseOf(res: RawResponse): any {
  expect(res.status).toBe(200);
  if (String(res.headers['content-type']).startsWith('application/json')) return jsonOf(res);
  const data = res.body
    .split('\n\n')
    .map((block) =>
      block
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .join('\n'),
    )
    .filter((d) => d !== '')
    .map((d) => JSON.parse(d));
  return data.find((m) => m.id !== undefined && (m.result !== undefined || m.error !== undefined));
}

const toolText = (response: any): string => response.result.content.map((c: { text: string }) => c.text).join('\n');

describe('hostile input over Streamable HTTP (the example server)', () => {
  let server: McpHttpServer;
  let session: string;
  const healthz = () => request(server.url.replace(/\/mcp$/, '/healthz'));

  beforeAll(async () => {
    server = await startServer(notesServer());
    session = await openSession(server.url);
  });
  afterAll(() => server.close());

  it('refuses 200,000 extra keys (2.6 MB) before parsing them, while a normal call and /healthz are answered beside it', async () => {
    const hostile = rawCall('hostile', 'search', JSON.stringify({ query: 'x', extra: manyKeys(200_000) }));
    expect(hostile.length).toBeGreaterThan(2_500_000);
    const [refused, normal, health] = await Promise.all([
      post(server.url, hostile, session),
      post(server.url, rpc('normal', 'tools/call', { name: 'search', arguments: { query: 'milk' } }), session),
      healthz(),
    ]);
    expect(refused.status).toBe(200);
    expect(rpcErrorOf(refused, 'hostile')).toEqual({
      code: -32602,
      message: 'Invalid params: params.arguments.extra has an object with more than 10000 keys (a limit this server sets)',
    });
    expect(responseOf(normal)).toMatchObject({ id: 'normal', result: { structuredContent: { total: 1, notes: [{ title: 'Shopping' }] } } });
    expect(health.status).toBe(200);
  });

  it('answers arguments within the message budget but over the argument limits with a tool error naming the limit', async () => {
    const keys = responseOf(await post(server.url, rawCall(1, 'search', JSON.stringify({ query: 'x', extra: manyKeys(8_000) })), session));
    expect(keys.result.isError).toBe(true);
    expect(toolText(keys)).toBe('Invalid arguments:\n- extra: the arguments hold more than 5000 keys and items in all (the limit)');

    const deep = responseOf(await post(server.url, rawCall(2, 'search', `{"query":"x","extra":${nested(40)}}`), session));
    expect(deep.result.isError).toBe(true);
    expect(toolText(deep)).toMatch(/^Invalid arguments:\n- extra(\.a)+: nesting deeper than the limit of 32 levels$/);

    const long = responseOf(await post(server.url, rawCall(3, 'search', JSON.stringify({ query: 'q'.repeat(1_048_577) })), session));
    expect(long.result.isError).toBe(true);
    expect(toolText(long)).toBe('Invalid arguments:\n- query: string of 1048577 characters is longer than the limit of 1048576');
  });

  it('answers 100,000 levels of nesting (200 KB) with -32602 naming the depth limit, never an internal error', async () => {
    const res = await post(server.url, rawCall('deep', 'search', nested(100_000)), session);
    expect(res.status).toBe(200);
    expect(rpcErrorOf(res, 'deep')).toEqual({
      code: -32602,
      message: 'Invalid params: params.arguments.a.a nests deeper than 64 levels (a limit this server sets)',
    });
  });

  it('refuses properties the input class does not declare, with the property named', async () => {
    const response = responseOf(await post(server.url, rpc(4, 'tools/call', { name: 'search', arguments: { query: 'x', admin: true } }), session));
    expect(response.result.isError).toBe(true);
    expect(toolText(response)).toBe('Invalid arguments:\n- admin: property admin should not exist');
  });

  it('answers a non-integer id with 400 and -32600, without an id', async () => {
    for (const id of ['1.5', '1e400', '-0.25']) {
      const res = await post(server.url, `{"jsonrpc":"2.0","id":${id},"method":"ping"}`, session);
      expect(res.status).toBe(400);
      expect(rpcErrorOf(res)).toMatchObject({ code: -32600, message: expect.stringContaining('"id" must be a string or an integer') });
    }
    expect(responseOf(await post(server.url, `{"jsonrpc":"2.0","id":-7,"method":"ping"}`, session))).toEqual({ jsonrpc: '2.0', id: -7, result: {} });
  });

  it('answers params._meta that is not an object with -32602, echoing the id', async () => {
    for (const meta of [5, 'x', [], null]) {
      const response = responseOf(await post(server.url, rpc('meta', 'tools/call', { name: 'search', arguments: { query: 'x' }, _meta: meta }), session));
      expect(response).toMatchObject({ id: 'meta', error: { code: -32602, message: expect.stringContaining('"params._meta" must be an object') } });
    }
  });

  it('takes only the eight levels in logging/setLevel, as own properties', async () => {
    for (const level of ['__proto__', 'constructor', 'toString', 'INFO']) {
      const response = responseOf(await post(server.url, rpc('level', 'logging/setLevel', { level }), session));
      expect(response).toMatchObject({ id: 'level', error: { code: -32602, message: expect.stringContaining('"level" must be one of debug, info, notice') } });
    }
    expect(responseOf(await post(server.url, rpc('level', 'logging/setLevel', { level: 'error' }), session))).toEqual({ jsonrpc: '2.0', id: 'level', result: {} });
  });
});

/** A server whose one tool waits for the test to open its gate. */
class Held extends McpServer {
  gates: Gate[] = [];
  started = 0;

  @Tool({ description: 'Waits until the test lets it go.' })
  async hold() {
    this.started++;
    const gate = new Gate();
    this.gates.push(gate);
    await gate.promise;
    return 'released';
  }
}

describe('the in-flight cap over Streamable HTTP', () => {
  let server: McpHttpServer;
  let held: Held;

  beforeAll(async () => {
    held = new Held();
    server = await startServer(held, { maxRequestsInFlight: 2 });
  });
  afterAll(async () => {
    for (const gate of held.gates) gate.open();
    await server.close();
  });

  it('answers 429 with Retry-After and -32004 over the cap, serves other sessions meanwhile, and this one once a request ends', async () => {
    const session = await openSession(server.url);
    const first = await postSse(server.url, session, rpc('a', 'tools/call', { name: 'hold' }));
    const second = await postSse(server.url, session, rpc('b', 'tools/call', { name: 'hold' }));
    await waitFor(() => held.started === 2, 'both calls running');

    const over = await post(server.url, rpc('c', 'tools/call', { name: 'hold' }), session);
    expect(over.status).toBe(429);
    expect(over.headers['retry-after']).toBe('1');
    expect(rpcErrorOf(over, 'c')).toEqual({
      code: -32004,
      message: 'Too many requests in flight: this session already has 2 requests running (maxRequestsInFlight); wait for some to finish',
      data: { limit: 'maxRequestsInFlight', max: 2 },
    });
    expect(held.started).toBe(2);

    const other = await openSession(server.url);
    expect(responseOf(await post(server.url, rpc('p', 'ping'), other))).toEqual({ jsonrpc: '2.0', id: 'p', result: {} });

    held.gates[0]!.open();
    const events = await first.rest();
    expect(events.map((b) => b.message).filter(Boolean)).toContainEqual({ jsonrpc: '2.0', id: 'a', result: { content: [{ type: 'text', text: 'released' }] } });
    expect(responseOf(await post(server.url, rpc('d', 'ping'), session))).toEqual({ jsonrpc: '2.0', id: 'd', result: {} });
    held.gates[1]!.open();
    await second.rest();
  });
});

describe('a stateless server, where nothing can reach the client', () => {
  let server: McpHttpServer;
  let notes: NotesServer;
  const statelessPost = (body: string) => request(server.url, { method: 'POST', headers: postHeaders(undefined, { 'mcp-protocol-version': '2025-11-25' }), body });

  beforeAll(async () => {
    notes = notesServer();
    server = await startServer(notes, { stateless: true, jsonResponse: true });
  });
  afterAll(() => server.close());

  it('lists no tool with execution.taskSupport, and offers no tasks at initialize', async () => {
    const init = jsonOf(await statelessPost(initializeBody()));
    expect(init.result.capabilities.tasks).toBeUndefined();
    const list = jsonOf(await statelessPost(rpc(1, 'tools/list')));
    expect(list.result.tools.map((t: { name: string }) => t.name)).toContain('export');
    for (const tool of list.result.tools) expect(tool.execution?.taskSupport).toBeUndefined();
  });

  it('keeps the note when delete cannot ask for confirmation, and says that the server runs stateless', async () => {
    const call = jsonOf(await statelessPost(rpc(2, 'tools/call', { name: 'delete', arguments: { id: '1' } })));
    expect(call.result.isError).toBe(true);
    expect(toolText(call)).toBe('Kept note 1: this server runs stateless, so it cannot ask for the confirmation a deletion needs.');
    expect(notes.store.get('1')).toMatchObject({ title: 'Welcome' });
  });

  it('answers a budget refusal with the id, as JSON, and a fractional id with 400', async () => {
    const deep = await statelessPost(rawCall(3, 'search', nested(1_000)));
    expect(deep.status).toBe(200);
    expect(rpcErrorOf(deep, 3)).toMatchObject({ code: -32602, message: expect.stringContaining('nests deeper than 64 levels') });
    const fractional = await statelessPost('{"jsonrpc":"2.0","id":2.5,"method":"tools/list"}');
    expect(fractional.status).toBe(400);
    expect(rpcErrorOf(fractional).code).toBe(-32600);
  });
});
