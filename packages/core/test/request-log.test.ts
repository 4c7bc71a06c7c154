import 'reflect-metadata';
import { LoggedServer } from './fixtures/logged-server';
import { connect, memoryLogger, rpcErrorOf } from '@mcpx/testing';
import { Prompt, Resource, Server, Tool, createEngine, type RequestContext } from '../src';
import { parseMessage, type JsonRpcMessage, type JsonRpcRequest } from '../src/transport';

/** An object that counts how often something turns it into JSON. */
class Trap {
  static calls = 0;
  toJSON() {
    Trap.calls++;
    return 'trap';
  }
}

@Server({ name: 'logged', version: '1.0.0' })
class Logged extends LoggedServer {
  @Tool()
  chatty(_input: void, ctx: RequestContext) {
    ctx.progress(1, 2);
    return { content: [{ type: 'text' as const, text: 'your header was Authorization: Bearer abcdefgh12345678' }], _meta: { held: new Trap() } };
  }

  @Tool()
  async hang(_input: void, ctx: RequestContext) {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    return 'never sent';
  }

  @Resource({ uri: 'mem://readme' })
  readme() {
    return 'read me';
  }

  @Prompt()
  greet() {
    return 'hello';
  }
}

const requestLines = (lines: Record<string, any>[]) => lines.filter((l) => l.msg === 'mcp request');
const messageLines = (lines: Record<string, any>[]) => lines.filter((l) => l.msg === 'mcp message');

describe('the request log line', () => {
  it('names method, subject, id, outcome, duration and the session for every request, at info', async () => {
    const { logger, lines } = memoryLogger('info');
    const client = await connect(new Logged(), { logger });
    const before = requestLines(lines).length;
    await client.callTool('echo', { text: 'hi' });
    await client.callTool('refuse');
    const unknown = await rpcErrorOf(client.callTool('missing'));
    const notFound = await rpcErrorOf(client.request('no/such/method'));
    await client.readResource('mem://readme');
    await client.getPrompt('greet');
    await client.request('tasks/get', { taskId: 'no-such-task' }).catch(() => undefined);

    const logged = requestLines(lines).slice(before);
    for (const line of logged) {
      expect(line.level).toBe(30);
      expect(line.session).toBe(client.session.id.slice(0, 8)); // the id's start: the whole id is a credential
      expect(typeof line.durationMs).toBe('number');
      expect(line.durationMs).toBeGreaterThanOrEqual(0);
      expect(typeof line.requestId).toBe('number');
    }
    const summary = logged.map((l) => [l.mcpMethod, l.tool ?? l.uri ?? l.prompt, l.outcome, l.errorCode]);
    expect(summary).toEqual([
      ['tools/call', 'echo', 'result', undefined],
      ['tools/call', 'refuse', 'isError', undefined],
      ['tools/call', 'missing', 'error', unknown.code],
      ['no/such/method', undefined, 'error', notFound.code],
      ['resources/read', 'mem://readme', 'result', undefined],
      ['prompts/get', 'greet', 'result', undefined],
      ['tasks/get', undefined, 'error', expect.any(Number)],
    ]);
    expect(logged[6]!.taskId).toBe('no-such-task');
    expect(notFound.code).toBe(-32601);
    expect(logged[3]!.errorMessage).toBe('Method not found: no/such/method');
    // Ids are the client's own: the first call of this test was the client's next id after initialize.
    expect(new Set(logged.map((l) => l.requestId)).size).toBe(logged.length);
    client.close();
  });

  it('says "cancelled" for a request the client cancelled (it gets no response)', async () => {
    const { logger, lines } = memoryLogger('info');
    const client = await connect(new Logged(), { logger });
    const abort = new AbortController();
    const call = client.request('tools/call', { name: 'hang' }, { signal: abort.signal });
    abort.abort('enough'); // the cancellation is delivered after the request, as on a wire
    await call.catch(() => undefined);
    const until = Date.now() + 5000;
    while (!requestLines(lines).some((l) => l.tool === 'hang') && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(requestLines(lines).find((l) => l.tool === 'hang')).toMatchObject({ mcpMethod: 'tools/call', outcome: 'cancelled' });
    client.close();
  });

  it('logs notifications at debug only', async () => {
    const info = memoryLogger('info');
    const quiet = await connect(new Logged(), { logger: info.logger });
    await quiet.ping(); // delivered after notifications/initialized, so that one has been handled
    expect(info.lines.filter((l) => l.mcpMethod === 'ping')).toHaveLength(1);
    expect(info.lines.filter((l) => l.mcpMethod === 'notifications/initialized')).toEqual([]);
    quiet.close();

    const debug = memoryLogger('debug');
    const client = await connect(new Logged(), { logger: debug.logger });
    await client.ping();
    expect(debug.lines.filter((l) => l.msg === 'mcp notification')).toEqual([
      expect.objectContaining({ level: 20, mcpMethod: 'notifications/initialized', session: client.session.id.slice(0, 8) }),
    ]);
    client.close();
  });

  it('writes one line for a frame refused before it could be read, with its error code', async () => {
    const { logger, lines } = memoryLogger('info');
    const engine = createEngine(new Logged(), { logger });
    const session = engine.createSession({ send() {} }, 'refusing');
    await session.receive(parseMessage('{"jsonrpc":"2.0","id":7,"method":"ping","params":[1]}'), { send() {} });
    expect(requestLines(lines)).toEqual([expect.objectContaining({ session: 'refusing', requestId: 7, outcome: 'error', errorCode: -32602, durationMs: 0 })]);
  });
});

describe('the message log at debug', () => {
  /** A session driven with request objects as they are, so that nothing but the server serialises them. */
  async function rawSession(level: 'info' | 'debug', debugMessageBytes?: number) {
    const memory = memoryLogger(level);
    const engine = createEngine(new Logged(), { logger: memory.logger, debugMessageBytes });
    const sent: JsonRpcMessage[] = [];
    const channel = { send: (message: JsonRpcMessage) => void sent.push(message) };
    const session = engine.createSession(channel, 'raw-session');
    const ask = (request: Omit<JsonRpcRequest, 'jsonrpc'>) => session.handleRequest({ jsonrpc: '2.0', ...request }, channel);
    await ask({ id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    await session.receive({ kind: 'notification', message: { jsonrpc: '2.0', method: 'notifications/initialized' } }, channel);
    return { ...memory, session, ask, sent };
  }

  it('logs every message in and out, with direction and session', async () => {
    const { lines, ask } = await rawSession('debug');
    await ask({ id: 1, method: 'tools/call', params: { name: 'chatty', arguments: {}, _meta: { progressToken: 'p-1' } } });
    const call = messageLines(lines).filter((l) => l.body?.id === 1 || l.body?.params?.progressToken === 'p-1');
    expect(call.map((l) => [l.direction, l.body.method ?? 'response'])).toEqual([
      ['in', 'tools/call'],
      ['out', 'notifications/progress'],
      ['out', 'response'],
    ]);
    for (const line of messageLines(lines)) expect(line).toMatchObject({ level: 20, session: 'raw-sess', bytes: expect.any(Number) });
    // The protocol's progress token is no secret; the bearer token in the result's text is.
    expect(call[0]!.body.params._meta).toEqual({ progressToken: 'p-1' });
    expect(call[2]!.body.result.content[0].text).toBe('your header was Authorization: Bearer [redacted]');
  });

  it('never writes a secret-looking argument, such as a password, in any line', async () => {
    const { lines, ask, sent } = await rawSession('debug');
    await ask({
      id: 2,
      method: 'tools/call',
      params: { name: 'login', arguments: { user: 'ada', password: 'hunter2-correct-horse' }, _meta: { apiKey: 'k-123456', session_token: 'tok-987' } },
    });
    expect(sent).toEqual([]); // the response went back to the caller, not on the channel
    const text = JSON.stringify(lines);
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('k-123456');
    expect(text).not.toContain('tok-987');
    const incoming = messageLines(lines).find((l) => l.direction === 'in' && l.body.id === 2)!;
    expect(incoming.body.params).toEqual({
      name: 'login',
      arguments: { user: 'ada', password: '[redacted]' },
      _meta: { apiKey: '[redacted]', session_token: '[redacted]' },
    });
  });

  it('redacts before it truncates: a cut inside a secret shows none of it', async () => {
    const request = { id: 3, method: 'tools/call', params: { name: 'login', arguments: { user: 'ada', password: 'hunter2-correct-horse' } } };
    const json = JSON.stringify({ jsonrpc: '2.0', ...request });
    // Cut five bytes into the password's value: truncating first would keep "hunte".
    const cut = json.indexOf('hunter2') + 5;
    const { lines, ask } = await rawSession('debug', cut);
    await ask(request);
    const incoming = messageLines(lines).find((l) => l.direction === 'in' && l.bodyText?.includes('"login"'))!;
    expect(incoming.bodyText).toContain('"password":"[reda');
    expect(JSON.stringify(lines)).not.toContain('hunte');
  });

  it('cuts a long message to the limit, with a marker saying how long it was', async () => {
    const { lines, ask } = await rawSession('debug');
    const text = 'x'.repeat(10_000);
    await ask({ id: 4, method: 'tools/call', params: { name: 'echo', arguments: { text } } });
    const [incoming, outgoing] = messageLines(lines).filter((l) => l.bodyText !== undefined);
    const inBytes = 10_000 + 95; // the envelope around the text is 95 bytes
    expect(incoming).toMatchObject({ direction: 'in', bytes: inBytes });
    expect(incoming!.body).toBeUndefined();
    const json = JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: { text } } });
    expect(incoming!.bodyText).toBe(`${json.slice(0, 2048)}… [truncated: ${inBytes} bytes]`);
    expect(outgoing).toMatchObject({ direction: 'out', bytes: expect.any(Number) });
    expect(outgoing!.bytes).toBeGreaterThan(10_000);
    expect(outgoing!.bodyText.endsWith(`… [truncated: ${outgoing!.bytes} bytes]`)).toBe(true);
  });

  it('cuts between characters, never inside one', async () => {
    const { lines, ask } = await rawSession('debug', 80);
    await ask({ id: 5, method: 'tools/call', params: { name: 'echo', arguments: { text: 'é'.repeat(100) } } });
    const incoming = messageLines(lines).find((l) => l.direction === 'in' && l.bodyText !== undefined)!;
    const kept = incoming.bodyText.slice(0, incoming.bodyText.indexOf('… [truncated'));
    expect(kept).not.toContain('\uFFFD');
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(80);
    expect(Buffer.byteLength(kept)).toBeGreaterThanOrEqual(79);
  });

  it('serialises no message for the log at info', async () => {
    const info = await rawSession('info');
    Trap.calls = 0;
    await info.ask({ id: 6, method: 'tools/call', params: { name: 'chatty', arguments: {}, extra: new Trap(), _meta: { progressToken: 'p' } } });
    expect(requestLines(info.lines).find((l) => l.requestId === 6)).toMatchObject({ tool: 'chatty', outcome: 'result' });
    expect(messageLines(info.lines)).toEqual([]);
    expect(Trap.calls).toBe(0);

    // The same request at debug does serialise both (so the trap can tell).
    const debug = await rawSession('debug');
    await debug.ask({ id: 6, method: 'tools/call', params: { name: 'chatty', arguments: {}, extra: new Trap(), _meta: { progressToken: 'p' } } });
    expect(Trap.calls).toBe(2);
  });
});
