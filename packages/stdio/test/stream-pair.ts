/**
 * serveStdio() on in-memory streams, and a transport over them in the shape both official client
 * SDKs take: newline-delimited JSON-RPC exactly as stdin and stdout would carry it, with every line
 * the server wrote kept. Not a test file itself (jest only runs *.test.ts).
 */
import { PassThrough } from 'node:stream';
import type { Servable } from '@mcpx/core';
import { serveStdio, type StdioOptions, type StdioServer } from '@mcpx/stdio';

export class StreamTransport {
  onmessage?: (message: any) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /** Every line the server wrote, as written. */
  readonly lines: string[] = [];
  private buffer = '';

  constructor(
    private readonly input: PassThrough,
    output: PassThrough,
  ) {
    output.setEncoding('utf8').on('data', (chunk: string) => {
      this.buffer += chunk;
      for (let nl = this.buffer.indexOf('\n'); nl >= 0; nl = this.buffer.indexOf('\n')) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        this.lines.push(line);
        this.onmessage?.(JSON.parse(line));
      }
    });
  }

  async start(): Promise<void> {}

  async send(message: object): Promise<void> {
    this.input.write(`${JSON.stringify(message)}\n`);
  }

  /** Ends the server's input, as a client closing stdin does. */
  async close(): Promise<void> {
    if (!this.input.writableEnded) this.input.end();
    this.onclose?.();
  }
}

/** Serves `target` on fresh in-memory streams (never the process's own), and a transport for one client. */
export function serveOnStreams(target: Servable, options: Omit<StdioOptions, 'input' | 'output' | 'exitProcess'> = {}): { server: StdioServer; transport: StreamTransport } {
  const input = new PassThrough();
  const output = new PassThrough();
  const server = serveStdio(target, { ...options, input, output, exitProcess: false });
  return { server, transport: new StreamTransport(input, output) };
}

/** Makes closing `peer` also wait for `server` to see its input end and close. */
export function closingWith<P extends { close(): Promise<void> }>(peer: P, server: StdioServer): P {
  const close = peer.close.bind(peer);
  peer.close = async () => {
    await close();
    await server.closed;
  };
  return peer;
}
