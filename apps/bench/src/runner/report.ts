import type { TargetCheck } from './goals';
import { MEMORY_SLOPE_FACTOR, type Figures, type Settings } from './measure';
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
  /** Each HTTP server ÷ the bare node:http SSE floor of its era. */
  floorRatios: FloorRatio[];
  targets: TargetCheck[];
  /** How the processes were placed on CPUs (`--pin`), or why they could not be. */
  pinning?: string;
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

export interface FloorRatio {
  metric: string;
  target: string;
  floor: string;
  value: number;
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
  { metric: 'big16MBps', label: 'big (1 MB result) at 16 connections, MB/s', format: int, higher: true },
  { metric: 'big16PeakRssMB', label: 'peak RSS serving big at 16 connections, MB', format: fixed(1), higher: false },
  { metric: 'big16HwmRssMB', label: 'the same peak as the kernel counts it (VmHWM), MB', format: fixed(1), higher: false },
  { metric: 'sessionsPerS', label: 'sessions/s (initialize → DELETE)', format: int, higher: true },
  { metric: 'idleRssKB', label: 'RSS idle, MB', format: (n) => (n / 1024).toFixed(1), higher: false },
  { metric: 'listenMs', label: 'time to listen after the spawn, ms (probe preload included)', format: (n) => n.toFixed(0), higher: false },
  { metric: 'listenColdMs', label: 'the same, first start (empty compile cache), ms', format: (n) => n.toFixed(0), higher: false },
  { metric: 'listenSecondMs', label: 'the same, second start (the cache the first made), ms', format: (n) => n.toFixed(0), higher: false },
  { metric: 'kbPerSession', label: 'KB per open session (RSS, young generation out)', format: fixed(1), higher: false },
  { metric: 'heapKbPerSession', label: 'KB per open session (heap)', format: fixed(1), higher: false },
  { metric: 'redisKeysKbPerSession', label: 'KB per open session in Redis (its keys)', format: fixed(1), higher: false },
  { metric: 'redisKbPerSession', label: 'KB per open session in Redis (used_memory)', format: fixed(1), higher: false },
];

const STDIO_ROWS: Row[] = [
  { metric: 'stdioSerialRps', label: 'echo round trips/s, serial', format: int, higher: true },
  { metric: 'stdioPipelinedRps', label: 'echo round trips/s, 64 in flight', format: int, higher: true },
  { metric: 'stdioFirstAnswerMs', label: 'first answer after the spawn, ms', format: (n) => n.toFixed(0), higher: false },
  { metric: 'stdioFirstAnswerColdMs', label: 'the same, first start (empty compile cache), ms', format: (n) => n.toFixed(0), higher: false },
  { metric: 'stdioFirstAnswerSecondMs', label: 'the same, second start (the cache the first made), ms', format: (n) => n.toFixed(0), higher: false },
  { metric: 'nodeStartMs', label: 'a bare `node -e` start, ms (measured just before)', format: (n) => n.toFixed(0), higher: false },
  { metric: 'idleRssKB', label: 'RSS idle, MB', format: (n) => (n / 1024).toFixed(1), higher: false },
];

/** The metrics compared as ratios: throughput, CPU per call and memory (latency is in the tables). */
const RATIO_METRICS = new Set([
  'echo1Rps',
  'echo16Rps',
  'echo64Rps',
  'echo64CpuUs',
  'bigMBps',
  'big16MBps',
  'big16PeakRssMB',
  'big16HwmRssMB',
  'sessionsPerS',
  'kbPerSession',
  'listenMs',
  'stdioSerialRps',
  'stdioPipelinedRps',
]);

/** The floor of each era, and the metrics every other HTTP server is divided by it in. */
const FLOOR_OF = { legacy: 'node-sse', modern: 'node-sse-2026' };
const FLOOR_METRICS = [
  'echo1Rps',
  'echo64Rps',
  'echo1CpuUs',
  'echo64CpuUs',
  'echo64P99',
  'bigMBps',
  'big16MBps',
  'big16PeakRssMB',
  'big16HwmRssMB',
  'sessionsPerS',
  'kbPerSession',
  'idleRssKB',
  'listenMs',
];

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

/** Each HTTP server ÷ the bare node:http SSE floor of the same era, for every floor metric both have. */
export function floorRatiosOf(medians: Record<string, Figures>, measured: Target[]): FloorRatio[] {
  const ratios: FloorRatio[] = [];
  for (const target of measured.filter((t) => t.transport === 'http')) {
    const floor = target.modern ? FLOOR_OF.modern : FLOOR_OF.legacy;
    if (target.key === floor) continue;
    for (const metric of FLOOR_METRICS) {
      const a = medians[target.key]?.[metric];
      const b = medians[floor]?.[metric];
      if (a !== undefined && b !== undefined && b > 0) ratios.push({ metric, target: target.key, floor, value: a / b });
    }
  }
  return ratios;
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
      `sessions/s on ${s.sessionConnections} connections; big on ${s.bigConnections}, then on ${s.peakConnections} with the RSS sampled every 10 ms (its peak); ` +
      `memory per session: from ${s.memorySessions} open sessions to ${(1 + MEMORY_SLOPE_FACTOR) * s.memorySessions}, young generation out of the RSS. Time to listen: from the spawn to the first accepted TCP connection (tried every 5 ms), ` +
      `Node’s start and the preload of the probe that reads memory and CPU included (the same for every server).` +
      (results.redis ? ` Redis ${results.redis.version} at ${results.redis.url}.` : '') +
      (results.pinning ? ` ${results.pinning}` : ''),
    '',
  ];
  for (const skip of results.skipped ?? []) lines.push(`Not measured: ${label(skip.target)}: ${skip.reason}.`, '');
  if (http.length) lines.push(...table('Streamable HTTP', HTTP_ROWS, http, results.medians));
  if (stdio.length) lines.push(...table('stdio', STDIO_ROWS, stdio, results.medians));
  lines.push(...floorTable(results.floorRatios ?? [], http));

  const rows = HTTP_ROWS.concat(STDIO_ROWS);
  for (const transport of ['http', 'stdio'] as const) {
    const ratios = results.ratios.filter((r) => targetOf(r.mcpx)?.transport === transport && targetOf(r.versus)?.family !== 'mcpx');
    const versus = [...new Set(ratios.map((r) => r.versus))];
    if (!versus.length) continue;
    lines.push(`### Ratios, ${transport === 'http' ? 'Streamable HTTP' : 'stdio'} (mcpx ÷ other: above 1 is better for mcpx, except CPU per call, memory and time to listen)`, '');
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

/** Each HTTP server (columns) ÷ the floor of its era, per metric (rows). */
function floorTable(ratios: FloorRatio[], http: Target[]): string[] {
  const targets = http.filter((t) => ratios.some((r) => r.target === t.key));
  if (!targets.length) return [];
  const out = [
    '### Streamable HTTP ÷ the floor (bare node:http SSE of the same era; req/s, MB/s, sessions/s: below 1 is slower; the others: above 1 costs more)',
    '',
    `| | ${targets.map((t) => t.label).join(' | ')} |`,
    `|---|${targets.map(() => '---:').join('|')}|`,
  ];
  for (const metric of FLOOR_METRICS) {
    const cells = targets.map((t) => ratios.find((r) => r.target === t.key && r.metric === metric));
    if (cells.every((c) => !c)) continue;
    out.push(`| ${HTTP_ROWS.find((row) => row.metric === metric)!.label} | ${cells.map((c) => (c ? `${c.value.toFixed(2)}×` : '–')).join(' | ')} |`);
  }
  return [...out, ''];
}
