import type { Figures } from './measure';
import { median, signTestP } from './stats';

export interface TargetCheck {
  goal: string;
  figure: string;
  met: boolean;
}

/** The budget of one logging middleware, in server CPU µs per call. */
const MIDDLEWARE_BUDGET_US = 5;

/**
 * The performance goals, each checked against the same run's anchors, and only when every figure it
 * needs was measured. Over HTTP those of performance issue 30: mcpx's default mode (stateful, SSE
 * responses) in the 2025 era and its 2026-07-28 era held against the raw route (CPU per call,
 * req/s) and the SDKs, its CPU per call as concurrency rises, its RSS per open session against the
 * raw route's, its peak RSS serving 1 MB results and its time to listen against the SDK's. Then its
 * start and throughput over stdio, its Redis-backed mode, and middleware's cost. `rounds` (each
 * round's figures) gives the middleware goals their same-round differences; without them the
 * medians stand for one round.
 */
export function checkTargets(medians: Record<string, Figures>, rounds: Record<string, Figures>[] = [medians]): TargetCheck[] {
  const m = medians['mcpx-sse'] ?? {};
  const modern = medians['mcpx-2026'] ?? {};
  const sdk = medians.sdk ?? {};
  const raw = medians.raw ?? {};
  const rawModern = medians['raw-2026'] ?? {};
  const stdio = medians['mcpx-stdio'] ?? {};
  const sdkStdio = medians['sdk-stdio'] ?? {};
  const sdk2Stdio = medians['sdk2-stdio'] ?? {};
  const checks: TargetCheck[] = [];
  // A ratio needs a positive divisor: a figure at or below zero (RSS noise) cannot meet a goal.
  const divided = (goal: string, a: number | undefined, b: number | undefined, judge: (r: number) => { figure: string; met: boolean }) => {
    if (a === undefined || b === undefined) return;
    if (!(b > 0)) checks.push({ goal, figure: `not comparable: the figure held against is ${b.toFixed(2)}`, met: false });
    else checks.push({ goal, ...judge(a / b) });
  };
  // At least `min` times the other (throughput). One decimal of a percentage: 59.6% must not read as a 60% goal met.
  const atLeast = (goal: string, a: number | undefined, b: number | undefined, min: number, unit: 'x' | '%') =>
    divided(goal, a, b, (r) => ({ figure: unit === 'x' ? `${r.toFixed(2)}×` : `${(r * 100).toFixed(1)}%`, met: r >= min }));
  // At most `max` times the other (CPU, memory): the figure says both.
  const atMost = (goal: string, a: number | undefined, b: number | undefined, max: number, unit: string, digits: number, note = '') =>
    divided(goal, a, b, (r) => ({ figure: `${r.toFixed(2)}× (${a!.toFixed(digits)} ${unit} ÷ ${b!.toFixed(digits)} ${unit})${note}`, met: r <= max }));
  // No later than the other (starts).
  const noLater = (goal: string, a: number | undefined, b: number | undefined) => {
    if (a !== undefined && b !== undefined) checks.push({ goal, figure: `${a.toFixed(0)} ms against ${b.toFixed(0)} ms`, met: a <= b });
  };

  atMost('2025 SSE, echo c=64: server CPU per call ≤ 2× the raw route’s', m.echo64CpuUs, raw.echo64CpuUs, 2, 'µs', 1);
  atMost('2026-07-28, echo c=64: server CPU per call ≤ 2× the raw route’s (2026 answers)', modern.echo64CpuUs, rawModern.echo64CpuUs, 2, 'µs', 1);
  atLeast('2025 SSE, echo c=64: ≥ 60% of the raw route’s req/s', m.echo64Rps, raw.echo64Rps, 0.6, '%');
  atLeast('2025 SSE, echo c=64: ≥ 5× the SDK', m.echo64Rps, sdk.echo64Rps, 5, 'x');
  atLeast('2025 SSE, echo c=64: ≥ 10× the SDK v2', m.echo64Rps, medians.sdk2?.echo64Rps, 10, 'x');
  atLeast('2026-07-28, echo c=64: ≥ 60% of the raw route’s req/s (2026 answers)', modern.echo64Rps, rawModern.echo64Rps, 0.6, '%');
  atLeast('2026-07-28, echo c=64: ≥ 10× the SDK v2 (2026-07-28)', modern.echo64Rps, medians['sdk2-2026']?.echo64Rps, 10, 'x');
  // More connections share each wake-up, write and parse: the cost of a call should fall, not rise.
  if (m.echo1CpuUs !== undefined && m.echo16CpuUs !== undefined && m.echo64CpuUs !== undefined) {
    checks.push({
      goal: '2025 SSE: server CPU per call falls as concurrency rises (c=64 < c=1, c=16 ≤ c=1)',
      figure: `c=1 ${m.echo1CpuUs.toFixed(1)} µs, c=16 ${m.echo16CpuUs.toFixed(1)} µs, c=64 ${m.echo64CpuUs.toFixed(1)} µs`,
      met: m.echo64CpuUs < m.echo1CpuUs && m.echo16CpuUs <= m.echo1CpuUs,
    });
  }
  atMost('RSS per open idle session ≤ 1.2× the raw route’s', m.kbPerSession, raw.kbPerSession, 1.2, 'KB', 2);
  // The same on the heap: below a KB per session the RSS moves with the pages V8 reuses (it can grow
  // less than the heap did), and the heap is what a session holds.
  atMost('heap per open idle session ≤ 1.2× the raw route’s', m.heapKbPerSession, raw.heapKbPerSession, 1.2, 'KB', 2);
  // Judged on the kernel's own peak (VmHWM, reset before the run: no busy event loop can hide a peak
  // from it), where the probe could read it; the 10 ms readings stand in elsewhere and are shown beside.
  const peakOf = (f: Figures) => f.big16HwmRssMB ?? f.big16PeakRssMB;
  const sampled = m.big16PeakRssMB !== undefined && sdk.big16PeakRssMB ? `; 10 ms readings ${(m.big16PeakRssMB / sdk.big16PeakRssMB).toFixed(2)}×` : '';
  atMost('peak RSS serving 1 MB results at 16 connections ≤ 1.5× the SDK’s', peakOf(m), peakOf(sdk), 1.5, 'MB', 1, sampled);
  // A start after an earlier one on the machine (the compile cache it wrote), and a first start.
  noLater('HTTP: time to listen no later than the SDK’s', m.listenMs, sdk.listenMs);
  noLater('HTTP: time to listen with an empty compile cache no later than the SDK’s', m.listenColdMs, sdk.listenColdMs);

  noLater('stdio: first answer no later than the SDK’s', stdio.stdioFirstAnswerMs, sdkStdio.stdioFirstAnswerMs);
  noLater('stdio: first answer with an empty compile cache no later than the SDK’s', stdio.stdioFirstAnswerColdMs, sdkStdio.stdioFirstAnswerColdMs);
  atLeast('stdio, 64 in flight ≥ 2.5× the SDK', stdio.stdioPipelinedRps, sdkStdio.stdioPipelinedRps, 2.5, 'x');
  atLeast('stdio, 64 in flight ≥ 2.5× the SDK v2', stdio.stdioPipelinedRps, sdk2Stdio.stdioPipelinedRps, 2.5, 'x');
  // Some clients probe a stdio server with a 1 s timeout: the start matters.
  noLater('stdio: first answer no later than the SDK v2’s', stdio.stdioFirstAnswerMs, sdk2Stdio.stdioFirstAnswerMs);
  if (stdio.stdioFirstAnswerMs !== undefined && stdio.nodeStartMs !== undefined) {
    const r = stdio.stdioFirstAnswerMs / stdio.nodeStartMs;
    checks.push({
      goal: 'stdio: first answer < 2× a bare `node -e` start',
      figure: `${r.toFixed(2)}× (${stdio.stdioFirstAnswerMs.toFixed(0)} ms ÷ ${stdio.nodeStartMs.toFixed(0)} ms)`,
      met: r < 2,
    });
  }
  // Scale-out: state shared through Redis may cost at most twice the in-memory server's CPU per call.
  const redis = medians['mcpx-redis'];
  if (redis) atMost('on Redis: server CPU per echo call (c=64) ≤ 2× in memory', redis.echo64CpuUs, m.echo64CpuUs, 2, 'µs', 1);
  for (const [era, plain, withMiddleware] of [
    ['2025 SSE', 'mcpx-sse', 'mcpx-mw'],
    ['2026-07-28', 'mcpx-2026', 'mcpx-mw-2026'],
  ] as const) {
    const cost = sameRoundDifferences(rounds, withMiddleware, plain);
    if (cost) checks.push({ goal: `${era}: one logging middleware < ${MIDDLEWARE_BUDGET_US} µs of server CPU per call`, figure: cost.figure, met: cost.us < MIDDLEWARE_BUDGET_US });
    // With no middleware the pipeline calls the handler at once: held against an earlier build (--baseline) in the same run.
    const none = sameRoundDifferences(rounds, plain, `${plain}-base`);
    if (none) {
      checks.push({
        goal: `${era}, no middleware: server CPU per call not measurably above the baseline build’s`,
        figure: `${none.figure}; higher in ${none.higher} of ${none.n}, p = ${none.p.toFixed(2)}`,
        met: none.p >= 0.05,
      });
    }
  }
  return checks;
}

/**
 * Server CPU per echo call of `a` minus `b`, per round (the two are measured one after the other),
 * at c=16 and c=64 (c=1's figure carries each call's wake-ups and moves more): their median, which
 * one slow run cannot move, and a sign test of `a` costing more (the chance of `a` coming out
 * higher in that many of the pairs if the two cost the same: below 0.05, the difference is measurable).
 */
function sameRoundDifferences(rounds: Record<string, Figures>[], a: string, b: string): { us: number; figure: string; higher: number; n: number; p: number } | undefined {
  const diffs: number[] = [];
  for (const round of rounds) {
    for (const metric of ['echo16CpuUs', 'echo64CpuUs']) {
      const x = round[a]?.[metric];
      const y = round[b]?.[metric];
      if (x !== undefined && y !== undefined) diffs.push(x - y);
    }
  }
  if (!diffs.length) return undefined;
  const us = median(diffs);
  const signed = (n: number) => `${n >= 0 ? '+' : '−'}${Math.abs(n).toFixed(1)}`;
  const n = diffs.length;
  const higher = diffs.filter((d) => d > 0).length;
  const p = signTestP(higher, n);
  return { us, higher, n, p, figure: `${signed(us)} µs (median of ${n} same-round differences at c=16 and c=64, ${signed(Math.min(...diffs))} to ${signed(Math.max(...diffs))})` };
}
