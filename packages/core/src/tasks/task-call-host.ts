import type { Logger } from 'pino';
import { ErrorCode, McpError } from '../protocol/errors';
import type { JsonRpcMessage } from '../protocol/jsonrpc';
import type { MessageChannel } from '../context/channel';
import type { ServerServices } from '../context/services';
import { inputKey, type InputRequest } from '../protocol/input-required';
import type { AskOptions } from '../context/request-env';
import type { RequestHost } from '../context/services';

interface WaitingInput {
  request: InputRequest;
  resolve(result: Record<string, unknown>): void;
}

/**
 * What a task (tasks extension, 2026-07-28) waits on from its client. A question from the work
 * (`ctx.elicit()`, `ctx.sample()`, `ctx.roots()`) gets a key of its own, shows in tasks/get as an
 * input request while the task is input_required, and is answered by tasks/update: the work keeps
 * running in this process and simply awaits the answer. Keys are never reused within a task.
 */
export class TaskInputs {
  private asked = 0;
  private readonly waiting = new Map<string, WaitingInput>();

  /** `changed` runs whenever the set of open requests changes (the task's record follows it). */
  constructor(private readonly changed: () => void) {}

  ask(method: string, params: Record<string, unknown>, options: { signal?: AbortSignal; timeoutMs?: number }): Promise<Record<string, unknown>> {
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const key = inputKey(method, ++this.asked);
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = () => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiting.delete(key);
        this.changed();
      };
      const onAbort = () => {
        settle();
        reject(signal!.reason);
      };
      this.waiting.set(key, {
        request: { method: method as InputRequest['method'], params },
        resolve: (result) => {
          settle();
          resolve(result);
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      // Only a timeout the tool asked for: a task waits on its client for as long as the task lives.
      if (options.timeoutMs !== undefined) {
        timer = setTimeout(() => {
          settle();
          reject(new McpError(ErrorCode.RequestTimeout, `The client did not answer ${method} (task input "${key}") within ${options.timeoutMs} ms`));
        }, options.timeoutMs);
        timer.unref();
      }
      this.changed();
    });
  }

  /** The requests still unanswered, by key; undefined when there are none. */
  open(): Record<string, InputRequest> | undefined {
    if (this.waiting.size === 0) return undefined;
    const open: Record<string, InputRequest> = {};
    for (const [key, waiting] of this.waiting) open[key] = waiting.request;
    return open;
  }

  /**
   * Delivers tasks/update's answers to the requests they name. Keys not open (never issued, already
   * answered) are ignored, as the extension says; an answer that is not an object is refused first.
   */
  answer(responses: Record<string, unknown>): number {
    const taken: [WaitingInput, Record<string, unknown>][] = [];
    for (const [key, value] of Object.entries(responses)) {
      const waiting = this.waiting.get(key);
      if (!waiting) continue;
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw McpError.invalidParams(`inputResponses["${key}"] must be an object (the result of the ${waiting.request.method} request)`);
      }
      taken.push([waiting, value as Record<string, unknown>]);
    }
    for (const [waiting, value] of taken) waiting.resolve(value);
    return taken.length;
  }
}

/**
 * Where a tools/call that may become a task runs. Until it becomes one, it is an ordinary modern
 * request: questions go to the request's host (multi round-trip requests, answered on a retry).
 * Once it is a task, questions become the task's input requests (TaskInputs), and the work no
 * longer belongs to the request: it has no session, and its log lines carry the task's id.
 */
export class TaskCallHost implements RequestHost {
  readonly session = undefined;
  private inputs?: TaskInputs;
  private taskLogger?: Logger;

  constructor(private readonly request: RequestHost) {}

  get engine(): ServerServices {
    return this.request.engine;
  }

  get logger(): Logger {
    return this.taskLogger ?? this.request.logger;
  }

  /** From now on the work runs as a task. */
  becomeTask(inputs: TaskInputs, logger: Logger): void {
    this.inputs = inputs;
    this.taskLogger = logger;
  }

  hasAnswerFor(method: string): boolean {
    return !this.inputs && this.request.hasAnswerFor?.(method) === true;
  }

  ask(method: string, params: Record<string, unknown>, channel: MessageChannel, options: AskOptions): Promise<Record<string, unknown>> {
    return this.inputs ? this.inputs.ask(method, params, options) : this.request.ask(method, params, channel, options);
  }
}

/**
 * The work's channel: the request's own until the call becomes a task, then nothing. The tasks
 * extension carries no progress or log notifications for a task (the client polls tasks/get).
 */
export class TaskCallChannel implements MessageChannel {
  private detached = false;

  constructor(private readonly request: MessageChannel) {}

  get open(): boolean {
    return !this.detached && this.request.open !== false;
  }

  send(message: JsonRpcMessage): void {
    if (!this.detached) this.request.send(message);
  }

  detach(): void {
    this.detached = true;
  }
}
