/** How long an instance's lease lasts without renewal, by default: a killed instance's work is declared lost after it. */
export const DEFAULT_LEASE_MS = 10_000;

/** How often a followed stream checks that its writer's lease still holds: every half lease. */
export function leaseCheckEveryMs(leaseMs: number): number {
  return Math.max(1, Math.floor(leaseMs / 2));
}

/**
 * The longest a request lost with its instance goes unreported to a client following its stream:
 * the lease may have just been renewed when the instance died (a whole lease still to run), and the
 * lapse is seen at the next check after it (up to one check interval). 15 s with the default lease.
 */
export function lostRequestBoundMs(leaseMs: number = DEFAULT_LEASE_MS): number {
  return leaseMs + leaseCheckEveryMs(leaseMs);
}
