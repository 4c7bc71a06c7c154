import type { Principal } from '../../auth/principal';
import type { JsonRpcNotification, JsonRpcRequest, ParsedMessage } from '../../protocol/jsonrpc';
import type { MessageChannel } from '../../context/channel';
import { CancelledError } from '../../context/error-responses';
import { RequestsById } from '../../pipeline/in-flight';
import type { ServerServices } from '../../context/services';
import { eraOf } from '../../pipeline/classify';
import type { RequestOrigin } from '../../telemetry/origin';

/**
 * The modern requests of one message stream (stdio; an in-process client): 2026-07-28 has no
 * sessions, but a stream still tracks its requests in flight so that `notifications/cancelled`
 * can abort them, and closing the stream aborts what is left. Legacy messages on the same stream
 * go to its Session: a dual-era server serves both at once.
 */
export class ModernStream {
  private readonly inFlight = new RequestsById();

  constructor(
    private readonly engine: ServerServices,
    private readonly options: { principal?: Principal; origin?: RequestOrigin } = {},
  ) {}

  /** Whether a message is a modern request (its `_meta` claims a protocol version). */
  static isModern(parsed: ParsedMessage): parsed is { kind: 'request'; message: JsonRpcRequest } {
    return parsed.kind === 'request' && eraOf(parsed) === 'modern';
  }

  /** Serves one modern request; its response goes to `channel` (none when it was cancelled). */
  async receive(request: JsonRpcRequest, channel: MessageChannel): Promise<void> {
    const response = await this.engine.modern.handle(request, channel, { principal: this.options.principal, origin: this.options.origin, inFlight: this.inFlight });
    if (response) channel.send(response);
  }

  /** Applies `notifications/cancelled` when it names a modern request in flight; false when it names none (it may be the session's). */
  cancel(notification: JsonRpcNotification): boolean {
    if (notification.method !== 'notifications/cancelled') return false;
    const requestId = notification.params?.requestId;
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return false;
    const abort = this.inFlight.get(requestId);
    if (!abort) return false;
    const reason = notification.params?.reason;
    abort.abort(new CancelledError(typeof reason === 'string' ? reason : undefined));
    return true;
  }

  get requestsInFlight(): number {
    return this.inFlight.size;
  }

  /** Ends this stream's subscriptions/listen requests gracefully (the server is shutting down): each is answered with its complete result. */
  endSubscriptions(): void {
    for (const abort of this.inFlight.values()) this.engine.subscriptions.closeRequest(abort.signal);
  }

  /** Aborts every request still running (the stream closed). */
  close(): void {
    this.inFlight.abortAll(new CancelledError('the stream closed'));
  }
}
