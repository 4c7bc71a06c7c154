import type { LineWriter } from './line-writer';
import type { ResponseHold } from './progress-channel';

/** The default of `progressPingTimeoutMs`. */
export const PROGRESS_PING_TIMEOUT_MS = 1000;

/** The prefix of the ids of the barrier's pings (client request ids are the client's own business; these are ours). */
const PING_ID_PREFIX = 'mcpx-stdio-progress-';

interface Ping {
  /** The number of the write that carried it: everything written up to there has been read once it is answered. */
  seq: number;
  /** Responses waiting for its answer. */
  waiters: (() => void)[];
  timer?: NodeJS.Timeout;
}

/**
 * Keeps the response to a request that reported progress out of the client's read that carries
 * that progress.
 *
 * Why: the official TypeScript SDK client (1.x) handles a notification a microtask late but a
 * response at once, and forgets the request's progress handler as it handles the response; it
 * handles every message of one read in one go. So a progress notification that reaches it in the
 * same read as its request's response is dropped ("Received a progress notification for an
 * unknown token"). The server cannot see the client's reads, and no delay is safe: on a busy
 * machine the client may not read for 100 ms and more, and then everything written meanwhile
 * arrives in one read (measured: with a 25 ms gap, 0.2-0.5 % of the calls still lost their
 * last progress; docs/transports.md).
 *
 * How: before such a response, the server sends the client a `ping` (either side may ping at any
 * time, and the client must answer) written after that progress, and holds the response until
 * the answer arrives. An answer (a result or an error alike) proves that the client has read the
 * ping, so the progress before it too: the response can only arrive in a later read. (The SDK
 * even runs the progress handler before it answers, its microtasks running in order.) Responses
 * waiting at the same time share one ping. The cost is one round trip, only for responses to
 * requests that reported progress; other messages, and the batching of writes, are unaffected.
 *
 * A client that does not answer within `timeoutMs` gets the responses anyway, and no further
 * pings until it answers that one: a client that never answers pings costs one timeout per
 * session, not one per call.
 */
export class ProgressBarrier implements ResponseHold {
  private nextId = 1;
  /** Pings sent and not answered, by id. */
  private readonly pings = new Map<string, Ping>();
  /** The newest ping still waited for: a response whose progress went out no later than it shares it. */
  private latest?: Ping;
  /** A ping went unanswered for timeoutMs: responses go at once until the client answers it. */
  private stalled = false;
  private closed = false;

  constructor(
    private readonly writer: LineWriter,
    private readonly timeoutMs: number,
    private readonly onTimeout: (timeoutMs: number) => void = () => {},
  ) {}

  /** Writes `response` once the client has read write number `progressSeq` (the one with the request's last progress). */
  respond(response: string, progressSeq: number): void {
    if (this.closed || this.stalled || this.timeoutMs <= 0) {
      this.writer.write(response);
      return;
    }
    const ping = this.latest !== undefined && this.latest.seq >= progressSeq ? this.latest : this.ping();
    ping.waiters.push(() => this.writer.write(response));
  }

  /**
   * Takes the client's answer to one of the barrier's pings: true when `id` is one (the answer
   * is then the barrier's, not the session's).
   */
  answer(id: unknown): boolean {
    if (typeof id !== 'string' || !id.startsWith(PING_ID_PREFIX)) return false;
    const ping = this.pings.get(id);
    if (!ping) return true; // answered twice, or after close: still ours, and nobody waits for it
    this.pings.delete(id);
    if (this.pings.size === 0) this.stalled = false;
    this.release(ping);
    return true;
  }

  /** The input is no longer read, so no answer can arrive: writes every held response now, and stops pinging. */
  close(): void {
    this.closed = true;
    for (const ping of this.pings.values()) this.release(ping);
    this.pings.clear();
  }

  private ping(): Ping {
    const id = `${PING_ID_PREFIX}${this.nextId++}`;
    const ping: Ping = { seq: this.writer.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })), waiters: [] };
    ping.timer = setTimeout(() => {
      // Answer the waiting requests anyway; keep the ping, so that a late answer ends the stall.
      this.stalled = true;
      this.onTimeout(this.timeoutMs);
      this.release(ping);
    }, this.timeoutMs);
    ping.timer.unref();
    this.pings.set(id, ping);
    this.latest = ping;
    return ping;
  }

  private release(ping: Ping): void {
    clearTimeout(ping.timer);
    if (this.latest === ping) this.latest = undefined;
    for (const write of ping.waiters.splice(0)) write();
  }
}
