import type { RequestId } from '../protocol/jsonrpc';
import type { LazyAbort } from '../context/lazy-abort';
import type { InFlightScope } from './era-front';
import { FewMap } from './few-map';

/**
 * The requests in flight on one session or stream, by id: ids must be unique there while in
 * flight, and `notifications/cancelled` finds a request by its id.
 */
export class RequestsById implements InFlightScope {
  private readonly byId = new FewMap<RequestId, LazyAbort>();

  enter(id: RequestId, abort: LazyAbort, cap: number): 'ok' | 'taken' | 'full' {
    if (this.byId.get(id) !== undefined) return 'taken';
    if (this.byId.size >= cap) return 'full';
    this.byId.set(id, abort);
    return 'ok';
  }

  leave(id: RequestId, abort: LazyAbort): void {
    if (this.byId.get(id) === abort) this.byId.delete(id);
  }

  get(id: RequestId): LazyAbort | undefined {
    return this.byId.get(id);
  }

  get size(): number {
    return this.byId.size;
  }

  values(): IterableIterator<LazyAbort> {
    return this.byId.values();
  }

  /** Aborts every request with `reason` and forgets them all (the session or stream ended). */
  abortAll(reason: unknown): void {
    const all = [...this.byId.values()];
    this.byId.clear();
    for (const abort of all) abort.abort(reason);
  }
}
