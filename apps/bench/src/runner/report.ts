import type { Figures, Settings } from './measure';
import { median, signTestP } from './stats';
import { TARGETS, type Target } from './targets';

export interface Results {
  date: string;
  machine: { node: string; platform: string; cpus: number; cpuModel: string };
  settings: Settings;
  /** Every round's figures per target key, in the order they were measured. */
  rounds: Record<string, Figures>[];
  /** The median of the rounds, per target key and metric. */
  medians: Record<string, Figures>;
  ratios: Ratio[];
  targets: TargetCheck[];
  /** The Redis the Redis-backed target used (URL without password). */
  redis?: { url: string; version: string };
  /** Targets asked for but not measured, and why (e.g. Redis does not answer). */
  skipped?: { target: string; reason: string }[];
  /** The checkout whose build served the baseline targets (`--baseline`). */
  baseline?: string;
}

export interface Ratio {
  metric: string;
  mcpx: string;
  versus: string;
  value: number;
}

export interface TargetCheck {
  goal: string;
  figure: string;
  met: boolean;
}

interface Row {
  metric: string;
  label: string;
  format: (n: number) => string;
  /** Bigger is better (false for latency and memory). */
  higher: boolean;
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const fixed = (digits: number) => (n: number) => n.toFixed(digits);

const HTTP_ROWS: Row[] = [
  ...[1, 16, 64].flatMap((c): Row[] => [
    { metric: `echo${c}Rps`, label: `echo c=${c}, req/s`, format: int, higher: true },
    { metric: `echo${c}P50`, label: `echo c=${c}, p50 ms`, format: fixed(2), higher: false },
    { metric: `echo${c}P99`, label: `echo c=${c}, p99 ms`, format: fixed(2), higher: false },
    { metric: `echo${c}CpuUs`, label: `echo c=${c}, server CPU µs per call`, format: fixed(1), higher: false },
    // Redis-backed targets only: what the Redis process spent, and the commands it served, per call.
    { metric: `echo${c}RedisCpuUs`, label: `echo c=${c}, Redis CPU µs per call`, format: fixed(1), higher: false },
    { metric: `echo${c}RedisCommands`, label: `echo c=${c}, Redis commands per call`, format: fixed(1), higher: false },
  ]),
  { metric: 'echo64RedisKbPerCall', label: 'echo c=64, Redis memory growth KB per call', format: fixed(2), higher: false },
  { metric: 'bigMBps', label: 'big (1 MB result), MB/s', format: int, higher: true },
  { metric: 'sessionsPerS', label: 'sessions/s (initialize → DELETE)', format: int, higher: true },
  { metric: 'idleRssKB', label: 'RSS idle, MB', format: (n) => (n / 1024).toFixed(1), higher: false },
  { metric: 'kbPerSession', label: 'KB per open session (RSS)', format: fixed(1), higher: false },
  { metric: 'heapKbPerSession', label: 'KB per open session (heap)', format: fixed(1), higher: false },
  { metric: 'redisKeysKbPerSession', label: 'KB per open session in Redis (its keys)', format: fixed(1), higher: false },
  { metric: 'redisKbPerSession', label: 'KB per open session in Redis (used_memory)', format: fixed(1), higher: false },
];

const STDIO_ROWS: Row[] = [
  { metric: 'stdioSerialRps', label: 'echo round trips/s, serial', format: int, higher: true },
  { metric: 'stdioPipelinedRps', label: 'echo round trips/s, 64 in flight', format: int, higher: true },
  { metric: 'stdioFirstAnswerMs', label: 'first answer after the spawn, ms', format: (n) => n.toFixed(0), higher: false },
  { metric: 'nodeStartMs', label: 'a bare `node -e` start, ms (measured just before)', format: (n) => n.toFixed(0), higher: false },
  { metric: 'idleRssKB', label: 'RSS idle, MB', format: (n) => (n / 1024).toFixed(1), higher: false },
];

/** The metrics compared as ratios: throughput, CPU per call and memory (latency is in the tables). */
const RATIO_METRICS = new Set(['echo1Rps', 'echo16Rps', 'echo64Rps', 'echo64CpuUs', 'bigMBps', 'sessionsPerS', 'kbPerSession', 'stdioSerialRps', 'stdioPipelinedRps']);

/** Redis-backed ÷ in-memory: what sharing state through Redis costs. */
const REDIS_RATIO_METRICS = [
  'echo1Rps',
  'echo16Rps',
  'echo64Rps',
  'echo1CpuUs',
  'echo16CpuUs',
  'echo64CpuUs',
  'echo64P50',
  'echo64P99',
  'bigMBps',
  'sessionsPerS',
  'kbPerSession',
  'heapKbPerSession',
];

/** The plain mcpx target each variant is compared with: on Redis, traced with the OpenTelemetry SDK, with one logging middleware. */
const BASELINE_OF: Record<string, string> = { 'mcpx-redis': 'mcpx-sse', 'mcpx-otel': 'mcpx-sse', 'mcpx-mw': 'mcpx-sse', 'mcpx-mw-2026': 'mcpx-2026' };

/** The budget of one logging middleware, in server CPU µs per call. */
const MIDDLEWARE_BUDGET_US = 5;

/**
 * mcpx ÷ each other server, for every compared metric both have; each variant of mcpx (on Redis,
 * traced, with a middleware) ÷ the same server plain; and this build ÷ the baseline build.
 */
export function ratiosOf(medians: Record<string, Figures>, measured: Target[]): Ratio[] {
  const ratios: Ratio[] = [];
  const pairs = [
    ...measured.filter((t) => BASELINE_OF[t.key]).map((t) => [t.key, BASELINE_OF[t.key]!] as const),
    ...measured.filter((t) => t.baselineOf).map((t) => [t.baselineOf!, t.key] as const),
  ];
  for (const [variant, plain] of pairs) {
    if (!measured.some((t) => t.key === plain) || !measured.some((t) => t.key === variant)) continue;
    for (const metric of REDIS_RATIO_METRICS) {
      const a = medians[variant]?.[metric];
      const b = medians[plain]?.[metric];
      if (a !== undefined && b !== undefined && b > 0) ratios.push({ metric, mcpx: variant, versus: plain, value: a / b });
    }
  }
  // The baseline build is compared with this one only.
  for (const mine of measured.filter((t) => t.family === 'mcpx' && !t.baselineOf)) {
    // Over HTTP each era is compared with the same era: a 2026-07-28 target with the others' 2026-07-28 targets.
    const peers = measured.filter((t) => t.family !== 'mcpx' && t.transport === mine.transport && (mine.transport === 'stdio' || !t.modern === !mine.modern));
    for (const other of peers) {
      for (const row of mine.transport === 'http' ? HTTP_ROWS : STDIO_ROWS) {
        if (!RATIO_METRICS.has(row.metric)) continue;
        const a = medians[mine.key]?.[row.metric];
        const b = medians[other.key]?.[row.metric];
        if (a !== undefined && b !== undefined && b > 0) ratios.push({ metric: row.metric, mcpx: mine.key, versus: other.key, value: a / b });
      }
    }
  }
  return ratios;
}

/**
 * The performance goals (docs/performance.md), each checked against the same run's anchors: mcpx's
 * default mode (stateful, SSE responses) in the 2025 era, its 2026-07-28 era beside the SDK v2's and
 * the raw route's, its start and throughput over stdio, its Redis-backed mode, and middleware's
 * cost. `rounds` (each round's figures) gives the middleware goals their same-round differences;
 * without them the medians stand for one round.
 */
export function checkTargets(medians: Record<string, Figures>, rounds: Record<string, Figures>[] = [medians]): TargetCheck[] {
  const m = medians['mcpx-sse'] ?? {};
  const modern = medians['mcpx-2026'] ?? {};
  const sdk = medians.sdk ?? {};
  const sdk2 = medians.sdk2 ?? {};
  const sdk2Modern = medians['sdk2-2026'] ?? {};
  const raw = medians.raw ?? {};
  const rawModern = medians['raw-2026'] ?? {};
  const stdio = medians['mcpx-stdio'] ?? {};
  const checks: TargetCheck[] = [];
  const ratio = (goal: string, a: number | undefined, b: number | undefined, min: number, unit: 'x' | '%') => {
    if (a === undefined || b === undefined) return;
    const r = a / b;
    checks.push({ goal, figure: unit === 'x' ? `${r.toFixed(2)}×` : `${(r * 100).toFixed(0)}%`, met: r >= min });
  };
  // At most `max` times the other (latency, CPU): the figure says both.
  const atMost = (goal: string, a: number | undefined, b: number | undefined, max: number, unit: string, digits: number) => {
    if (a === undefined || b === undefined) return;
    const r = a / b;
    checks.push({ goal, figure: `${r.toFixed(2)}× (${a.toFixed(digits)} ${unit} ÷ ${b.toFixed(digits)} ${unit})`, met: r <= max });
  };

  ratio('2025 SSE: echo c=64 ≥ 75% of the raw Fastify route', m.echo64Rps, raw.echo64Rps, 0.75, '%');
  ratio('2025 SSE: echo c=64 ≥ 6× the SDK', m.echo64Rps, sdk.echo64Rps, 6, 'x');
  ratio('2025 SSE: echo c=64 ≥ 6× the SDK v2', m.echo64Rps, sdk2.echo64Rps, 6, 'x');
  ratio('2025 stateless: echo c=64 no slower than stateful', medians['mcpx-stateless']?.echo64Rps, m.echo64Rps, 1, '%');
  ratio('2026-07-28: echo c=64 ≥ 80% of the raw route (2026 answers)', modern.echo64Rps, rawModern.echo64Rps, 0.8, '%');
  ratio('2026-07-28: echo c=64 ≥ 5× the SDK v2 (2026-07-28)', modern.echo64Rps, sdk2Modern.echo64Rps, 5, 'x');
  atMost('2025 SSE: p99 at c=64 ≤ 2× the raw route’s', m.echo64P99, raw.echo64P99, 2, 'ms', 2);
  atMost('2026-07-28: p99 at c=64 ≤ 2× the raw route’s', modern.echo64P99, rawModern.echo64P99, 2, 'ms', 2);
  ratio('sessions/s ≥ 8× the SDK', m.sessionsPerS, sdk.sessionsPerS, 8, 'x');
  if (m.kbPerSession !== undefined) checks.push({ goal: '≤ 8 KB of RSS per open idle session', figure: `${m.kbPerSession.toFixed(1)} KB`, met: m.kbPerSession <= 8 });
  ratio('1 MB results ≥ 80% of the raw route’s MB/s', m.bigMBps, raw.bigMBps, 0.8, '%');
  ratio('stdio, 64 in flight ≥ 2.5× the SDK', stdio.stdioPipelinedRps, medians['sdk-stdio']?.stdioPipelinedRps, 2.5, 'x');
  ratio('stdio, 64 in flight ≥ 2.5× the SDK v2', stdio.stdioPipelinedRps, medians['sdk2-stdio']?.stdioPipelinedRps, 2.5, 'x');
  // Some clients probe a stdio server with a 1 s timeout: the start matters.
  const sdk2Stdio = medians['sdk2-stdio'] ?? {};
  if (stdio.stdioFirstAnswerMs !== undefined && sdk2Stdio.stdioFirstAnswerMs !== undefined) {
    checks.push({
      goal: 'stdio: first answer no later than the SDK v2’s',
      figure: `${stdio.stdioFirstAnswerMs.toFixed(0)} ms against ${sdk2Stdio.stdioFirstAnswerMs.toFixed(0)} ms`,
      met: stdio.stdioFirstAnswerMs <= sdk2Stdio.stdioFirstAnswerMs,
    });
  }
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

function table(title: string, rows: Row[], targets: Target[], medians: Record<string, Figures>): string[] {
  const out = [`### ${title}`, '', `| | ${targets.map((t) => t.label).join(' | ')} |`, `|---|${targets.map(() => '---:').join('|')}|`];
  for (const row of rows) {
    const cells = targets.map((t) => {
      const v = medians[t.key]?.[row.metric];
      return v === undefined ? '–' : row.format(v);
    });
    if (cells.every((c) => c === '–')) continue;
    out.push(`| ${row.label} | ${cells.join(' | ')} |`);
  }
  return [...out, ''];
}

export function markdown(results: Results, measured: Target[]): string {
  const { settings: s, machine } = results;
  const http = measured.filter((t) => t.transport === 'http');
  const stdio = measured.filter((t) => t.transport === 'stdio');
  // The baseline build's targets are in `measured` only.
  const targetOf = (key: string) => measured.find((t) => t.key === key) ?? TARGETS.find((t) => t.key === key);
  const label = (key: string) => targetOf(key)?.label ?? key;
  const lines = [
    `## Benchmark, ${results.date}`,
    '',
    `Node ${machine.node}, ${machine.platform}, ${machine.cpus} × ${machine.cpuModel}. ` +
      `Medians of ${s.rounds} interleaved round${s.rounds > 1 ? 's' : ''}; ${s.callS} s per run; ` +
      `sessions/s on ${s.sessionConnections} connections; big on ${s.bigConnections}; memory with ${s.memorySessions} open sessions.` +
      (results.redis ? ` Redis ${results.redis.version} at ${results.redis.url}.` : ''),
    '',
  ];
  for (const skip of results.skipped ?? []) lines.push(`Not measured: ${label(skip.target)}: ${skip.reason}.`, '');
  if (http.length) lines.push(...table('Streamable HTTP', HTTP_ROWS, http, results.medians));
  if (stdio.length) lines.push(...table('stdio', STDIO_ROWS, stdio, results.medians));

  const rows = HTTP_ROWS.concat(STDIO_ROWS);
  for (const transport of ['http', 'stdio'] as const) {
    const ratios = results.ratios.filter((r) => targetOf(r.mcpx)?.transport === transport && targetOf(r.versus)?.family !== 'mcpx');
    const versus = [...new Set(ratios.map((r) => r.versus))];
    if (!versus.length) continue;
    lines.push(`### Ratios, ${transport === 'http' ? 'Streamable HTTP' : 'stdio'} (mcpx ÷ other: above 1 is better for mcpx, except CPU per call and KB per session)`, '');
    lines.push(`| | ${versus.map((v) => `÷ ${label(v)}`).join(' | ')} |`, `|---|${versus.map(() => '---:').join('|')}|`);
    const seen = new Set<string>();
    for (const r of ratios) {
      const key = `${r.mcpx}/${r.metric}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const row = rows.find((x) => x.metric === r.metric)!;
      const cells = versus.map((v) => {
        const match = ratios.find((x) => x.mcpx === r.mcpx && x.metric === r.metric && x.versus === v);
        return match ? `${match.value.toFixed(2)}×` : '–';
      });
      lines.push(`| ${label(r.mcpx)}: ${row.label} | ${cells.join(' | ')} |`);
    }
    lines.push('');
  }
  const variantRatios = results.ratios.filter((r) => targetOf(r.versus)?.family === 'mcpx');
  if (variantRatios.length) {
    lines.push(
      '### Variants ÷ the plain server: on Redis, traced, with a logging middleware, this build ÷ the baseline build (same run; req/s, MB/s, sessions/s: below 1 is slower; the others: above 1 costs more)',
      '',
      '| | ratio |',
      '|---|---:|',
    );
    for (const r of variantRatios) lines.push(`| ${label(r.mcpx)} ÷ ${label(r.versus)}: ${rows.find((x) => x.metric === r.metric)!.label} | ${r.value.toFixed(2)}× |`);
    lines.push('');
  }
  if (results.targets.length) {
    lines.push('### Goals (against the same run)', '', '| goal | figure | met |', '|---|---:|:---:|');
    for (const t of results.targets) lines.push(`| ${t.goal} | ${t.figure} | ${t.met ? 'yes' : 'no'} |`);
    lines.push('');
    if (!results.baseline) lines.push('Not checked without `--baseline <checkout>` (an earlier build measured in the same run): that no middleware costs nothing measurable.', '');
  }
  return lines.join('\n');
}
