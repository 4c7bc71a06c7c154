/**
 * serveStdio on in-memory streams, driven message by message: a response to a request that
 * reported progress waits for the client's answer to a ping written after that progress
 * (ProgressBarrier), and process.stdout.write is redirected to stderr while a session asks for it.
 * The SDK client over a real process is in sdk-progress-stdout.test.ts.
 */
import 'reflect-metadata';
import { PassThrough } from 'node:stream';
import pino from 'pino';
import { Server, Tool, type RequestContext } from '@mcpx/core';
import { serveStdio, type StdioOptions } from '@mcpx/stdio';

@Server({ name: 'steps', version: '1.0.0' })
class Steps {
  /** Two progress notifications, then the result at once. */
  @Tool()
  steps(_input: void, ctx: RequestContext) {
    ctx.progress(1, 2);
    ctx.progress(2, 2);
    return 'done';
  }

  @Tool()
  fails(_input: void, ctx: RequestContext) {
    ctx.progress(1);
    throw new Error('broken');
  }
}

interface Message {
  jsonrpc: '2.0';
  id?: string | number;
  method?: string;
  params?: Record<string, any>;
  result?: Record<string, any>;
  error?: { code: number; message: string };
}

/** A scripted client on serveStdio's streams: every message the server wrote, in order. */
function serve(options: StdioOptions = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  const logged = new PassThrough();
  /** The server's pino lines, debug and up. */
  const logs: { level: number; msg: string }[] = [];
  logged.setEncoding('utf8').on('data', (line: string) => logs.push(JSON.parse(line)));
  const server = serveStdio(new Steps(), { input, output, exitProcess: false, logger: pino({ level: 'debug' }, logged), ...options });
  const warnings = () => logs.filter((l) => l.level >= 40).map((l) => l.msg);
  const messages: Message[] = [];
  const listeners = new Set<() => void>();
  let buffer = '';
  output.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      messages.push(JSON.parse(buffer.slice(0, nl)) as Message);
      buffer = buffer.slice(nl + 1);
    }
    for (const listener of [...listeners]) listener();
  });
  const send = (message: object) => input.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
  /** Resolves with the index of the first message (from `from` on) that matches. */
  const waitFor = (match: (m: Message) => boolean, from = 0) =>
    new Promise<number>((resolve) => {
      const check = () => {
        const i = messages.findIndex((m, j) => j >= from && match(m));
        if (i < 0) return;
        listeners.delete(check);
        resolve(i);
      };
      listeners.add(check);
      check();
    });
  const responseTo = (id: string | number) => (m: Message) => m.id === id && m.method === undefined;
  const call = (id: number, name: string, progressToken?: string) =>
    send({ id, method: 'tools/call', params: { name, arguments: {}, ...(progressToken ? { _meta: { progressToken } } : {}) } });
  const init = async () => {
    send({ id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    await waitFor(responseTo(0));
    send({ method: 'notifications/initialized' });
  };
  /** Lets the server run several turns of its event loop (to show that something does not happen on its own). */
  const turns = async (n = 5) => {
    for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
  };
  return { server, input, messages, send, waitFor, responseTo, call, init, turns, logs, warnings };
}

describe('a response after progress', () => {
  it('waits for the answer to a ping written after the progress, and the answer stays between the barrier and the client', async () => {
    const s = serve();
    await s.init();
    s.call(1, 'steps', 'tok');
    const ping = await s.waitFor((m) => m.method === 'ping');
    const pingId = s.messages[ping]!.id;
    expect(typeof pingId).toBe('string');
    const progress = s.messages.flatMap((m, i) => (m.method === 'notifications/progress' ? [i] : []));
    expect(progress.map((i) => s.messages[i]!.params)).toEqual([
      { progressToken: 'tok', progress: 1, total: 2 },
      { progressToken: 'tok', progress: 2, total: 2 },
    ]);
    expect(Math.max(...progress)).toBeLessThan(ping);
    await s.turns();
    expect(s.messages.some(s.responseTo(1))).toBe(false);

    s.send({ id: pingId, result: {} });
    const response = await s.waitFor(s.responseTo(1));
    expect(s.messages[response]!.result).toEqual({ content: [{ type: 'text', text: 'done' }] });
    // The answer went to the barrier, not to the session (which would have logged a stray response).
    s.send({ id: 9, method: 'ping' });
    await s.waitFor(s.responseTo(9));
    expect(s.messages.slice(response + 1)).toEqual([{ jsonrpc: '2.0', id: 9, result: {} }]);
    s.input.end();
    await s.server.closed;
    expect(s.logs.filter((l) => /response/.test(l.msg))).toEqual([]);
    expect(s.warnings()).toEqual([]);
  });

  it('takes an error answer as an answer too, and holds error responses as well', async () => {
    const s = serve();
    await s.init();
    s.call(1, 'fails', 'tok');
    const ping = s.messages[await s.waitFor((m) => m.method === 'ping')]!;
    await s.turns();
    expect(s.messages.some(s.responseTo(1))).toBe(false);
    s.send({ id: ping.id, error: { code: -32601, message: 'Method not found' } });
    const response = s.messages[await s.waitFor(s.responseTo(1))]!;
    expect(response.result).toMatchObject({ isError: true });
    s.input.end();
    await s.server.closed;
  });

  it('shares one ping between responses waiting at the same time', async () => {
    const s = serve();
    await s.init();
    // Both requests in one chunk: handled in the same turn, their progress in the same write.
    s.send({ id: 1, method: 'tools/call', params: { name: 'steps', arguments: {}, _meta: { progressToken: 'a' } } });
    s.send({ id: 2, method: 'tools/call', params: { name: 'steps', arguments: {}, _meta: { progressToken: 'b' } } });
    const ping = s.messages[await s.waitFor((m) => m.method === 'ping')]!;
    await s.turns();
    expect(s.messages.filter((m) => m.method === 'ping')).toHaveLength(1);
    s.send({ id: ping.id, result: {} });
    await Promise.all([s.waitFor(s.responseTo(1)), s.waitFor(s.responseTo(2))]);
    s.input.end();
    await s.server.closed;
  });

  it('goes at once without progress, without a progress token, or with progressPingTimeoutMs 0', async () => {
    const s = serve();
    await s.init();
    s.call(1, 'steps'); // no token: no progress, no ping
    await s.waitFor(s.responseTo(1));
    s.input.end();
    await s.server.closed;
    expect(s.messages.some((m) => m.method === 'ping')).toBe(false);

    const off = serve({ progressPingTimeoutMs: 0 });
    await off.init();
    off.call(1, 'steps', 'tok');
    await off.waitFor(off.responseTo(1));
    expect(off.messages.filter((m) => m.method === 'notifications/progress')).toHaveLength(2);
    off.input.end();
    await off.server.closed;
    expect(off.messages.some((m) => m.method === 'ping')).toBe(false);
  });

  it('answers anyway when the client does not answer the ping, and stops pinging until it does', async () => {
    const s = serve({ progressPingTimeoutMs: 50 });
    await s.init();
    s.call(1, 'steps', 'tok1');
    const ping = s.messages[await s.waitFor((m) => m.method === 'ping')]!;
    await s.waitFor(s.responseTo(1)); // after the timeout, with no answer
    expect(s.warnings()).toEqual(['the client did not answer ping; answering without waiting until it does']);

    // While that ping is unanswered: no new ping, the response goes at once.
    let from = s.messages.length;
    s.call(2, 'steps', 'tok2');
    await s.waitFor(s.responseTo(2), from);
    expect(s.messages.slice(from).filter((m) => m.method === 'ping')).toEqual([]);

    // A late answer ends that: the next response waits for a ping again.
    s.send({ id: ping.id, result: {} });
    from = s.messages.length;
    s.call(3, 'steps', 'tok3');
    const next = s.messages[await s.waitFor((m) => m.method === 'ping', from)]!;
    expect(next.id).not.toBe(ping.id);
    s.send({ id: next.id, result: {} });
    await s.waitFor(s.responseTo(3), from);
    s.input.end();
    await s.server.closed;
  });

  it('is written when the input ends while it waits (no answer can come any more)', async () => {
    const s = serve();
    await s.init();
    s.call(1, 'steps', 'tok');
    await s.waitFor((m) => m.method === 'ping');
    s.input.end();
    await s.server.closed;
    expect(s.messages.filter(s.responseTo(1))).toHaveLength(1);
  });
});

describe('redirectStdout', () => {
  it('sends process.stdout.write to stderr while the session is open, and restores it on close', async () => {
    const before = process.stdout.write;
    const hadOwn = Object.prototype.hasOwnProperty.call(process.stdout, 'write');
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const s = serve({ redirectStdout: true });
      await s.init();
      expect(process.stdout.write).not.toBe(before);
      process.stdout.write('stray\n');
      expect(stderr).toHaveBeenCalledWith('stray\n');
      s.call(1, 'steps');
      await s.waitFor(s.responseTo(1));
      // The protocol still goes to the session's output, nothing else does.
      expect(s.messages.every((m) => m.jsonrpc === '2.0')).toBe(true);
      s.input.end();
      await s.server.closed;
      expect(process.stdout.write).toBe(before);
      expect(Object.prototype.hasOwnProperty.call(process.stdout, 'write')).toBe(hadOwn);
    } finally {
      stderr.mockRestore();
      if (process.stdout.write !== before) process.stdout.write = before;
    }
  });

  it('leaves process.stdout alone when the output is another stream', async () => {
    const before = process.stdout.write;
    const s = serve();
    await s.init();
    expect(process.stdout.write).toBe(before);
    s.input.end();
    await s.server.closed;
    expect(process.stdout.write).toBe(before);
  });
});
