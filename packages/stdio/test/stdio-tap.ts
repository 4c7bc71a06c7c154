/**
 * A transport that sits between the official SDK client and its StdioClientTransport, for the
 * stdio interop tests: it logs every message both ways in order, and the server's raw stdout.
 * Not a test file itself (jest only runs *.test.ts).
 */
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** A JSON-RPC message as seen on the wire, loosely typed for inspection. */
export interface Wire {
  jsonrpc?: string;
  id?: string | number;
  method?: string;
  params?: Record<string, any>;
  result?: Record<string, any>;
  error?: { code: number; message: string; data?: unknown };
}

export interface Logged {
  dir: 'out' | 'in';
  msg: Wire;
}

export class StdioTap implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  /** Every message, in order: `out` from the client, `in` from the server. */
  readonly wire: Logged[] = [];
  /** Raw stdout of the server process, as the SDK transport receives it. */
  stdout = '';

  /**
   * Messages reach the SDK exactly as its transport reads them, with no pacing: the official
   * client handles a notification a step later than a response from the same read
   * (modelcontextprotocol/typescript-sdk#2580), so these tests also prove that mcpx's stdio
   * transport orders progress before results in a way that client sees
   * (packages/stdio/src/progress-barrier.ts).
   */
  constructor(readonly inner: StdioClientTransport) {}

  async start(): Promise<void> {
    this.inner.onmessage = (message: JSONRPCMessage) => {
      this.wire.push({ dir: 'in', msg: message as Wire });
      this.onmessage?.(message);
    };
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onclose = () => this.onclose?.();
    await this.inner.start();
    // The transport resolved on 'spawn', before any stdout event can be delivered: nothing is missed.
    const child = (this.inner as unknown as { _process?: { stdout?: NodeJS.ReadableStream } })._process;
    if (!child?.stdout) throw new Error('StdioClientTransport no longer exposes its child process (_process): update the stdout recorder');
    child.stdout.on('data', (chunk: Buffer) => (this.stdout += chunk.toString('utf8')));
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.wire.push({ dir: 'out', msg: message as Wire });
    return this.inner.send(message);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** What the client sent, in order. */
  outgoing(): Wire[] {
    return this.wire.filter((w) => w.dir === 'out').map((w) => w.msg);
  }

  /** What the server sent, in order. */
  incoming(): Wire[] {
    return this.wire.filter((w) => w.dir === 'in').map((w) => w.msg);
  }
}
