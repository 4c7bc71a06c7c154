import type { ServerResponse } from 'node:http';
import { encodeMessage, type JsonRpcMessage, type MessageChannel } from '@mcpx/core/transport';
import type { SseConnection } from './sse';
import type { SseStream } from './sse-stream';

// The per-request channels are classes, not object literals with a `get open()`: in V8 a getter in
// an object literal keeps what it closes over alive through minor collections, so every request
// built that way was promoted to old space whole (stateless requests paid ~30% more CPU for it).

/** A request's messages as events without ids on one SSE response: nothing resumes them (stateless HTTP, 2026-07-28). */
export class ConnectionChannel implements MessageChannel {
  constructor(
    private readonly connection: SseConnection,
    private readonly onError: (err: unknown) => void,
  ) {}

  get open(): boolean {
    return !this.connection.closed;
  }

  send(message: JsonRpcMessage): void {
    const data = encodeMessage(message, this.onError);
    if (data !== undefined) this.connection.event(undefined, data);
  }
}

/** A session's request stream without an event store: the client cannot resume, so it offers no polling close. */
export class UnresumableStream implements MessageChannel {
  constructor(private readonly stream: SseStream) {}

  get open(): boolean {
    return this.stream.open;
  }

  send(message: JsonRpcMessage): void {
    this.stream.send(message);
  }
}

/** A request answered with one JSON body: its notifications go nowhere; open while the client is there. */
export class JsonAnswerChannel implements MessageChannel {
  constructor(private readonly res: ServerResponse) {}

  get open(): boolean {
    return !this.res.destroyed;
  }

  send(): void {}
}

/**
 * A session request's channel with `jsonResponse`: the request has no stream of its own, so its
 * progress is dropped rather than sent on the session's GET stream, which should carry only
 * messages unrelated to running requests (transports/streamable-http.md). What the request must
 * still reach the client with goes there: its questions (elicitation, sampling, roots) and log
 * lines, as no other path exists in this mode.
 */
export class JsonModeOutlet implements MessageChannel {
  constructor(private readonly outlet: MessageChannel) {}

  get open(): boolean | undefined {
    return this.outlet.open;
  }

  get deferred(): boolean | undefined {
    return this.outlet.deferred;
  }

  send(message: JsonRpcMessage): void {
    if ('method' in message && message.method === 'notifications/progress') return;
    this.outlet.send(message);
  }
}
