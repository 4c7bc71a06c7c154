import { ErrorCode, McpError } from '../../protocol/errors';
import type { JsonRpcResponse, RequestId } from '../../protocol/jsonrpc';
import type { MessageChannel } from '../../context/channel';
import type { AskOptions } from '../../context/request-env';

interface Waiter {
  resolve(result: Record<string, unknown>): void;
  reject(err: Error): void;
}

/**
 * The requests a session sent its client, each waiting for its answer. Made on the session's first
 * question: most sessions never ask one.
 */
export class PendingAnswers {
  private readonly waiting = new Map<RequestId, Waiter>();
  private nextId = 1;

  constructor(
    /** The session asking: once it closed, the client is told nothing more. */
    private readonly session: { readonly state: string },
    /** Set when other instances share the session: ids then name this instance, so answers find their way back. */
    private readonly instanceId: string | undefined,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Sends the client a request on `channel` and resolves with its result. A client error becomes
   * a thrown McpError with its code and message; no answer within the timeout is -32001; an abort
   * of `signal` rejects with its reason. Either way the client is told to stop (notifications/cancelled).
   */
  ask(method: string, params: Record<string, unknown>, channel: MessageChannel, options: AskOptions): Promise<Record<string, unknown>> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const n = this.nextId++;
    const id: RequestId = this.instanceId !== undefined ? `${this.instanceId}.${n}` : n;
    options.onSent?.(id);
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    return new Promise((resolve, reject) => {
      const cancel = (reason: string) => {
        if (this.session.state !== 'closed') channel.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } });
      };
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiting.delete(id);
      };
      const onAbort = () => {
        settle();
        cancel('The server no longer needs this result');
        reject(signal!.reason);
      };
      const timer = setTimeout(() => {
        settle();
        cancel(`No answer within ${timeoutMs} ms`);
        reject(new McpError(ErrorCode.RequestTimeout, `${method} got no answer from the client within ${timeoutMs} ms`));
      }, timeoutMs);
      timer.unref?.();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(id, {
        resolve: (result) => {
          settle();
          resolve(result);
        },
        reject: (err) => {
          settle();
          reject(err);
        },
      });
      channel.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  /** Settles the question `response` answers; false when none waits for it. */
  answer(response: JsonRpcResponse): boolean {
    const waiting = response.id === undefined ? undefined : this.waiting.get(response.id);
    if (!waiting) return false;
    this.waiting.delete(response.id!);
    if ('error' in response) waiting.reject(new McpError(response.error.code, response.error.message, response.error.data));
    else waiting.resolve(response.result);
    return true;
  }

  /** The session closed: every question still waiting fails. */
  abandonAll(): void {
    for (const waiting of [...this.waiting.values()]) waiting.reject(new McpError(ErrorCode.InvalidRequest, 'The session closed before the client answered'));
  }
}
