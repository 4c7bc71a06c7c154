/**
 * The request log over stdio: serveStdio on in-memory streams, its pino lines kept in memory.
 * The same lines as over HTTP (the engine writes them), with `session: "stdio"`.
 */
import 'reflect-metadata';
import { PassThrough } from 'node:stream';
import { LoggedServer as Logged } from '../../core/test/fixtures/logged-server';
import { memoryLogger } from '@mcpx/testing';
import { serveStdio } from '@mcpx/stdio';

/** serveStdio on in-memory streams; send() writes a line and resolves with the answer to its id. */
async function serve(level: 'info' | 'debug') {
  const memory = memoryLogger(level);
  const input = new PassThrough();
  const output = new PassThrough();
  const server = serveStdio(new Logged(), { input, output, exitProcess: false, logger: memory.logger });
  let buffer = '';
  const waiting = new Map<number | string, (message: any) => void>();
  output.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const message = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      waiting.get(message.id)?.(message);
    }
  });
  const sendLine = (line: string, id: number | string) =>
    new Promise<any>((resolve) => {
      waiting.set(id, resolve);
      input.write(line + '\n');
    });
  const send = (id: number | string, method: string, params: object = {}) => sendLine(JSON.stringify({ jsonrpc: '2.0', id, method, params }), id);
  await send(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
  input.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  const stop = async () => {
    input.end();
    await server.closed;
  };
  return { ...memory, send, sendLine, stop };
}

const mcpLines = (lines: Record<string, any>[], id: number | string) => lines.filter((l) => l.msg === 'mcp request' && l.requestId === id);

describe('the request log over stdio', () => {
  it('writes one info line per request: method, tool, id, outcome, duration and session', async () => {
    const { lines, send, stop } = await serve('info');
    expect((await send('a', 'tools/call', { name: 'echo', arguments: { text: 'hi' } })).result).toBeDefined();
    await send(2, 'tools/call', { name: 'refuse' });
    expect((await send(3, 'tools/call', { name: 'missing' })).error.code).toBe(-32602);
    expect((await send(4, 'resources/list')).error.code).toBe(-32601);
    await stop();

    const expected: [string | number, Record<string, unknown>][] = [
      [0, { mcpMethod: 'initialize', outcome: 'result' }],
      ['a', { mcpMethod: 'tools/call', tool: 'echo', outcome: 'result' }],
      [2, { mcpMethod: 'tools/call', tool: 'refuse', outcome: 'isError' }],
      [3, { mcpMethod: 'tools/call', tool: 'missing', outcome: 'error', errorCode: -32602 }],
      [4, { mcpMethod: 'resources/list', outcome: 'error', errorCode: -32601 }],
    ];
    for (const [id, fields] of expected) {
      const found = mcpLines(lines, id);
      expect(found).toEqual([expect.objectContaining({ level: 30, session: 'stdio', requestId: id, ...fields })]);
      expect(typeof found[0]!.durationMs).toBe('number');
    }
    // Notifications are debug lines.
    expect(lines.filter((l) => l.mcpMethod === 'notifications/initialized')).toEqual([]);
  });

  it('writes a line for a frame it could not read, with the JSON-RPC error code', async () => {
    const { lines, sendLine, send, stop } = await serve('info');
    await sendLine('{"jsonrpc":"2.0","id":"bad","method":"ping","params":[1]}', 'bad');
    await send(5, 'ping'); // answered after the bad frame: its line is written by now
    await stop();
    expect(mcpLines(lines, 'bad')).toEqual([expect.objectContaining({ session: 'stdio', outcome: 'error', errorCode: -32602 })]);
  });

  it('at debug, logs each message in and out with the password argument redacted', async () => {
    const { lines, send, stop } = await serve('debug');
    expect((await send(6, 'tools/call', { name: 'login', arguments: { user: 'ada', password: 'hunter2-correct-horse' } })).result.content[0].text).toBe('welcome ada');
    await stop();
    const messages = lines.filter((l) => l.msg === 'mcp message' && l.body?.id === 6);
    expect(messages.map((l) => [l.direction, l.session])).toEqual([
      ['in', 'stdio'],
      ['out', 'stdio'],
    ]);
    expect(messages[0]!.body.params.arguments).toEqual({ user: 'ada', password: '[redacted]' });
    expect(lines.filter((l) => l.msg === 'mcp notification')).toEqual([expect.objectContaining({ mcpMethod: 'notifications/initialized', session: 'stdio' })]);
    expect(JSON.stringify(lines)).not.toContain('hunter2');
  });
});
