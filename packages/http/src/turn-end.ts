/** Something that waits for the end of the current turn of the event loop. */
export interface TurnEndWaiter {
  turnEnded(): void;
}

let waiting: TurnEndWaiter[] = [];
let spare: TurnEndWaiter[] = [];
let scheduled = false;

/**
 * Calls `waiter.turnEnded()` once this turn of the event loop is over (in setImmediate's phase),
 * in the order they were queued. Every waiter of a turn shares one setImmediate: under load a turn
 * handles many requests, and an immediate (with its bound callback) per request was measurable.
 */
export function atTurnEnd(waiter: TurnEndWaiter): void {
  waiting.push(waiter);
  if (scheduled) return;
  scheduled = true;
  setImmediate(endTurn);
}

function endTurn(): void {
  const due = waiting;
  // Waiters queued while these run wait for the next turn, as with setImmediate itself.
  waiting = spare;
  scheduled = false;
  let failure: { err: unknown } | undefined;
  for (let i = 0; i < due.length; i++) {
    try {
      due[i]!.turnEnded();
    } catch (err) {
      // One waiter's failure must not strand the others; it still surfaces as it would have alone.
      failure ??= { err };
    }
  }
  due.length = 0;
  spare = due;
  if (failure) throw failure.err;
}
