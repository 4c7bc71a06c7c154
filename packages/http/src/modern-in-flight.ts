import type { LazyAbort } from '@mcpx/core/transport';

/**
 * The modern requests in flight on one endpoint. The in-flight cap (the engine's
 * `maxRequestsInFlight`, per session in the legacy era) applies per caller: the principal when
 * the endpoint authenticates, else the client's address (`request.ip`, which honours Fastify's
 * `trustProxy`). Without sessions nothing finer identifies a client, and a cap per TCP
 * connection would bound nothing (a client opens as many as it likes). Behind a proxy that
 * Fastify does not trust, every client shares the proxy's address: raise the cap, or set `trustProxy`.
 */
export class ModernInFlight {
  private readonly perCaller = new Map<string, number>();
  private readonly aborts = new Set<LazyAbort>();

  get size(): number {
    return this.aborts.size;
  }

  /** Counts a request in, unless its caller is at `cap` already. */
  admit(caller: string, cap: number, abort: LazyAbort): boolean {
    const n = this.perCaller.get(caller) ?? 0;
    if (n >= cap) return false;
    this.perCaller.set(caller, n + 1);
    this.aborts.add(abort);
    return true;
  }

  release(caller: string, abort: LazyAbort): void {
    if (!this.aborts.delete(abort)) return;
    const n = (this.perCaller.get(caller) ?? 1) - 1;
    if (n > 0) this.perCaller.set(caller, n);
    else this.perCaller.delete(caller);
  }

  /** Each request in flight, by its abort: shutdown ends them. */
  get requests(): readonly LazyAbort[] {
    return [...this.aborts];
  }

  /** Aborts every request in flight (shutdown, once the drain deadline passed). */
  abortAll(reason: unknown): void {
    for (const abort of this.aborts) abort.abort(reason);
  }
}
