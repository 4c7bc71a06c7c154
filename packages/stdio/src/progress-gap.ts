import type { LineWriter } from './line-writer';
import type { ResponseHold } from './progress-channel';

/** How long a 2026-07-28 response waits after its request's last progress went out, in ms (20 lost every call's progress on a loaded machine; 100 lost none: docs/transports.md). */
export const PROGRESS_GAP_MS = 100;

/**
 * The 2026-07-28 hold of a response behind its progress. In that era the server writes no
 * requests to stdout, so the 2025-11-25 ping barrier (ProgressBarrier) cannot apply: the one
 * writer keeps every progress notification before the response on the wire, and the response
 * leaves in a later write, `gapMs` after the progress was handed to stdout (the writer flushes on
 * setImmediate). Clients that handle a notification later than a response of the same read (the
 * official TypeScript clients do) then see the progress in an earlier read, unless they do not
 * read for that long.
 */
export class ProgressGap implements ResponseHold {
  constructor(
    private readonly writer: LineWriter,
    private readonly gapMs: number = PROGRESS_GAP_MS,
  ) {}

  respond(response: string): void {
    if (this.gapMs <= 0) {
      this.writer.write(response);
      return;
    }
    setImmediate(() => setTimeout(() => this.writer.write(response), this.gapMs));
  }
}
