/**
 * The request log over Streamable HTTP, from a real listening server: one info line per MCP
 * request (written by the engine, with the HTTP request's id and the caller's address), the
 * session named as the client holds it, and at debug every message, redacted.
 */
import 'reflect-metadata';
import { LoggedServer as Logged } from '../../core/test/fixtures/logged-server';
import { memoryLogger } from '@mcpx/testing';
import pino from 'pino';
import { Writable } from 'node:stream';
import type { McpHttpServer } from '@mcpx/http';
import { callTool, deleteSession, initializeBody, openSession, post, rpc, startServer, waitFor } from './http-kit';

type Line = Record<string, any>;
const mcpLines = (lines: Line[], id: string | number) => lines.filter((l) => l.msg === 'mcp request' && l.requestId === id);

describe('the request log over HTTP', () => {
  const memory = memoryLogger('info');
  let server: McpHttpServer;
  let session: string;

  beforeAll(async () => {
    server = await startServer(new Logged(), { logger: memory.logger });
    session = await openSession(server.url);
  });
  afterAll(() => server.close());

  it('writes one info line per request: method, tool, id, outcome, duration, and the start of the Mcp-Session-Id the client holds', async () => {
    expect((await post(server.url, callTool('call-1', 'echo', { text: 'hi' }), session)).status).toBe(200);
    expect((await post(server.url, callTool(2, 'refuse'), session)).status).toBe(200);
    expect((await post(server.url, callTool(3, 'missing'), session)).status).toBe(200);
    expect((await post(server.url, rpc(4, 'no/such/method'), session)).status).toBe(200);

    const expected: [string | number, Line][] = [
      ['call-1', { mcpMethod: 'tools/call', tool: 'echo', outcome: 'result' }],
      [2, { mcpMethod: 'tools/call', tool: 'refuse', outcome: 'isError' }],
      [3, { mcpMethod: 'tools/call', tool: 'missing', outcome: 'error', errorCode: -32602 }],
      [4, { mcpMethod: 'no/such/method', outcome: 'error', errorCode: -32601, errorMessage: 'Method not found: no/such/method' }],
    ];
    for (const [id, fields] of expected) {
      const found = mcpLines(memory.lines, id);
      expect(found).toHaveLength(1);
      const line = found[0]!;
      expect(line).toMatchObject({ level: 30, ...fields, requestId: id, session: session.slice(0, 8), remoteAddress: '127.0.0.1' });
      // The whole id is a credential: the line carries a prefix the client's id starts with, never the id.
      expect(session.startsWith(line.session)).toBe(true);
      expect(JSON.stringify(line)).not.toContain(session);
      expect(typeof line.durationMs).toBe('number');
      expect(typeof line.reqId).toBe('string');
      if (fields.outcome !== 'error') expect(line).not.toHaveProperty('errorCode');
    }
    // Each request has one info line: the HTTP exchange that carried it is logged at debug.
    expect(memory.lines.filter((l) => l.msg === 'http request' && l.mcpMethod === 'tools/call')).toEqual([]);
  });

  it('logs initialize with the session it created, and notifications not at info', () => {
    const init = mcpLines(memory.lines, 0).find((l) => l.mcpMethod === 'initialize');
    expect(init).toMatchObject({ outcome: 'result', session: session.slice(0, 8) });
    expect(memory.lines.filter((l) => l.mcpMethod === 'notifications/initialized')).toEqual([]);
  });

  it('keeps an info HTTP line for what the engine never saw: a refused POST, a DELETE', async () => {
    const refused = await post(server.url, rpc(9, 'tools/list'), 'no-such-session');
    expect(refused.status).toBe(404);
    // Fastify writes the HTTP line once the response is out: maybe after the client has read it.
    await waitFor(() => memory.lines.some((l) => l.msg === 'http request' && l.status === 404), 'the HTTP line of the 404');
    expect(memory.lines.filter((l) => l.msg === 'http request' && l.session === 'no-such-')).toEqual([
      expect.objectContaining({ level: 30, method: 'POST', mcpMethod: 'tools/list', status: 404, remoteAddress: '127.0.0.1' }),
    ]);
    expect(mcpLines(memory.lines, 9)).toEqual([]);

    expect((await deleteSession(server.url, session)).status).toBe(200);
    await waitFor(() => memory.lines.some((l) => l.msg === 'http request' && l.method === 'DELETE'), 'the HTTP line of the DELETE');
    expect(memory.lines.filter((l) => l.msg === 'http request' && l.method === 'DELETE')).toEqual([
      expect.objectContaining({ level: 30, session: session.slice(0, 8), status: 200, durationMs: expect.any(Number) }),
    ]);
    // By now every earlier exchange has had its HTTP line written, if it had one at info: the calls had none.
    expect(memory.lines.filter((l) => l.msg === 'http request' && l.mcpMethod === 'tools/call')).toEqual([]);
    expect(memory.lines.filter((l) => JSON.stringify(l).includes(session))).toEqual([]);
  });
});

describe('the request log over stateless HTTP', () => {
  it('names no session: the client holds none', async () => {
    const memory = memoryLogger('info');
    const server = await startServer(new Logged(), { logger: memory.logger, stateless: true, jsonResponse: true });
    try {
      const res = await post(server.url, callTool(1, 'echo', { text: 'hi' }));
      expect(res.status).toBe(200);
      const [line] = mcpLines(memory.lines, 1);
      expect(line).toMatchObject({ mcpMethod: 'tools/call', tool: 'echo', outcome: 'result', remoteAddress: '127.0.0.1' });
      expect(line).not.toHaveProperty('session');
    } finally {
      await server.close();
    }
  });
});

describe('the message log over HTTP at debug', () => {
  it('logs each message in and out, and never the password argument or the Authorization header', async () => {
    const memory = memoryLogger('debug');
    const server = await startServer(new Logged(), { logger: memory.logger, jsonResponse: true });
    try {
      const init = await post(server.url, initializeBody(), undefined, { authorization: 'Bearer header-secret-123' });
      const session = init.headers['mcp-session-id'] as string;
      const res = await post(server.url, callTool(5, 'login', { user: 'ada', password: 'hunter2-correct-horse' }), session, {
        authorization: 'Bearer header-secret-123',
      });
      expect(res.body).toContain('welcome ada');

      const messages = memory.lines.filter((l) => l.msg === 'mcp message' && (l.body?.id === 5 || l.body?.params?.name === 'login'));
      expect(messages.map((l) => [l.direction, l.session, typeof l.reqId])).toEqual([
        ['in', session.slice(0, 8), 'string'],
        ['out', session.slice(0, 8), 'string'],
      ]);
      expect(messages[0]!.body.params.arguments).toEqual({ user: 'ada', password: '[redacted]' });
      const text = JSON.stringify(memory.lines);
      expect(text).not.toContain('hunter2');
      expect(text).not.toContain('header-secret-123');
      // At debug the HTTP exchange has its line too, after the engine's.
      await waitFor(() => memory.lines.some((l) => l.msg === 'http request' && l.mcpMethod === 'tools/call'), 'the HTTP line of the call');
      expect(memory.lines.filter((l) => l.msg === 'http request' && l.mcpMethod === 'tools/call')).toEqual([
        expect.objectContaining({ level: 20, session: session.slice(0, 8), status: 200 }),
      ]);
    } finally {
      await server.close();
    }
  });
});

describe('the request logger of a listening server', () => {
  it('binds the request id and the caller’s address in one child, and writes the address once a line', async () => {
    const text: string[] = [];
    const logger = pino({ level: 'info' }, new Writable({ write: (chunk, _encoding, done) => (text.push(...String(chunk).split('\n').filter(Boolean)), done()) }));
    // Children of children resolve `child` to the root's own property, so the spy sees every level.
    const child = jest.spyOn(logger, 'child');
    const server = await startServer(new Logged(), { logger });
    try {
      const session = await openSession(server.url);
      child.mockClear();
      expect((await post(server.url, callTool(7, 'echo', { text: 'hi' }), session)).status).toBe(200);
      expect((await post(server.url, rpc(8, 'tools/list'), 'no-such-session')).status).toBe(404);
      await waitFor(() => text.some((line) => line.includes('"status":404')), 'the HTTP line of the 404');
      const bindings = child.mock.calls.map(([b]) => b as Record<string, unknown>);
      // One child per request, the address bound with its id: none made for the address alone.
      expect(bindings.filter((b) => 'remoteAddress' in b)).toEqual([
        { reqId: expect.any(String), remoteAddress: '127.0.0.1' },
        { reqId: expect.any(String), remoteAddress: '127.0.0.1' },
      ]);
      expect(bindings.filter((b) => 'reqId' in b && !('remoteAddress' in b))).toEqual([]);
      const lines = text.filter((line) => line.includes('"requestId":7') || line.includes('"status":404'));
      expect(lines).toHaveLength(2);
      for (const line of lines) expect(line.split('"remoteAddress"').length - 1).toBe(1);
      expect(lines.map((line) => (JSON.parse(line) as { remoteAddress: string }).remoteAddress)).toEqual(['127.0.0.1', '127.0.0.1']);
    } finally {
      await server.close();
    }
  });

  it('binds the address from the request itself when a proxy is trusted (it may come from X-Forwarded-For)', async () => {
    const memory = memoryLogger('info');
    const server = await startServer(new Logged(), { logger: memory.logger, fastify: { trustProxy: true } });
    try {
      const session = await openSession(server.url);
      const child = jest.spyOn(memory.logger, 'child');
      expect((await post(server.url, callTool(9, 'echo', { text: 'hi' }), session, { 'x-forwarded-for': '203.0.113.7' })).status).toBe(200);
      expect(mcpLines(memory.lines, 9)).toEqual([expect.objectContaining({ outcome: 'result', remoteAddress: '203.0.113.7' })]);
      // The address goes into a second child of the same parent, not into a child of the request's own.
      const made = new Set(child.mock.results.map((r) => r.value as unknown));
      expect(child.mock.calls.map(([b]) => b)).toEqual([{ reqId: expect.any(String) }, { reqId: expect.any(String), remoteAddress: '203.0.113.7' }]);
      expect(child.mock.contexts.filter((parent) => made.has(parent))).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
