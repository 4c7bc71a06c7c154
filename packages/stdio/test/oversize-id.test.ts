import 'reflect-metadata';
import { PassThrough } from 'node:stream';
import pino from 'pino';
import { Server, Tool } from '@mcpx/core';
import { LineReader, serveStdio } from '@mcpx/stdio';

/**
 * A message over maxMessageBytes is skipped unparsed, but its error still carries the request's id
 * (found by a bounded scan of the skipped bytes): a client matches the error to its request instead
 * of waiting out its timeout. The official SDK clients write the id last, after the params.
 */

@Server({ name: 'oversize', version: '1.0.0' })
class Echo {
  @Tool({ inputSchema: { type: 'object', properties: { text: { type: 'string' } } } })
  echo(input: { text: string }) {
    return input.text;
  }
}

const LIMIT = 64 * 1024;

function serve() {
  const input = new PassThrough();
  const output = new PassThrough();
  const server = serveStdio(new Echo(), { input, output, maxMessageBytes: LIMIT, exitProcess: false, logger: pino({ level: 'silent' }) });
  const messages: any[] = [];
  const waiters: (() => void)[] = [];
  let buffer = '';
  output.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      messages.push(JSON.parse(buffer.slice(0, nl)));
      buffer = buffer.slice(nl + 1);
    }
    for (const wake of waiters.splice(0)) wake();
  });
  const next = async (from: number): Promise<any> => {
    while (messages.length <= from) await new Promise<void>((resolve) => waiters.push(resolve));
    return messages[from];
  };
  return { server, input, messages, next };
}

/** A tools/call as the official SDK client writes it: method, params, jsonrpc, id last. */
function sdkCall(id: number | string, text: string): string {
  return JSON.stringify({ method: 'tools/call', params: { name: 'echo', arguments: { text, nested: { id: 99 } } }, jsonrpc: '2.0', id });
}

describe('an oversized message over stdio', () => {
  it('is answered -32600 with the id of the request, written last after the params, then serving goes on', async () => {
    const { server, input, messages, next } = serve();
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`);
    expect((await next(0)).id).toBe(1);
    input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);

    const big = sdkCall(7, 'x'.repeat(4 * LIMIT));
    // In pieces, as a pipe delivers it: the id arrives long after the limit was crossed.
    for (let at = 0; at < big.length; at += 10_000) input.write(big.slice(at, at + 10_000));
    input.write('\n');
    const error = await next(1);
    expect(error).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32600, message: `Message too large: ${big.length} bytes exceeds the limit of ${LIMIT} bytes` } });

    // A string id, and one in the part buffered before the limit was crossed.
    input.write(`${sdkCall('call-"8"', 'y'.repeat(2 * LIMIT))}\n`);
    expect((await next(2)).id).toBe('call-"8"');
    input.write(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"text":"${'z'.repeat(2 * LIMIT)}"}}}\n`);
    expect((await next(3)).id).toBe(9);

    // No id to be found (a notification): the error has none.
    input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'n'.repeat(2 * LIMIT), id: 5 } })}\n`);
    const anonymous = await next(4);
    expect(anonymous).not.toHaveProperty('id');
    expect(anonymous.error.code).toBe(-32600);

    input.write(`${sdkCall(10, 'fits')}\n`);
    expect(await next(5)).toEqual({ jsonrpc: '2.0', id: 10, result: { content: [{ type: 'text', text: 'fits' }] } });
    expect(messages).toHaveLength(6);
    input.end();
    await server.closed;
  });
});

describe('LineReader', () => {
  it('reports the id of a skipped line, scanned no further than its bound', () => {
    const reported: [number, unknown][] = [];
    const reader = new LineReader(
      100,
      () => undefined,
      (bytes, id) => reported.push([bytes, id]),
      1000,
    );
    const near = sdkCall(3, 'a'.repeat(500));
    const far = sdkCall(4, 'b'.repeat(5000));
    for (const line of [near, far]) {
      for (let at = 0; at < line.length; at += 7) reader.push(Buffer.from(line.slice(at, at + 7)));
      reader.push(Buffer.from('\n'));
    }
    expect(reported).toEqual([
      [near.length, 3],
      [far.length, undefined],
    ]);
  });
});
