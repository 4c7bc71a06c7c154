import type { ServerResponse } from 'node:http';

/**
 * One HTTP response carrying Server-Sent Events. A logical stream (SseStream) may outlive it:
 * the client can drop the connection, or the server can close it for polling, and resume later.
 */
export class SseConnection {
  private heartbeat?: NodeJS.Timeout;
  private maxAge?: NodeJS.Timeout;
  closed = false;

  constructor(
    readonly res: ServerResponse,
    headers: Record<string, string>,
    options: { heartbeatMs: number; maxConnectionMs: number; retryMs: number },
  ) {
    // Long-lived by design: no socket inactivity timeout; heartbeats keep proxies from cutting us.
    res.socket?.setTimeout(0);
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      ...headers,
    });
    res.flushHeaders();
    res.once('close', () => this.finish());
    if (options.heartbeatMs > 0) {
      this.heartbeat = setInterval(() => this.write(': keep-alive\n\n'), options.heartbeatMs);
      this.heartbeat.unref();
    }
    if (options.maxConnectionMs > 0) {
      this.maxAge = setTimeout(() => this.close(options.retryMs), options.maxConnectionMs);
      this.maxAge.unref();
    }
  }

  /** Writes one event carrying an encoded JSON-RPC message; `id` lets the client resume after it. */
  event(id: string | undefined, data: string): void {
    this.write(id === undefined ? `data: ${data}\n\n` : `id: ${id}\ndata: ${data}\n\n`);
  }

  /** The priming event: an id and empty data, so the client can resume even before any message. */
  prime(id: string, retryMs: number): void {
    this.write(`id: ${id}\nretry: ${retryMs}\ndata: \n\n`);
  }

  /** Ends the response; with `retryMs`, first tells the client when to come back (polling). */
  close(retryMs?: number): void {
    if (this.closed) return;
    if (retryMs !== undefined) this.write(`retry: ${retryMs}\n\n`);
    this.res.end();
    this.finish();
  }

  private write(chunk: string): void {
    if (!this.closed) this.res.write(chunk);
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.maxAge);
  }
}
