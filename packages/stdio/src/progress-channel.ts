import type { JsonRpcMessage, MessageChannel } from '@mcpx/core/transport';
import type { LineWriter } from './line-writer';

/** How a response is kept out of the client's read that carries its request's last progress. */
export interface ResponseHold {
  /** Writes `response` once the progress written as write number `progressSeq` is safely ahead of it. */
  respond(response: string, progressSeq: number): void;
}

/**
 * The channel of a request that carries a progress token: notifications go out as they come, and
 * the response, when progress went out before it, is handed to the era's hold (2025-11-25: the
 * ping barrier, ProgressBarrier; 2026-07-28, which has no server-to-client requests: a gap,
 * ProgressGap). A class rather than an object literal with `get open()`: in V8 a getter in an
 * object literal keeps what it closes over alive through minor collections.
 */
export class ProgressChannel implements MessageChannel {
  private lastProgress: number | undefined;

  constructor(
    private readonly stream: MessageChannel,
    private readonly writer: LineWriter,
    private readonly hold: ResponseHold,
    private readonly encode: (message: JsonRpcMessage) => string | undefined,
  ) {}

  get open(): boolean | undefined {
    return this.stream.open;
  }

  send(message: JsonRpcMessage): void {
    if (!this.stream.open) return;
    const text = this.encode(message);
    if (text === undefined) return;
    if ('method' in message) {
      const seq = this.writer.write(text);
      if (message.method === 'notifications/progress') this.lastProgress = seq;
    } else if (this.lastProgress !== undefined) this.hold.respond(text, this.lastProgress);
    else this.writer.write(text);
  }
}
