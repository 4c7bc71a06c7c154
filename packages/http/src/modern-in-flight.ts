import type { LazyAbort } from '@mcpx/core/transport';

/** Callers with nothing in flight kept counted at zero before a sweep forgets them. */
const IDLE_CALLERS = 1024;

/**
 * One modern request while it is counted in flight: a link of its endpoint's list, so that
 * counting it in and out hashes nothing.
 */
export class InFlightRequest {
  prev: InFlightRequest | undefined = undefined;
  next: InFlightRequest | undefined = undefined;
  /** Set while counted in. */
  abort: LazyAbort | undefined = undefined;

  constructor(readonly caller: string) {}
}

/**
 * The modern requests in flight on one endpoint. The in-flight cap (the engine's
 * `maxRequestsInFlight`, per session in the legacy era) applies per caller: the principal when
 * the endpoint authenticates, else the client's address (`request.ip`, which honours Fastify's
 * `trustProxy`). Without sessions nothing finer identifies a client, and a cap per TCP
 * connection would bound nothing (a client opens as many as it likes). Behind a proxy that
 * Fastify does not trust, every client shares the proxy's address: raise the cap, or set `trustProxy`.
 */
export class ModernInFlight {
  /**
   * Requests in flight per caller. A caller's count stays at zero when its last request ends: most
   * requests are answered before the next arrives, and adding and deleting its key each time
   * churned the map. Idle callers are forgotten once there are many.
   */
  private readonly perCaller = new Map<string, number>();
  private idle = 0;
  private first: InFlightRequest | undefined = undefined;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Counts a request in, unless its caller is at `cap` already. */
  admit(request: InFlightRequest, cap: number, abort: LazyAbort): boolean {
    if (request.abort) return true;
    const n = this.perCaller.get(request.caller);
    if (n !== undefined && n >= cap) return false;
    if (n === 0) this.idle--;
    this.perCaller.set(request.caller, (n ?? 0) + 1);
    request.abort = abort;
    request.next = this.first;
    if (this.first) this.first.prev = request;
    this.first = request;
    this.count++;
    return true;
  }

  release(request: InFlightRequest): void {
    if (!request.abort) return;
    request.abort = undefined;
    if (request.prev) request.prev.next = request.next;
    else this.first = request.next;
    if (request.next) request.next.prev = request.prev;
    request.prev = request.next = undefined;
    this.count--;
    const n = (this.perCaller.get(request.caller) ?? 1) - 1;
    this.perCaller.set(request.caller, n);
    if (n === 0 && ++this.idle > IDLE_CALLERS) this.forgetIdle();
  }

  /** Each request in flight, by its abort: shutdown ends them. */
  get requests(): readonly LazyAbort[] {
    const aborts: LazyAbort[] = [];
    for (let request = this.first; request; request = request.next) aborts.push(request.abort!);
    return aborts;
  }

  /** Aborts every request in flight (shutdown, once the drain deadline passed). */
  abortAll(reason: unknown): void {
    for (const abort of this.requests) abort.abort(reason);
  }

  private forgetIdle(): void {
    for (const [caller, n] of this.perCaller) if (n === 0) this.perCaller.delete(caller);
    this.idle = 0;
  }
}
