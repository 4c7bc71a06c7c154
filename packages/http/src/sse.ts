import type { ServerResponse } from 'node:http';
import { atTurnEnd, type TurnEndWaiter } from './turn-end';

/** Messages this long (chars) are written as they are rather than joined with their framing. */
const LARGE = 16 * 1024;

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};
/** The same headers as name-value pairs, for a response answered at once: Node takes a flat list without building a map. */
const SSE_HEADER_LIST = Object.entries(SSE_HEADERS).flat();

/**
 * One HTTP response carrying Server-Sent Events. A logical stream (SseStream) may outlive it:
 * the client can drop the connection, or the server can close it for polling, and resume later.
 *
 * Writes are gathered and go out once per turn of the event loop. A request answered at once (the
 * common case) leaves as one write with a Content-Length: headers, priming event and response,
 * instead of four chunked socket writes; clients parse less, and the benchmark's echo at 64
 * connections went from ~7,000 to ~15,000 req/s (docs/performance.md). A stream that lives on (a tool
 * that takes its time, a GET stream) starts chunked at the first turn of the loop.
 */
export class SseConnection implements TurnEndWaiter {
  private maxAge?: NodeJS.Timeout;
  /** How long the connection may stay open (0: as long as it lives); its timer starts once it outlives its first turn. */
  private readonly maxConnectionMs: number;
  private readonly retryMs: number;
  /** Small writes are joined here; a large message joins `chunks` as it is, so it is never copied in JS. */
  private pending = '';
  private chunks: string[] = [];
  private flushing = false;
  /** Whether the headers went out, the response chunked from then on. */
  private started = false;
  /** When something last went out (heartbeats are sent to connections quiet for a whole period). */
  lastWrite = 0;
  private finished = false;
  private readonly heartbeats?: Heartbeats;
  /** Called once, when the connection is closed or released. */
  private readonly onClose?: () => void;

  constructor(
    readonly res: ServerResponse,
    options: { heartbeats?: Heartbeats; maxConnectionMs: number; retryMs: number; onClose?: () => void },
  ) {
    this.onClose = options.onClose;
    this.heartbeats = options.heartbeats;
    this.maxConnectionMs = options.maxConnectionMs;
    this.retryMs = options.retryMs;
    // Heartbeats, the close listener and the max-age timer wait for the end of this turn
    // (turnEnded): a request answered at once, the common case, is closed by then and needs none.
    this.schedule();
  }

  /** Closed by us, or the client went away (Node marks the response destroyed as its socket closes). */
  get closed(): boolean {
    return this.finished || this.res.destroyed;
  }

  /**
   * Gives the response up before anything went out, so the caller can answer it otherwise (a
   * refusal with its own status); false once the stream started or closed.
   */
  release(): boolean {
    if (this.started || this.closed) return false;
    this.finish();
    return true;
  }

  /** Writes one event carrying an encoded JSON-RPC message; `id` lets the client resume after it. */
  event(id: string | undefined, data: string): void {
    const head = id === undefined ? 'data: ' : `id: ${id}\ndata: `;
    if (data.length < LARGE) return this.write(`${head}${data}\n\n`);
    if (this.closed) return;
    this.chunks.push(this.pending + head, data);
    this.pending = '\n\n';
    this.schedule();
  }

  /** The priming event: an id and empty data, so the client can resume even before any message. */
  prime(id: string, retryMs: number): void {
    this.write(`id: ${id}\nretry: ${retryMs}\ndata: \n\n`);
  }

  /** A comment line that keeps proxies from closing a quiet connection. */
  heartbeat(): void {
    this.write(': keep-alive\n\n');
  }

  /** Ends the response; with `retryMs`, first tells the client when to come back (polling). */
  close(retryMs?: number): void {
    if (this.finished) return;
    if (this.res.destroyed) return this.finish();
    if (retryMs !== undefined) this.write(`retry: ${retryMs}\n\n`);
    const rest = this.take();
    if (!this.started) {
      // Everything is known before anything went out: one plain response.
      let length = 0;
      for (const chunk of rest) length += Buffer.byteLength(chunk);
      this.res.writeHead(200, [...SSE_HEADER_LIST, 'content-length', String(length)]);
    }
    this.send(rest, true);
    this.finish();
  }

  private write(chunk: string): void {
    if (this.closed) return;
    this.pending += chunk;
    this.schedule();
  }

  private schedule(): void {
    if (this.flushing) return;
    this.flushing = true;
    atTurnEnd(this);
  }

  /** What was written this turn goes out; a connection still open after its first turn is watched from now on. */
  turnEnded(): void {
    this.flushing = false;
    if (this.finished) return;
    if (!this.started) {
      if (this.res.destroyed) return this.finish();
      if (this.maxConnectionMs > 0) {
        this.maxAge = setTimeout(() => this.close(this.retryMs), this.maxConnectionMs);
        this.maxAge.unref();
      }
      this.heartbeats?.add(this);
      this.res.once('close', () => {
        this.heartbeats?.delete(this);
        this.finish();
      });
    }
    if (this.res.destroyed) return;
    this.lastWrite = Date.now();
    if (!this.started) return this.start();
    const chunks = this.take();
    if (chunks.length > 0) this.send(chunks, false);
  }

  /** Sends the headers now, chunked: the stream lives on past this turn. */
  private start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    // Long-lived from here on: no socket inactivity timeout; heartbeats keep proxies from cutting us.
    this.res.socket?.setTimeout(0);
    this.res.writeHead(200, SSE_HEADERS);
    // The headers leave with whatever is pending, or alone, so the client sees its stream open.
    const chunks = this.take();
    if (chunks.length > 0) this.send(chunks, false);
    else this.res.flushHeaders();
  }

  /** What is waiting to go out, in order; empties the buffers. */
  private take(): string[] {
    const chunks = this.chunks;
    if (this.pending) chunks.push(this.pending);
    this.chunks = [];
    this.pending = '';
    return chunks;
  }

  private send(chunks: string[], end: boolean): void {
    const { res } = this;
    if (chunks.length === 1) {
      if (end) res.end(chunks[0]);
      else res.write(chunks[0]!);
      return;
    }
    // Several chunks (a large message among them) leave in one writev.
    res.cork();
    for (const chunk of chunks) res.write(chunk);
    if (end) res.end();
    res.uncork();
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.pending = '';
    this.chunks = [];
    clearTimeout(this.maxAge);
    this.onClose?.();
  }
}

/**
 * One timer for the heartbeats of every open SSE connection of an endpoint, rather than one per
 * connection: it starts with the first connection and runs (unref'd, twice a period) until the
 * endpoint stops, writing only to connections that were quiet for a whole period. It is not
 * stopped when the last connection closes: on a server answering one request at a time, that
 * would create and clear an interval timer per request.
 */
export class Heartbeats {
  private readonly connections = new Set<SseConnection>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly periodMs: number) {}

  add(connection: SseConnection): void {
    connection.lastWrite = Date.now();
    this.connections.add(connection);
    if (!this.timer) {
      // Ticking twice a period keeps the longest silence under 1.5 periods.
      this.timer = setInterval(() => this.beat(), Math.max(10, this.periodMs / 2));
      this.timer.unref();
    }
  }

  delete(connection: SseConnection): void {
    this.connections.delete(connection);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private beat(): void {
    const quietSince = Date.now() - this.periodMs;
    for (const connection of this.connections) if (connection.lastWrite <= quietSince) connection.heartbeat();
  }
}
