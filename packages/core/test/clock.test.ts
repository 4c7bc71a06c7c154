import { ManualClock } from '../src/exports/stores';
import { msSince, systemClock } from '../src/transport';

describe('ManualClock', () => {
  it('stands still until advanced, then reads the new time', () => {
    const clock = new ManualClock(1_000);
    expect(clock.now()).toBe(1_000);
    expect(clock.now()).toBe(1_000);
    expect(clock.advance(250)).toBe(1_250);
    expect(clock.now()).toBe(1_250);
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(() => clock.every(0, () => {})).toThrow(RangeError);
  });

  it('runs periodic callbacks as often as they fell due, in time order (ties: first registered first), reading their due time', () => {
    const clock = new ManualClock(0);
    const calls: string[] = [];
    clock.every(100, () => calls.push(`a@${clock.now()}`));
    clock.every(40, () => calls.push(`b@${clock.now()}`));
    clock.advance(99);
    expect(calls).toEqual(['b@40', 'b@80']);
    clock.advance(121);
    expect(calls).toEqual(['b@40', 'b@80', 'a@100', 'b@120', 'b@160', 'a@200', 'b@200']);
    expect(clock.now()).toBe(220);
  });

  it('stops a callback when told, even one that falls due later in the same advance', () => {
    const clock = new ManualClock(0);
    const calls: number[] = [];
    let stopSecond = () => {};
    const stopFirst = clock.every(10, () => {
      calls.push(clock.now());
      if (clock.now() === 20) stopSecond();
    });
    stopSecond = clock.every(15, () => calls.push(-clock.now()));
    expect(clock.pending).toBe(2);
    clock.advance(50);
    // The second ran at 15, was stopped at 20, and never ran again.
    expect(calls).toEqual([10, -15, 20, 30, 40, 50]);
    stopFirst();
    expect(clock.pending).toBe(0);
    clock.advance(100);
    expect(calls).toHaveLength(6);
  });
});

describe('systemClock', () => {
  it('reads Date.now() and runs its interval until stopped', async () => {
    const before = Date.now();
    const now = systemClock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
    let ticks = 0;
    let stop = () => {};
    await new Promise<void>((resolve) => {
      stop = systemClock.every(1, () => {
        if (++ticks === 3) resolve();
      });
    });
    stop();
    const stoppedAt = ticks;
    await new Promise((r) => setTimeout(r, 20));
    expect(ticks).toBe(stoppedAt);
  });
});

describe('msSince', () => {
  it('is the difference, exact on both sides of the small-integer range and before the start', () => {
    const since = 1_700_000_000_000;
    expect(msSince(since, since)).toBe(0);
    expect(msSince(since, since + 1234)).toBe(1234);
    expect(msSince(since, since - 1234)).toBe(-1234);
    // Past about 12 days the difference no longer fits a small integer: it is kept as a number, not wrapped.
    expect(msSince(since, since + 0x3fffffff - 1)).toBe(0x3fffffff - 1);
    expect(msSince(since, since + 0x3fffffff)).toBe(0x3fffffff);
    expect(msSince(since, since + 30 * 86_400_000)).toBe(30 * 86_400_000);
    expect(msSince(since, since - 30 * 86_400_000)).toBe(-30 * 86_400_000);
    expect(msSince(0, 1_234_567_890_123)).toBe(1_234_567_890_123);
  });
});
