/**
 * Where time-based features (task ttl, HTTP session idle expiry, stream retention) read the time
 * and run their periodic sweeps. Servers use the system clock; tests pass a ManualClock so that
 * expiry happens when the test says, not when a busy machine gets round to it.
 */
export interface Clock {
  /** Milliseconds since the epoch, like Date.now(). */
  now(): number;
  /** Calls `fn` every `ms` until the returned function is called; never keeps the process alive. */
  every(ms: number, fn: () => void): () => void;
}

/** Date.now() and unref'd setInterval. */
export const systemClock: Clock = {
  now: () => Date.now(),
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

interface Periodic {
  due: number;
  ms: number;
  fn: () => void;
  stopped: boolean;
}

/**
 * A clock that stands still until `advance` moves it. Periodic callbacks run inside `advance`, in
 * time order, each as often as it fell due, with now() reading its due time while it runs.
 */
export class ManualClock implements Clock {
  private time: number;
  private periodic: Periodic[] = [];

  constructor(start = Date.now()) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  every(ms: number, fn: () => void): () => void {
    if (!(ms > 0)) throw new RangeError(`every() needs a positive period, got ${ms}`);
    const entry: Periodic = { due: this.time + ms, ms, fn, stopped: false };
    this.periodic.push(entry);
    return () => {
      entry.stopped = true;
      this.periodic = this.periodic.filter((p) => p !== entry);
    };
  }

  /** Moves the time forward by `ms`, running whatever falls due on the way; returns the new time. */
  advance(ms: number): number {
    if (!(ms >= 0)) throw new RangeError(`advance() needs a non-negative duration, got ${ms}`);
    const target = this.time + ms;
    for (;;) {
      let next: Periodic | undefined;
      // Earliest due first; on a tie, the one registered first.
      for (const p of this.periodic) if (p.due <= target && (!next || p.due < next.due)) next = p;
      if (!next) break;
      this.time = next.due;
      next.due += next.ms;
      if (!next.stopped) next.fn();
    }
    this.time = target;
    return target;
  }

  /** How many periodic callbacks are registered (for tests of code that must stop its own). */
  get pending(): number {
    return this.periodic.length;
  }
}

/**
 * `at - since` as a small integer where it fits in one (about 12 days): V8 boxes the result of
 * arithmetic on times even when it is whole, and a field that once held a box boxes every value.
 */
export function msSince(since: number, at: number): number {
  const ms = at - since;
  return ms < 0x3fffffff && ms > -0x3fffffff ? ms | 0 : ms;
}
