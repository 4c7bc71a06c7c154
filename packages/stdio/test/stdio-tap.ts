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
  private readonly backlog: JSONRPCMessage[] = [];

  /**
   * With `oneMessagePerTick`, each received message is handed to the SDK in its own macrotask.
   * That works around an SDK client race (modelcontextprotocol/typescript-sdk#2580): the SDK
   * dispatches notifications a microtask late but responses at once, so a progress notification
   * that arrives in the same stdout chunk as its response finds its handler already gone. The wire
   * log shows the server's real order either way. mcpx's stdio transport no longer needs it (it
   * writes such a response only once the client has answered a ping sent after the progress:
   * packages/stdio/src/progress-barrier.ts), and the stdio tests here run without it.
   */
  constructor(
    readonly inner: StdioClientTransport,
    public oneMessagePerTick = false,
  ) {}

  async start(): Promise<void> {
    this.inner.onmessage = (message: JSONRPCMessage) => {
      this.wire.push({ dir: 'in', msg: message as Wire });
      if (!this.oneMessagePerTick) return this.onmessage?.(message);
      this.backlog.push(message);
      if (this.backlog.length === 1) setImmediate(() => this.deliver());
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

  private deliver(): void {
    this.onmessage?.(this.backlog[0]!);
    this.backlog.shift();
    if (this.backlog.length > 0) setImmediate(() => this.deliver());
  }
}
