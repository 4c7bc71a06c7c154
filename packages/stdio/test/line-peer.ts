import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = resolve(__dirname, '../../..');
const RUN_TS = resolve(__dirname, 'fixtures/run-ts.js');

export type Message = Record<string, any>;

/** How to start a fixture server (a .ts file under test/fixtures): what a stdio client transport takes. */
export function fixtureServer(fixture: string): { command: string; args: string[]; cwd: string; env: Record<string, string> } {
  return { command: process.execPath, args: [RUN_TS, resolve(__dirname, 'fixtures', fixture)], cwd: ROOT, env: { ...process.env, MCPX_LOG_LEVEL: 'warn' } as Record<string, string> };
}

/**
 * A fixture server process (a .ts file under test/fixtures, compiled on the fly) spoken to in
 * newline-delimited JSON: what it writes is kept in order, and can be waited for.
 */
export class LinePeer {
  readonly received: Message[] = [];
  readonly exited: Promise<number | null>;
  protected readonly child: ChildProcessWithoutNullStreams;
  private waiters: { match: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];
  protected stderr = '';
  private nextId = 1;

  constructor(fixture: string) {
    const { command, args, cwd, env } = fixtureServer(fixture);
    this.child = spawn(command, args, { cwd, env });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      const message = JSON.parse(line) as Message;
      this.received.push(message);
      for (const waiter of [...this.waiters]) {
        if (waiter.match(message)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(message);
        }
      }
    });
  }

  send(message: Message): void {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  }

  /** The first message (already received or still to come) that matches. */
  next(match: (m: Message) => boolean): Promise<Message> {
    const already = this.received.find(match);
    if (already) return Promise.resolve(already);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  response(id: number | string): Promise<Message> {
    return this.next((m) => m.id === id && m.method === undefined);
  }

  /** Sends a request and resolves with its response (result or error). */
  request(method: string, params: Record<string, unknown>, id: number = this.nextId++): Promise<Message> {
    this.send({ id, method, params });
    return this.response(id);
  }

  endInput(): void {
    this.child.stdin.end();
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill();
  }
}
