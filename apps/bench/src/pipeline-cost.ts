import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { median, signTestP } from './runner/stats';

/**
 * `npm run bench:pipeline [-- options]`: what the request pipeline itself costs, measured in process
 * where nothing else moves the figure (no sockets, no HTTP parser, no load generator): CPU µs per
 * echo tools/call through the whole engine (admission, middleware, handler, the era's answer),
 * with no middleware and with one logging middleware (src/log-middleware.ts), in both eras.
 * `--baseline <checkout>` also measures another built checkout of mcpx with no middleware, for
 * "nothing registered costs nothing measurable". Every figure comes from a fresh process; within a
 * round the variants run one after the other, and each goal is judged on same-round differences.
 */

const USAGE = `npm run bench:pipeline [-- options]

  --rounds <n>        rounds (default 7); each variant runs once a round, in a fresh process
  --calls <n>         calls per measured block (default 10000; 5 blocks, their median counts)
  --baseline <dir>    another built checkout of mcpx: its server with no middleware is measured too
  --out <dir>         where pipeline-cost.json and .md go (default apps/bench/results)
`;

/** A variant: which build serves, in which era, with or without the logging middleware. */
interface Variant {
  key: string;
  label: string;
  root: string;
  era: '2025' | '2026';
  middleware: boolean;
}

/** The budget of one logging middleware, in CPU µs per call. */
const MIDDLEWARE_BUDGET_US = 5;

const REPO = path.resolve(__dirname, '../../..');

/** Child: measures one variant and prints its µs per call. */
async function child(root: string, era: string, middleware: boolean, calls: number): Promise<void> {
  // The build under test's own copies: a baseline checkout is measured with its own code.
  const load = (rel: string) => require(path.join(root, rel)) as Record<string, unknown>;
  load('node_modules/reflect-metadata');
  const { connect } = load('packages/testing/dist') as { connect: (s: unknown, o: unknown) => Promise<{ callTool(n: string, a: unknown): Promise<unknown> }> };
  const { BenchServer } = load('apps/bench/dist/bench-server.js') as { BenchServer: new () => unknown };
  const pino = require(path.join(root, 'node_modules/pino')) as (o: unknown) => unknown;
  // The HTTP benchmark's level: a debug line is formatted by nobody.
  const options: Record<string, unknown> = { logger: pino({ level: 'warn' }) };
  if (era === '2026') options.protocolVersion = '2026-07-28';
  if (middleware) options.middleware = [(load('apps/bench/dist/log-middleware.js') as { logCalls: unknown }).logCalls];
  const client = await connect(new BenchServer(), options);
  for (let i = 0; i < 3000; i++) await client.callTool('echo', { text: `warm ${i}` });
  const blocks: number[] = [];
  for (let b = 0; b < 5; b++) {
    const start = process.cpuUsage();
    for (let i = 0; i < calls; i++) await client.callTool('echo', { text: `call ${i}` });
    const used = process.cpuUsage(start);
    blocks.push((used.user + used.system) / calls);
  }
  process.stdout.write(`${median(blocks)}\n`);
  process.exit(0);
}

function measureOnce(v: Variant, calls: number): number {
  const out = execFileSync(process.execPath, [__filename, '--child', v.root, v.era, v.middleware ? 'mw' : 'none', String(calls)], { encoding: 'utf8' });
  const us = Number(out.trim());
  if (!Number.isFinite(us)) throw new Error(`${v.label}: no figure in ${JSON.stringify(out)}`);
  return us;
}

export interface PipelineGoal {
  goal: string;
  figure: string;
  met: boolean;
}

/** `a` minus `b` in each round: their median, their range, and a sign test of `a` costing more. */
export function differences(rounds: Record<string, number>[], a: string, b: string): { us: number; higher: number; n: number; p: number; figure: string } {
  const diffs = rounds.map((r) => r[a]! - r[b]!);
  const us = median(diffs);
  const higher = diffs.filter((d) => d > 0).length;
  const p = signTestP(higher, diffs.length);
  const signed = (n: number) => `${n >= 0 ? '+' : '−'}${Math.abs(n).toFixed(2)}`;
  const figure = `${signed(us)} µs (median of ${diffs.length} rounds, ${signed(Math.min(...diffs))} to ${signed(Math.max(...diffs))}; higher in ${higher}, p = ${p.toFixed(2)})`;
  return { us, higher, n: diffs.length, p, figure };
}

export function pipelineGoals(rounds: Record<string, number>[], baseline: boolean): PipelineGoal[] {
  const goals: PipelineGoal[] = [];
  for (const era of ['2025', '2026'] as const) {
    const name = era === '2025' ? '2025-11-25' : '2026-07-28';
    const cost = differences(rounds, `mw-${era}`, `none-${era}`);
    goals.push({ goal: `${name}: one logging middleware < ${MIDDLEWARE_BUDGET_US} µs of CPU per call`, figure: cost.figure, met: cost.us < MIDDLEWARE_BUDGET_US });
    if (baseline) {
      const none = differences(rounds, `none-${era}`, `base-${era}`);
      goals.push({ goal: `${name}, nothing registered: CPU per call not measurably above the baseline build’s`, figure: none.figure, met: none.p >= 0.05 });
    }
  }
  return goals;
}

async function main(argv: string[]): Promise<void> {
  if (argv[0] === '--child') return child(argv[1]!, argv[2]!, argv[3] === 'mw', Number(argv[4]));
  let rounds = 7;
  let calls = 10_000;
  let baseline: string | undefined;
  let out = path.join(REPO, 'apps/bench/results');
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) fail(`${arg} needs a value`);
      return v;
    };
    if (arg === '--rounds') rounds = positive(value(), arg);
    else if (arg === '--calls') calls = positive(value(), arg);
    else if (arg === '--out') out = path.resolve(value());
    else if (arg === '--baseline') {
      baseline = path.resolve(value());
      if (!existsSync(path.join(baseline, 'packages/testing/dist/index.js'))) fail(`--baseline: no built mcpx at ${baseline} (packages/testing/dist)`);
    } else if (arg === '--help') {
      process.stdout.write(USAGE);
      return;
    } else fail(`unknown option ${arg}`);
  }
  const variants: Variant[] = [];
  for (const era of ['2025', '2026'] as const) {
    const name = era === '2025' ? '2025-11-25' : '2026-07-28';
    if (baseline) variants.push({ key: `base-${era}`, label: `${name}, baseline build`, root: baseline, era, middleware: false });
    variants.push({ key: `none-${era}`, label: `${name}, no middleware`, root: REPO, era, middleware: false });
    variants.push({ key: `mw-${era}`, label: `${name}, one logging middleware`, root: REPO, era, middleware: true });
  }
  const measured: Record<string, number>[] = [];
  for (let r = 0; r < rounds; r++) {
    const round: Record<string, number> = {};
    for (const v of variants) round[v.key] = measureOnce(v, calls);
    process.stderr.write(`round ${r + 1} of ${rounds}: ${variants.map((v) => `${v.key} ${round[v.key]!.toFixed(2)}`).join(', ')}\n`);
    measured.push(round);
  }
  const goals = pipelineGoals(measured, baseline !== undefined);
  const lines = [
    `## Pipeline cost in process, ${new Date().toISOString()}`,
    '',
    `Node ${process.version}; ${rounds} rounds, ${calls} calls a block${baseline ? `; baseline: ${baseline}` : ''}.`,
    '',
    '| variant | CPU µs per echo call (median of rounds) |',
    '|---|---:|',
    ...variants.map((v) => `| ${v.label} | ${median(measured.map((r) => r[v.key]!)).toFixed(2)} |`),
    '',
    '| goal | figure | met |',
    '|---|---:|:---:|',
    ...goals.map((g) => `| ${g.goal} | ${g.figure} | ${g.met ? 'yes' : 'no'} |`),
    '',
  ];
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'pipeline-cost.json'), JSON.stringify({ rounds: measured, variants, goals, baseline }, null, 2));
  writeFileSync(path.join(out, 'pipeline-cost.md'), lines.join('\n'));
  process.stdout.write(lines.join('\n'));
}

function positive(v: string, flag: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) fail(`${flag} needs a positive integer`);
  return n;
}

function fail(message: string): never {
  process.stderr.write(`bench:pipeline: ${message}\n${USAGE}`);
  process.exit(2);
}

if (require.main === module) void main(process.argv.slice(2));
