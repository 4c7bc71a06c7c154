import type { JsonRpcMessage, MessageChannel } from '@mcpx/core/transport';
import type { LineWriter } from './line-writer';

/** How long a 2026-07-28 response waits after its request's last progress went out, in ms (20 lost every call's progress on a loaded machine; 100 lost none: docs/transports.md). */
export const PROGRESS_GAP_MS = 100;

/**
 * The channel of a 2026-07-28 request that carries a progress token. In that era the server
 * writes no requests to stdout, so the 2025-11-25 ping barrier (ProgressBarrier) cannot apply:
 * the one writer keeps every progress notification before the response on the wire, and the
 * response leaves in a later write, `gapMs` after the last progress was handed to stdout. Clients
 * that handle a notification later than a response of the same read (the official TypeScript
 * clients do) then see the progress in an earlier read, unless they do not read for that long.
 */
export class ProgressGapChannel implements MessageChannel {
  /** When the last progress was handed to stdout (it may still be gathered for this turn's write). */
  private lastProgress: Promise<void> | undefined;

  constructor(
    private readonly stream: MessageChannel,
    private readonly writer: LineWriter,
    private readonly encode: (message: JsonRpcMessage) => string | undefined,
    private readonly gapMs: number = PROGRESS_GAP_MS,
  ) {}

  get open(): boolean | undefined {
    return this.stream.open;
  }

  send(message: JsonRpcMessage): void {
    if (!this.stream.open) return;
    const text = this.encode(message);
    if (text === undefined) return;
    if ('method' in message) {
      this.writer.write(text);
      // The writer flushes on setImmediate: the progress is out once it ran.
      if (message.method === 'notifications/progress') this.lastProgress = new Promise((resolve) => setImmediate(resolve));
      return;
    }
    if (this.lastProgress === undefined || this.gapMs <= 0) {
      this.writer.write(text);
      return;
    }
    const gapMs = this.gapMs;
    void this.lastProgress.then(() => setTimeout(() => this.writer.write(text), gapMs));
  }
}
