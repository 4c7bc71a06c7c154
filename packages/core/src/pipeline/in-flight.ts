import type { RequestId } from '../protocol/jsonrpc';
import type { LazyAbort } from '../context/lazy-abort';
import type { InFlightScope } from './era-front';
import { FewMap } from './few-map';

/**
 * The requests in flight on one session or stream, by id: ids must be unique there while in
 * flight, and `notifications/cancelled` finds a request by its id.
 */
// A FewMap itself rather than a holder of one: every session has one, and an object less is 32 bytes less per session.
export class RequestsById extends FewMap<RequestId, LazyAbort> implements InFlightScope {
  enter(id: RequestId, abort: LazyAbort, cap: number): 'ok' | 'taken' | 'full' {
    if (this.get(id) !== undefined) return 'taken';
    if (this.size >= cap) return 'full';
    this.set(id, abort);
    return 'ok';
  }

  /** Counts a request out; returns how many are left. */
  leave(id: RequestId, abort: LazyAbort): number {
    if (this.get(id) === abort) this.delete(id);
    return this.size;
  }

  /** Aborts every request with `reason` and forgets them all (the session or stream ended). */
  abortAll(reason: unknown): void {
    const all = [...this.values()];
    this.clear();
    for (const abort of all) abort.abort(reason);
  }
}
