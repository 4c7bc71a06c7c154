import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_LEASE_MS, leaseCheckEveryMs, lostRequestBoundMs } from '../src/lost-request';

/**
 * How late a request lost with its instance is reported, computed from the constants the cluster
 * runs with (no timing): a whole lease after the instance died, plus one lease check. The docs
 * state that bound, not a shorter one.
 */
describe('the bound on reporting a request lost with its instance', () => {
  it('is the default lease plus one check interval: 15 s', () => {
    expect(DEFAULT_LEASE_MS).toBe(10_000);
    expect(leaseCheckEveryMs(DEFAULT_LEASE_MS)).toBe(5_000);
    expect(lostRequestBoundMs()).toBe(DEFAULT_LEASE_MS + leaseCheckEveryMs(DEFAULT_LEASE_MS));
    expect(lostRequestBoundMs()).toBe(15_000);
    expect(lostRequestBoundMs(2_000)).toBe(3_000);
  });

  it('is what the docs promise', () => {
    const docs = resolve(__dirname, '../../../docs');
    const seconds = `${lostRequestBoundMs() / 1000} s`;
    const read = (page: string) => readFileSync(resolve(docs, page), 'utf8').replace(/\s+/g, ' ');
    expect(read('deployment.md')).toContain(`at most ${seconds} after the kill`);
    expect(read('transports.md')).toContain(`(${seconds} by default) after the instance died`);
  });
});
