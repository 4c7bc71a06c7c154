import type { Logger } from 'pino';
import { McpError, ErrorCode } from '../../protocol/errors';
import type { MessageChannel } from '../../context/channel';
import type { ServerServices } from '../../context/services';
import { InputPending, inputKey, type InputRequest } from '../../protocol/input-required';
import type { RequestHost } from '../../context/services';

/**
 * Where a modern (2026-07-28) request runs. It has no session and cannot send the client a
 * request: a question from the handler (`ctx.elicit()`, `ctx.sample()`, `ctx.roots()`) is answered
 * from the answers this round brought back, or recorded as an input request, ending the round.
 * The handler runs again on each retry, so its n-th question gets the n-th key every time.
 */
export class ModernHost implements RequestHost {
  readonly session = undefined;
  /** Questions this round could not answer, by key: the InputRequiredResult's inputRequests. */
  readonly pending: Record<string, InputRequest> = {};
  pendingCount = 0;
  /** The answers this run consumed: all the next round needs again (anything else the client sent is dropped). */
  readonly used: Record<string, unknown> = {};
  private asked = 0;

  constructor(
    readonly engine: ServerServices,
    readonly logger: Logger,
    readonly method: string,
    /** Answers gathered over earlier rounds and this one, by key; undefined where the method cannot ask (MRTR is for tools/call, prompts/get, resources/read). */
    private readonly answers: Record<string, unknown> | undefined,
  ) {}

  /** Whether the handler's next `method` question is answered by what this round brought (then nothing goes to the client). */
  hasAnswerFor(method: string): boolean {
    return this.answers !== undefined && Object.hasOwn(this.answers, inputKey(method, this.asked + 1));
  }

  ask(method: string, params: Record<string, unknown>, _channel: MessageChannel, options: { signal?: AbortSignal }): Promise<Record<string, unknown>> {
    if (!this.answers) {
      return Promise.reject(
        new McpError(ErrorCode.InvalidRequest, `${this.method} cannot ask the client for input: only tools/call, prompts/get and resources/read can (protocol 2026-07-28)`),
      );
    }
    if (options.signal?.aborted) return Promise.reject(options.signal.reason);
    const key = inputKey(method, ++this.asked);
    if (Object.hasOwn(this.answers, key)) {
      this.used[key] = this.answers[key];
      return Promise.resolve(this.answers[key] as Record<string, unknown>);
    }
    this.pending[key] = { method: method as InputRequest['method'], params };
    this.pendingCount++;
    return Promise.reject(new InputPending());
  }
}
