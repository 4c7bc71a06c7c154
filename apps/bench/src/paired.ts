import path from 'node:path';
import { Pool } from 'undici';
import { median, signTestP } from './runner/stats';
import { INITIALIZED_BODY, callBody, findResponse, headerOf, initializeBody, modernCallHeaders, postHeaders, sessionHeaders } from './runner/mcp';
import { freePort, startProcess, waitForPort, type ServerProcess } from './runner/processes';
import { pinRunner } from './runner/pinning';

/**
 * `npm run bench:paired -- --baseline <checkout> [options] [-- serve flags]`: this build's benchmark
 * server against another build's, both running at once on the same core, driven alike (echo
 * tools/call, the same connections each), with each one's CPU per call read over the same seconds.
 * Whatever else the machine does then weighs on both alike, so a difference of a few µs a call shows
 * on a machine whose figures move by a third between runs. Each repeat runs both orders (which
 * server starts first, which port it has) and the summary is over every round of both.
 */

const USAGE = `npm run bench:paired -- --baseline <dir> [options] [-- flags for bench:serve]

  --baseline <dir>     another built checkout of mcpx (required)
  --modern             2026-07-28 requests (default: a 2025-11-25 session, SSE answers)
  --rounds <n>         measured rounds per order (default 8)
  --seconds <s>        length of a round (default 3)
  --connections <n>    connections to each server (default 32)
  --repeat <n>         repeats of both orders (default 2)
  --warmup <s>         load before the first round of each order (default 3)
  --no-pin             do not pin (default: both servers on CPU 1, this process on CPU 0)
  --json               print the result as JSON
`;

interface Options {
  baseline: string;
  modern: boolean;
  rounds: number;
  seconds: number;
  connections: number;
  repeat: number;
  warmup: number;
  pin: boolean;
  json: boolean;
  serveArgs: string[];
}

const THIS_SERVE = path.resolve(__dirname, 'serve.js');

function parse(argv: string[]): Options {
  const options: Options = { baseline: '', modern: false, rounds: 8, seconds: 3, connections: 32, repeat: 2, warmup: 3, pin: true, json: false, serveArgs: [] };
  const numeric = (flag: string, value: string | undefined, min: number): number => {
    const n = Number(value);
    if (value === undefined || !Number.isFinite(n) || n < min) usage(`${flag} needs a number of at least ${min}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      options.serveArgs = argv.slice(i + 1);
      break;
    }
    if (arg === '--baseline') options.baseline = argv[++i] ?? usage('--baseline needs a directory');
    else if (arg === '--modern') options.modern = true;
    else if (arg === '--rounds') options.rounds = Math.floor(numeric(arg, argv[++i], 1));
    else if (arg === '--seconds') options.seconds = numeric(arg, argv[++i], 0.1);
    else if (arg === '--connections') options.connections = Math.floor(numeric(arg, argv[++i], 1));
    else if (arg === '--repeat') options.repeat = Math.floor(numeric(arg, argv[++i], 1));
    else if (arg === '--warmup') options.warmup = numeric(arg, argv[++i], 0);
    else if (arg === '--no-pin') options.pin = false;
    else if (arg === '--json') options.json = true;
    else usage(`unknown option ${arg}`);
  }
  if (!options.baseline) usage('--baseline is required');
  return options;
}

function usage(reason: string): never {
  process.stderr.write(`bench:paired: ${reason}\n\n${USAGE}`);
  process.exit(2);
}

/** One side of a pair: a server, its pool, and what it answered in the current round. */
interface Side {
  label: 'this build' | 'baseline';
  server: ServerProcess;
  pool: Pool;
  headers: Record<string, string>;
  calls: number;
  bad: number;
  firstBad?: string;
}

let nextId = 1;

async function startSide(label: Side['label'], script: string, options: Options): Promise<Side> {
  const port = await freePort();
  const server = startProcess(script, options.serveArgs, { PORT: String(port) }, false, options.pin);
  await waitForPort(port, server);
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: options.connections });
  let headers = options.modern ? modernCallHeaders('echo') : postHeaders();
  if (!options.modern) {
    const init = await pool.request({ path: '/mcp', method: 'POST', headers, body: initializeBody(nextId++) });
    await init.body.text();
    const sessionId = headerOf(init.headers as Record<string, unknown>, 'mcp-session-id');
    if (init.statusCode !== 200 || !sessionId) throw new Error(`${label}: initialize answered ${init.statusCode}`);
    headers = sessionHeaders(sessionId);
    const initialized = await pool.request({ path: '/mcp', method: 'POST', headers, body: INITIALIZED_BODY });
    await initialized.body.text();
  }
  return { label, server, pool, headers, calls: 0, bad: 0 };
}

/** Calls echo on one connection until told to stop, checking every answer. */
async function drive(side: Side, modern: boolean, stopped: () => boolean): Promise<void> {
  while (!stopped()) {
    const id = nextId++;
    const response = await side.pool.request({ path: '/mcp', method: 'POST', headers: side.headers, body: callBody(id, 'echo', `hello ${id}`, modern) });
    const body = await response.body.text();
    const text = (findResponse(body, id)?.result?.content as { text?: string }[] | undefined)?.[0]?.text;
    if (response.statusCode !== 200 || text !== `hello ${id}`) {
      side.bad++;
      side.firstBad ??= `HTTP ${response.statusCode}: ${body.slice(0, 200)}`;
    }
    side.calls++;
  }
}

/** One order: both servers started, warmed up together, then `rounds` rounds read side by side. */
async function runOrder(first: [Side['label'], string], second: [Side['label'], string], options: Options): Promise<{ thisBuild: number[]; baseline: number[] }> {
  const sides = [await startSide(first[0], first[1], options), await startSide(second[0], second[1], options)];
  let stop = false;
  const drivers = sides.flatMap((side) => Array.from({ length: options.connections }, () => drive(side, options.modern, () => stop)));
  const perCall: Record<Side['label'], number[]> = { 'this build': [], baseline: [] };
  try {
    await new Promise((resolve) => setTimeout(resolve, options.warmup * 1000));
    for (let round = 0; round < options.rounds; round++) {
      const before = await Promise.all(sides.map((side) => side.server.cpu()));
      for (const side of sides) side.calls = 0;
      await new Promise((resolve) => setTimeout(resolve, options.seconds * 1000));
      const after = await Promise.all(sides.map((side) => side.server.cpu()));
      sides.forEach((side, i) => perCall[side.label].push(side.calls > 0 ? (after[i]! - before[i]!) / side.calls : NaN));
    }
  } finally {
    stop = true;
    await Promise.allSettled(drivers);
    for (const side of sides) {
      await side.pool.close();
      await side.server.stop();
    }
  }
  for (const side of sides) if (side.bad > 0) throw new Error(`${side.label}: ${side.bad} wrong answers, the first: ${side.firstBad}`);
  return { thisBuild: perCall['this build'], baseline: perCall.baseline };
}

async function main(): Promise<void> {
  const options = parse(process.argv.slice(2));
  const baselineServe = path.resolve(options.baseline, 'apps/bench/dist/serve.js');
  if (options.pin) {
    const why = pinRunner();
    if (why) {
      process.stderr.write(`bench:paired: not pinned: ${why}\n`);
      options.pin = false;
    }
  }
  const thisBuild: number[] = [];
  const baseline: number[] = [];
  const orders: { first: Side['label']; thisBuild: number[]; baseline: number[] }[] = [];
  for (let r = 0; r < options.repeat; r++) {
    for (const first of ['baseline', 'this build'] as const) {
      const pair: [Side['label'], string][] = [
        ['baseline', baselineServe],
        ['this build', THIS_SERVE],
      ];
      if (first === 'this build') pair.reverse();
      const result = await runOrder(pair[0]!, pair[1]!, options);
      orders.push({ first, ...result });
      thisBuild.push(...result.thisBuild);
      baseline.push(...result.baseline);
      if (!options.json) process.stderr.write(`${first} first: this build ${fmt(median(result.thisBuild))} µs, baseline ${fmt(median(result.baseline))} µs a call (medians)\n`);
    }
  }
  const differences = thisBuild.map((t, i) => t - baseline[i]!);
  const higher = differences.filter((d) => d > 0).length;
  const summary = {
    era: options.modern ? '2026-07-28' : '2025-11-25',
    rounds: differences.length,
    thisBuildMedianUs: median(thisBuild),
    baselineMedianUs: median(baseline),
    medianDifferenceUs: median(differences),
    minDifferenceUs: Math.min(...differences),
    maxDifferenceUs: Math.max(...differences),
    roundsThisBuildLower: differences.filter((d) => d < 0).length,
    // One-sided sign test: how likely this many rounds higher would be if neither build cost more.
    pThisBuildCostsMore: signTestP(higher, differences.length),
    orders,
  };
  if (options.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
  else
    process.stdout.write(
      `${summary.era}, ${summary.rounds} paired rounds: this build ${fmt(summary.thisBuildMedianUs)} µs a call, the baseline ${fmt(summary.baselineMedianUs)}; ` +
        `difference ${fmt(summary.medianDifferenceUs)} µs (median; ${fmt(summary.minDifferenceUs)} to ${fmt(summary.maxDifferenceUs)}), this build lower in ${summary.roundsThisBuildLower} of ${summary.rounds}\n`,
    );
}

function fmt(n: number): string {
  return (Math.round(n * 10) / 10).toFixed(1);
}

main().catch((err: Error) => {
  process.stderr.write(`bench:paired: ${err.message}\n`);
  process.exit(1);
});
