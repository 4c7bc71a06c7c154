export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The q-quantile (0..1) of the values, nearest rank. */
export function percentile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/**
 * A one-sided sign test: the chance of at least `higher` of `n` paired differences coming out
 * positive if both sides cost the same. Below 0.05, the difference is measurable.
 */
export function signTestP(higher: number, n: number): number {
  let p = 0;
  for (let k = higher; k <= n; k++) p += binomial(n, k) / 2 ** n;
  return p;
}

function binomial(n: number, k: number): number {
  let c = 1;
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
  return c;
}
