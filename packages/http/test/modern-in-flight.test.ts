import { LazyAbort } from '@mcpx/core/transport';
import { InFlightRequest, ModernInFlight } from '../src/modern-in-flight';

const perCaller = (all: ModernInFlight) => (all as unknown as { perCaller: Map<string, number> }).perCaller;

describe('ModernInFlight', () => {
  it('counts requests per caller up to the cap, and each one out once', () => {
    const all = new ModernInFlight();
    const a = [1, 2, 3].map(() => new InFlightRequest('address a'));
    const b = new InFlightRequest('address b');
    expect(a.map((r) => all.admit(r, 2, new LazyAbort()))).toEqual([true, true, false]);
    expect(all.admit(b, 2, new LazyAbort())).toBe(true);
    expect(all.size).toBe(3);
    // Counted in twice, or out twice, counts once.
    expect(all.admit(a[0]!, 2, new LazyAbort())).toBe(true);
    all.release(a[1]!);
    all.release(a[1]!);
    expect(all.size).toBe(2);
    expect(all.admit(a[2]!, 2, new LazyAbort())).toBe(true);
    expect(all.admit(new InFlightRequest('address a'), 2, new LazyAbort())).toBe(false);
    // Never counted in: nothing to count out.
    all.release(new InFlightRequest('address a'));
    expect(all.size).toBe(3);
    expect(perCaller(all).get('address a')).toBe(2);
  });

  it('lists and aborts what is in flight, whichever order requests leave in', () => {
    const all = new ModernInFlight();
    const requests = Array.from({ length: 6 }, (_, i) => new InFlightRequest(`address ${i % 2}`));
    const aborts = requests.map(() => new LazyAbort());
    requests.forEach((r, i) => all.admit(r, 10, aborts[i]!));
    // From the middle, the newest and the oldest.
    all.release(requests[2]!);
    all.release(requests[5]!);
    all.release(requests[0]!);
    expect(new Set(all.requests)).toEqual(new Set([aborts[1], aborts[3], aborts[4]]));
    const reason = new Error('shutting down');
    all.abortAll(reason);
    expect(aborts.map((a) => a.aborted)).toEqual([false, true, false, true, true, false]);
    for (const r of requests) all.release(r);
    expect(all.size).toBe(0);
    expect(all.requests).toEqual([]);
  });

  it('keeps an idle caller counted at zero (no key added and deleted per request), and forgets idle callers once they are many', () => {
    const all = new ModernInFlight();
    for (let i = 0; i < 100; i++) {
      const r = new InFlightRequest('address a');
      all.admit(r, 1, new LazyAbort());
      all.release(r);
    }
    expect([...perCaller(all)]).toEqual([['address a', 0]]);
    // A busy caller stays counted through a sweep; the idle ones go.
    const busy = new InFlightRequest('address busy');
    all.admit(busy, 1, new LazyAbort());
    for (let i = 0; i < 1100; i++) {
      const r = new InFlightRequest(`address ${i}`);
      all.admit(r, 1, new LazyAbort());
      all.release(r);
    }
    expect(perCaller(all).size).toBeLessThanOrEqual(1025);
    expect(perCaller(all).get('address busy')).toBe(1);
    expect(all.admit(new InFlightRequest('address busy'), 1, new LazyAbort())).toBe(false);
    all.release(busy);
    expect(all.size).toBe(0);
  });
});
