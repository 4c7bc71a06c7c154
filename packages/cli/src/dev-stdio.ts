import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { ErrorCode } from '@mcpx/core/errors';

type Message = Record<string, unknown> & { id?: unknown; method?: unknown; params?: unknown };

const keyOf = (id: unknown) => `${typeof id}:${String(id)}`;
const isRequest = (m: Message) => typeof m.method === 'string' && m.id !== undefined && m.id !== null;
const isNotification = (m: Message) => typeof m.method === 'string' && m.id === undefined;
const isResponse = (m: Message) => m.method === undefined && m.id !== undefined && ('result' in m || 'error' in m);

function parse(line: string): Message | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Message) : undefined;
  } catch {
    return undefined;
  }
}

/** The list_changed notification for each list the server says it announces. */
const LIST_CHANGED = [
  ['tools', 'notifications/tools/list_changed'],
  ['prompts', 'notifications/prompts/list_changed'],
  ['resources', 'notifications/resources/list_changed'],
] as const;

/**
 * `mcpx dev --stdio`: the client holds one pipe for its whole session while server processes come
 * and go, so the supervisor owns the pipe and passes lines through to the current process. A new
 * process is first sent what the client said to set up its session (initialize, initialized, the
 * log level, subscriptions), with the answers kept from the client, which then hears list_changed.
 * Requests the old process left unanswered, and requests that arrive while the code fails to
 * load, are answered with an error; while a process starts, the client's messages wait for it.
 */
export class StdioRelay {
  private input?: Writable;
  private state: 'waiting' | 'replaying' | 'up' | 'down' = 'waiting';
  private downReason = '';
  private queue: string[] = [];
  private generation = 0;
  private initialize?: unknown;
  private initialized = false;
  private logLevel?: unknown;
  private readonly subscriptions = new Set<string>();
  /** The client's requests the current process has not answered yet (key → id). */
  private readonly clientRequests = new Map<string, unknown>();
  /** The current process's requests to the client (elicitation, sampling, roots) not answered yet. */
  private readonly serverRequests = new Set<string>();
  /** Replayed requests whose answers are the relay's, not the client's. */
  private readonly replies = new Map<string, (reply: Message) => void>();
  private replayed = 0;

  constructor(private readonly output: Writable) {}

  /** Reads the client's lines; `onEnd` when it closes its side. */
  listen(input: Readable, onEnd: () => void): void {
    const lines = createInterface({ input, crlfDelay: Infinity });
    lines.on('line', (line) => this.fromClient(line));
    lines.once('close', onEnd);
  }

  /** Connects a server process that has started serving: replays the session, then lets the queue through. */
  attach(stdin: Writable, stdout: Readable): void {
    const generation = ++this.generation;
    createInterface({ input: stdout, crlfDelay: Infinity }).on('line', (line) => {
      if (generation === this.generation) this.fromServer(line);
    });
    this.input = stdin;
    stdin.on('error', () => {}); // a process that died mid-write: its exit is handled as a detach
    if (this.initialize === undefined) return this.open();
    this.state = 'replaying';
    this.replay('initialize', this.initialize, (reply) => {
      if (this.state !== 'replaying') return; // held meanwhile: this process is already stopping
      if (this.initialized) this.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
      if (this.logLevel !== undefined) this.replay('logging/setLevel', this.logLevel);
      for (const uri of this.subscriptions) this.replay('resources/subscribe', { uri });
      this.open();
      // The new code may list other things: clients that listen refresh their lists.
      const capabilities = ((reply.result as Message | undefined)?.capabilities ?? {}) as Record<string, { listChanged?: boolean } | undefined>;
      if (!this.initialized) return;
      for (const [feature, method] of LIST_CHANGED) {
        if (capabilities[feature]?.listChanged) this.toClient({ jsonrpc: '2.0', method });
      }
    });
  }

  /** Stops passing messages on (the process is stopping): they wait for the next one. */
  hold(): void {
    if (this.state !== 'down') this.state = 'waiting';
  }

  /**
   * The process has exited. Its unanswered requests fail with `reason`. With `down`, no process is
   * coming (the code failed to load): requests fail at once until the next attach.
   */
  detach(reason: string, down: boolean): void {
    this.generation++;
    this.input = undefined;
    for (const id of this.clientRequests.values()) this.fail(id, reason);
    this.clientRequests.clear();
    this.serverRequests.clear();
    this.replies.clear();
    if (!down) {
      this.state = 'waiting';
      return;
    }
    this.state = 'down';
    this.downReason = reason;
    const queued = this.queue;
    this.queue = [];
    for (const line of queued) this.fromClient(line);
  }

  private open(): void {
    this.state = 'up';
    const queued = this.queue;
    this.queue = [];
    for (const line of queued) this.forward(line);
  }

  private fromClient(line: string): void {
    if (!line.trim()) return;
    if (this.state === 'up') return this.forward(line);
    if (this.state !== 'down') {
      this.queue.push(line);
      return;
    }
    const message = parse(line);
    if (message && isRequest(message)) this.fail(message.id, this.downReason);
  }

  /** To the current process, noting what sets up the session and what awaits an answer. */
  private forward(line: string): void {
    const message = parse(line);
    if (message && isRequest(message)) {
      this.clientRequests.set(keyOf(message.id), message.id);
      if (message.method === 'initialize') this.initialize = message.params;
      else if (message.method === 'logging/setLevel') this.logLevel = message.params;
      else if (message.method === 'resources/subscribe' || message.method === 'resources/unsubscribe') {
        const uri = (message.params as { uri?: unknown } | undefined)?.uri;
        if (typeof uri === 'string') this.subscriptions[message.method === 'resources/subscribe' ? 'add' : 'delete'](uri);
      }
    } else if (message && isNotification(message)) {
      if (message.method === 'notifications/initialized') this.initialized = true;
    } else if (message && isResponse(message)) {
      // An answer to a request of a process that has gone: nobody is waiting for it.
      if (!this.serverRequests.delete(keyOf(message.id))) return;
    }
    this.input?.write(`${line}\n`);
  }

  private fromServer(line: string): void {
    const message = parse(line);
    if (message && isResponse(message)) {
      const key = keyOf(message.id);
      const replied = this.replies.get(key);
      if (replied) {
        this.replies.delete(key);
        return replied(message);
      }
      this.clientRequests.delete(key);
    } else if (message && isRequest(message)) {
      this.serverRequests.add(keyOf(message.id));
    }
    this.output.write(`${line}\n`);
  }

  private replay(method: string, params: unknown, onReply: (reply: Message) => void = () => {}): void {
    const id = `mcpx-dev-${++this.replayed}`;
    this.replies.set(keyOf(id), onReply);
    this.write({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
  }

  private write(message: Message): void {
    this.input?.write(`${JSON.stringify(message)}\n`);
  }

  private toClient(message: Message): void {
    this.output.write(`${JSON.stringify(message)}\n`);
  }

  private fail(id: unknown, reason: string): void {
    this.toClient({ jsonrpc: '2.0', id, error: { code: ErrorCode.InternalError, message: reason } });
  }
}
