import type { ChildProcess } from 'node:child_process';
import { ErrorCode } from '@mcpx/core/errors';
import { MODERN_META, PROTOCOL_VERSION } from './mcp';
import { Tally, type Checked } from './tally';

interface Message {
  jsonrpc: '2.0';
  id?: number | string;
  method?: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** A minimal MCP client over a child's stdin/stdout: one JSON message per line. */
export class StdioPeer {
  private buffer = '';
  private nextId = 1;
  private readonly pending = new Map<number, (message: Message) => void>();

  constructor(
    private readonly child: ChildProcess,
    /** Speak 2026-07-28: no initialize; every request carries the client in its `_meta`. */
    readonly modern = false,
  ) {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => this.read(chunk));
  }

  private read(chunk: string): void {
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, end).trim();
      this.buffer = this.buffer.slice(end + 1);
      if (line) this.receive(JSON.parse(line) as Message);
    }
  }

  private receive(message: Message): void {
    if (message.method !== undefined) {
      // A request from the server (ping, or anything a client that declared no capabilities need not serve).
      if (message.id === undefined) return;
      const reply = message.method === 'ping' ? { result: {} } : { error: { code: ErrorCode.MethodNotFound, message: 'not supported by the benchmark client' } };
      this.write({ jsonrpc: '2.0', id: message.id, ...reply });
      return;
    }
    const resolve = this.pending.get(message.id as number);
    if (!resolve) return;
    this.pending.delete(message.id as number);
    resolve(message);
  }

  private write(message: object): void {
    this.child.stdin!.write(JSON.stringify(message) + '\n');
  }

  request(method: string, params?: object): Promise<Message> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.write({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method: string): void {
    this.write({ jsonrpc: '2.0', method });
  }

  async initialize(): Promise<void> {
    if (this.modern) {
      const discovered = await this.request('server/discover', { _meta: MODERN_META });
      if (!discovered.result?.supportedVersions) throw new Error(`server/discover failed: ${JSON.stringify(discovered)}`);
      return;
    }
    const answer = await this.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'mcpx-bench', version: '1.0.0' },
    });
    if (!answer.result?.protocolVersion) throw new Error(`initialize failed: ${JSON.stringify(answer)}`);
    this.notify('notifications/initialized');
  }
}

export interface StdioLoad extends Checked {
  rps: number;
}

/** echo round trips for a fixed time with `inFlight` requests outstanding, every answer checked. */
export async function stdioRoundTrips(peer: StdioPeer, inFlight: number, durationS: number): Promise<StdioLoad> {
  const tally = new Tally();
  let sent = 0;
  const start = performance.now();
  const deadline = start + durationS * 1000;
  const lane = async () => {
    while (performance.now() < deadline) {
      const text = `hello ${sent++}`;
      const answer = await peer.request('tools/call', peer.modern ? { name: 'echo', arguments: { text }, _meta: MODERN_META } : { name: 'echo', arguments: { text } });
      const got = (answer.result?.content as { text?: string }[] | undefined)?.[0]?.text;
      if (got === text) tally.pass();
      else tally.fail(JSON.stringify(answer));
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return { ...tally.counts, rps: tally.ok / ((performance.now() - start) / 1000) };
}
