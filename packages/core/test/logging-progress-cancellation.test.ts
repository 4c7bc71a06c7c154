import 'reflect-metadata';
import { IsArray, IsNumber } from 'class-validator';
import pino from 'pino';
import { TestClient, connect, rpcErrorOf, memoryLogger } from '@mcpx/testing';
import { CancelledError, McpServer, Tool, createEngine, type RequestContext } from '../src';
import { type JsonRpcNotification } from '../src/transport';

const quiet = { logger: pino({ level: 'silent' }) };

/** Lets queued deliveries (setImmediate) and the promises behind them run. */
async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}

const messagesOf = (client: TestClient) => client.notifications.filter((n) => n.method === 'notifications/message').map((n) => n.params);
const progressOf = (client: TestClient) => client.notifications.filter((n) => n.method === 'notifications/progress').map((n) => n.params);

class Steps {
  @IsArray() @IsNumber({}, { each: true }) values!: number[];
}

class Deferred<T = void> {
  resolve!: (value: T) => void;
  readonly promise = new Promise<T>((resolve) => (this.resolve = resolve));
}

class Worker extends McpServer {
  contexts: RequestContext[] = [];
  aborted: unknown[] = [];
  started = new Deferred<RequestContext>();
  finished = new Deferred();
  release = new Deferred();

  @Tool()
  chatty(_input: void, ctx: RequestContext) {
    ctx.log.debug('debug line', { step: 1 });
    ctx.log.info('info line', { step: 2, nested: { ok: true } });
    ctx.log.notice('notice without data');
    ctx.log.warning('warning line');
    ctx.log.error('error line', { code: 'E1' });
    ctx.log.child('db').critical('db down', { host: 'h' });
    return 'logged';
  }

  @Tool()
  steps(input: Steps, ctx: RequestContext) {
    this.contexts.push(ctx);
    for (const [i, value] of input.values.entries()) ctx.progress(value, 10, `step ${i}`);
    return String(ctx.progressToken);
  }

  @Tool()
  bare(_input: void, ctx: RequestContext) {
    this.contexts.push(ctx);
    ctx.progress(1);
    ctx.progress(2, 2);
    return 'done';
  }

  /** Waits until cancelled, then throws the abort reason. */
  @Tool()
  async waitForAbort(_input: void, ctx: RequestContext) {
    this.contexts.push(ctx);
    try {
      this.started.resolve(ctx);
      await new Promise((_resolve, reject) => {
        ctx.signal.addEventListener('abort', () => {
          this.aborted.push(ctx.signal.reason);
          reject(ctx.signal.reason);
        });
      });
      return 'not reached';
    } finally {
      this.finished.resolve();
    }
  }

  /** Ignores the signal and answers anyway once released. */
  @Tool()
  async stubborn(_input: void, ctx: RequestContext) {
    this.contexts.push(ctx);
    this.started.resolve(ctx);
    await this.release.promise;
    ctx.progress(1);
    this.finished.resolve();
    return 'finished anyway';
  }

  @Tool()
  broadcast(_input: void) {
    this.log('warning', 'broadcast line', { all: true });
    return 'ok';
  }
}

describe('logging', () => {
  it('sends no log notifications to a client that never called logging/setLevel', async () => {
    const client = await connect(new Worker(), quiet);
    const sent = client.record();
    await client.callTool('chatty');
    expect(sent.filter((m) => (m as JsonRpcNotification).method === 'notifications/message')).toEqual([]);
    expect(client.session.logLevel).toBeUndefined();
  });

  it('sends info and above once the client asks for info, with message and data', async () => {
    const client = await connect(new Worker(), quiet);
    await client.setLogLevel('info');
    await client.callTool('chatty');
    expect(messagesOf(client)).toEqual([
      { level: 'info', data: { message: 'info line', step: 2, nested: { ok: true } } },
      { level: 'notice', data: 'notice without data' },
      { level: 'warning', data: 'warning line' },
      { level: 'error', data: { message: 'error line', code: 'E1' } },
      { level: 'critical', logger: 'db', data: { message: 'db down', host: 'h' } },
    ]);
  });

  it('sends the log lines before the response', async () => {
    const client = await connect(new Worker(), quiet);
    await client.setLogLevel('info');
    const sent = client.record();
    await client.callTool('chatty');
    const responseAt = sent.findIndex((m) => 'result' in m);
    const lastLogAt = sent.map((m) => (m as JsonRpcNotification).method).lastIndexOf('notifications/message');
    expect(lastLogAt).toBeGreaterThanOrEqual(0);
    expect(lastLogAt).toBeLessThan(responseAt);
  });

  it('follows logging/setLevel', async () => {
    const client = await connect(new Worker(), quiet);
    expect(await client.setLogLevel('debug')).toEqual({});
    expect(client.session.logLevel).toBe('debug');
    await client.callTool('chatty');
    expect(messagesOf(client).map((p) => p?.level)).toEqual(['debug', 'info', 'notice', 'warning', 'error', 'critical']);
    expect(messagesOf(client)[0]).toEqual({ level: 'debug', data: { message: 'debug line', step: 1 } });

    client.notifications.length = 0;
    await client.setLogLevel('error');
    await client.callTool('chatty');
    expect(messagesOf(client).map((p) => p?.level)).toEqual(['error', 'critical']);

    client.notifications.length = 0;
    await client.setLogLevel('emergency');
    await client.callTool('chatty');
    expect(messagesOf(client)).toEqual([]);
  });

  it('keeps levels per session', async () => {
    const engine = createEngine(new Worker(), quiet);
    const verbose = new TestClient(engine);
    const terse = new TestClient(engine);
    await verbose.initialize();
    await terse.initialize();
    await verbose.setLogLevel('debug');
    await terse.setLogLevel('info');
    await verbose.callTool('chatty');
    await terse.callTool('chatty');
    expect(messagesOf(verbose)).toHaveLength(6);
    expect(messagesOf(terse)).toHaveLength(5);
  });

  it('starts at the clientLogLevel option', async () => {
    const client = await connect(new Worker(), { ...quiet, clientLogLevel: 'warning' });
    await client.callTool('chatty');
    expect(messagesOf(client).map((p) => p?.level)).toEqual(['warning', 'error', 'critical']);
  });

  it.each([['verbose'], ['INFO'], [3], [undefined], ['__proto__'], ['toString'], ['constructor'], ['hasOwnProperty']])(
    'answers logging/setLevel with level %p with -32602',
    async (level) => {
      const client = await connect(new Worker(), { ...quiet, clientLogLevel: 'notice' });
      const error = await rpcErrorOf(client.request('logging/setLevel', level === undefined ? {} : { level }));
      expect(error.code).toBe(-32602);
      expect(error.message).toMatch(/^logging\/setLevel: "level" must be one of debug, info, notice, warning, error, critical, alert, emergency/);
      expect(client.session.logLevel).toBe('notice');
    },
  );

  it('writes every line to pino, whatever the client level, with the request id', async () => {
    const { logger, lines } = memoryLogger();
    const client = await connect(new Worker(), { logger, clientLogLevel: 'emergency' });
    await client.callTool('chatty');
    expect(messagesOf(client)).toEqual([]);
    const debug = lines.find((l) => l.msg === 'debug line');
    // The handler's data sits under its own key, apart from the line's fields.
    expect(debug).toMatchObject({ level: 20, data: { step: 1 } });
    expect(debug!.step).toBeUndefined();
    expect(typeof debug!.requestId).toBe('number');
    expect(lines.find((l) => l.msg === 'info line')).toMatchObject({ level: 30, data: { step: 2, nested: { ok: true } } });
    expect(lines.find((l) => l.msg === 'notice without data')).not.toHaveProperty('data');
    expect(lines.find((l) => l.msg === 'db down')).toMatchObject({ level: 60, logger: 'db', data: { host: 'h' } });
  });

  it("makes one child of the server's logger for a request's log, with the session's and the request's ids, named loggers included", async () => {
    const { logger, lines } = memoryLogger();
    const client = await connect(new Worker(), { logger });
    // Children of children resolve `child` to the root's own property, so the spy sees every level.
    const child = jest.spyOn(logger, 'child');
    await client.callTool('chatty');
    const bindings = child.mock.calls.map(([b]) => b as Record<string, unknown>);
    const session = client.session.id.slice(0, 8);
    // The tool also logs through ctx.log.child('db'): a named logger makes no child of its own.
    expect(bindings).toEqual([{ session, requestId: expect.any(Number) }]);
    expect(lines.find((l) => l.msg === 'info line')).toMatchObject({ session, requestId: expect.any(Number) });
    expect(lines.find((l) => l.msg === 'db down')).toMatchObject({ session, logger: 'db' });
    // A name given twice is the last one, once.
    const nested = client.session.log.child('a').child('b');
    nested.warning('nested');
    expect(lines.find((l) => l.msg === 'nested')).toMatchObject({ logger: 'b', level: 40 });
  });

  it("makes no child for a request whose lines the server's level drops, still sends them to the client, and makes one once the level lets a line through", async () => {
    const { logger, lines } = memoryLogger('warn');
    const client = await connect(new Worker(), { logger });
    await client.setLogLevel('debug');
    const child = jest.spyOn(logger, 'child');
    class Quiet {
      @Tool()
      hush(_input: void, ctx: RequestContext) {
        ctx.log.debug('below warn', { step: 1 });
        ctx.log.child('db').info('also below');
        return 'ok';
      }
    }
    const quietClient = await connect(new Quiet(), { logger });
    await quietClient.setLogLevel('debug');
    child.mockClear();
    await quietClient.callTool('hush');
    expect(child).not.toHaveBeenCalled();
    expect(lines.filter((l) => l.msg === 'below warn' || l.msg === 'also below')).toEqual([]);
    // The client asked for debug: its notifications do not depend on the server's own level.
    expect(messagesOf(quietClient)).toEqual([
      { level: 'debug', data: { message: 'below warn', step: 1 } },
      { level: 'info', logger: 'db', data: 'also below' },
    ]);

    // A line the level lets through makes the request's child, once, with its ids.
    await client.callTool('chatty');
    expect(child.mock.calls.map(([b]) => b)).toEqual([{ session: client.session.id.slice(0, 8), requestId: expect.any(Number) }]);
    expect(lines.find((l) => l.msg === 'warning line')).toMatchObject({ level: 40, requestId: expect.any(Number) });
    expect(lines.find((l) => l.msg === 'info line')).toBeUndefined();

    // The level is read when a line is written: lowered at run time, the next request's debug line is kept.
    logger.level = 'debug';
    child.mockClear();
    await quietClient.callTool('hush');
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines.find((l) => l.msg === 'below warn')).toMatchObject({ level: 20, data: { step: 1 }, requestId: expect.any(Number) });
    expect(lines.find((l) => l.msg === 'also below')).toMatchObject({ level: 30, logger: 'db' });
  });

  it("keeps data fields named like the line's own apart from them: one `name` per JSON line", async () => {
    const chunks: string[] = [];
    const logger = pino({ name: 'greeter', level: 'info' }, { write: (chunk: string) => void chunks.push(chunk) });
    class Greeter {
      @Tool()
      greet(_input: void, ctx: RequestContext) {
        ctx.log.info('greeting', { name: 'Ada', level: 'high', msg: 'hi' });
        return 'hello';
      }
    }
    const client = await connect(new Greeter(), { logger });
    await client.callTool('greet');
    const raw = chunks.find((c) => c.includes('"msg":"greeting"'))!;
    expect(JSON.parse(raw)).toMatchObject({ name: 'greeter', level: 30, msg: 'greeting', data: { name: 'Ada', level: 'high', msg: 'hi' } });
    // Outside `data`, each of the line's own keys appears once (JSON.parse would silently keep the last of two).
    const outside = raw.replace('"data":{"name":"Ada","level":"high","msg":"hi"}', '');
    expect(outside).not.toBe(raw);
    for (const key of ['name', 'level', 'msg']) expect(outside.split(`"${key}":`)).toHaveLength(2);
  });

  it("writes an Error passed as data.err as the line's err, with its message and stack", async () => {
    const { logger, lines } = memoryLogger();
    class Failing {
      @Tool()
      fail(_input: void, ctx: RequestContext) {
        ctx.log.error('lookup failed', { err: new Error('db unreachable'), table: 'notes' });
        ctx.log.error('bare error', { err: new Error('alone') });
        return 'logged';
      }
    }
    const client = await connect(new Failing(), { logger });
    await client.callTool('fail');
    const line = lines.find((l) => l.msg === 'lookup failed')!;
    expect(line.err).toMatchObject({ type: 'Error', message: 'db unreachable', stack: expect.stringContaining('db unreachable') });
    expect(line.data).toEqual({ table: 'notes' });
    expect(lines.find((l) => l.msg === 'bare error')).not.toHaveProperty('data');
  });

  it('broadcasts server-wide lines to every initialized session at its level', async () => {
    const engine = createEngine(new Worker(), quiet);
    const a = new TestClient(engine);
    const b = new TestClient(engine);
    const uninitialized = new TestClient(engine);
    await a.initialize();
    await b.initialize();
    await a.setLogLevel('info');
    await b.setLogLevel('error');
    await a.callTool('broadcast');
    await settle();
    expect(messagesOf(a)).toEqual([{ level: 'warning', data: { message: 'broadcast line', all: true } }]);
    expect(messagesOf(b)).toEqual([]);
    expect(uninitialized.notifications).toEqual([]);
  });
});

describe('progress', () => {
  it('sends nothing when the request carried no progressToken', async () => {
    const server = new Worker();
    const client = await connect(server, quiet);
    expect(await client.callTool('bare')).toEqual({ content: [{ type: 'text', text: 'done' }] });
    expect(server.contexts[0]!.progressToken).toBeUndefined();
    expect(progressOf(client)).toEqual([]);
  });

  it('echoes a numeric token and reports progress, total and message', async () => {
    const server = new Worker();
    const client = await connect(server, quiet);
    const seen: unknown[] = [];
    const result = await client.callTool('steps', { values: [1, 5, 10] }, { onProgress: (p) => seen.push(p) });
    const token = server.contexts[0]!.requestId;
    expect((result.content[0] as { text: string }).text).toBe(String(token));
    expect(progressOf(client)).toEqual([
      { progressToken: token, progress: 1, total: 10, message: 'step 0' },
      { progressToken: token, progress: 5, total: 10, message: 'step 1' },
      { progressToken: token, progress: 10, total: 10, message: 'step 2' },
    ]);
    expect(seen).toHaveLength(3);
  });

  it.each([
    ['a string token', 'tok-Ünïcode/1'],
    ['the number 0', 0],
    ['a large number', 9007199254740991],
  ])('echoes %s unchanged', async (_what, progressToken) => {
    const client = await connect(new Worker(), quiet);
    await client.request('tools/call', { name: 'bare', _meta: { progressToken } });
    expect(progressOf(client)).toEqual([
      { progressToken, progress: 1 },
      { progressToken, progress: 2, total: 2 },
    ]);
  });

  it('ignores a progressToken that is neither string nor number', async () => {
    const client = await connect(new Worker(), quiet);
    await client.request('tools/call', { name: 'bare', _meta: { progressToken: { id: 1 } } });
    expect(progressOf(client)).toEqual([]);
  });

  it('drops values that do not increase', async () => {
    const client = await connect(new Worker(), quiet);
    await client.request('tools/call', { name: 'steps', arguments: { values: [1, 1, 0.5, 3, 2, 3, 4] }, _meta: { progressToken: 'p' } });
    expect(progressOf(client).map((p) => p?.progress)).toEqual([1, 3, 4]);
  });

  it('sends no progress once the response is out', async () => {
    const server = new Worker();
    const client = await connect(server, quiet);
    const sent = client.record();
    await client.request('tools/call', { name: 'bare', _meta: { progressToken: 'late' } });
    const before = sent.length;
    server.contexts[0]!.progress(100, 100, 'too late');
    await settle();
    expect(sent).toHaveLength(before);
    expect(progressOf(client).map((p) => p?.progress)).toEqual([1, 2]);
  });
});

describe('cancellation', () => {
  it('aborts ctx.signal and sends no response for the cancelled request', async () => {
    const server = new Worker();
    const client = await connect(server, quiet);
    const sent = client.record();
    const controller = new AbortController();
    const pending = client.callTool('waitForAbort', undefined, { signal: controller.signal });
    const ctx = await server.started.promise;
    expect(ctx.signal.aborted).toBe(false);
    controller.abort('user pressed stop');
    await expect(pending).rejects.toThrow('aborted');
    await server.finished.promise;
    await settle();
    expect(ctx.signal.aborted).toBe(true);
    expect(server.aborted).toHaveLength(1);
    expect(server.aborted[0]).toBeInstanceOf(CancelledError);
    expect((server.aborted[0] as Error).message).toContain('user pressed stop');
    expect(sent.filter((m) => 'id' in m && m.id === ctx.requestId)).toEqual([]);
    expect(client.session.requestsInFlight).toBe(0);
    // the session goes on working
    expect(await client.ping()).toEqual({});
  });

  it('sends no response even when the handler finishes normally after the cancellation', async () => {
    const server = new Worker();
    const client = await connect(server, quiet);
    const sent = client.record();
    const ctx = new Deferred<RequestContext>();
    void server.started.promise.then(ctx.resolve);
    void client.request('tools/call', { name: 'stubborn', _meta: { progressToken: 'x' } }).catch(() => undefined);
    const context = await ctx.promise;
    client.notify('notifications/cancelled', { requestId: context.requestId, reason: 'changed my mind' });
    await settle();
    expect(context.signal.aborted).toBe(true);
    server.release.resolve();
    await server.finished.promise;
    await settle();
    expect(sent.filter((m) => 'id' in m && m.id === context.requestId)).toEqual([]);
    expect(sent.filter((m) => (m as JsonRpcNotification).method === 'notifications/progress')).toEqual([]);
  });

  it('ignores a cancellation for an unknown or finished request', async () => {
    const server = new Worker();
    const client = await connect(server, quiet);
    await client.callTool('bare');
    const sent = client.record();
    client.notify('notifications/cancelled', { requestId: 9999, reason: 'unknown' });
    client.notify('notifications/cancelled', { requestId: server.contexts[0]!.requestId });
    client.notify('notifications/cancelled', { requestId: { nested: true } });
    client.notify('notifications/cancelled', {});
    await settle();
    expect(sent).toEqual([]);
    expect(await client.ping()).toEqual({});
    expect(await client.callTool('bare')).toEqual({ content: [{ type: 'text', text: 'done' }] });
  });

  it('cancels only the request named', async () => {
    const server = new Worker();
    const client = await connect(server, quiet);
    const controller = new AbortController();
    const cancelled = client.callTool('waitForAbort', undefined, { signal: controller.signal });
    const ctx = await server.started.promise;
    const other = client.callTool('bare');
    controller.abort();
    await expect(cancelled).rejects.toThrow();
    await expect(other).resolves.toEqual({ content: [{ type: 'text', text: 'done' }] });
    await server.finished.promise;
    expect(ctx.signal.aborted).toBe(true);
    expect(server.contexts[1]!.signal.aborted).toBe(false);
  });

  it('aborts requests in flight when the session closes', async () => {
    const server = new Worker();
    const client = await connect(server, quiet);
    const pending = client.callTool('waitForAbort');
    const ctx = await server.started.promise;
    client.close();
    await expect(pending).rejects.toThrow('Client closed');
    await server.finished.promise;
    expect(ctx.signal.aborted).toBe(true);
    expect(ctx.signal.reason).toBeInstanceOf(CancelledError);
  });
});
