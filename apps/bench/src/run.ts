import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { measure, removeCompileCaches, type Figures, type Settings } from './runner/measure';
import { checkTargets } from './runner/goals';
import { pinRunner, RUNNER_CPU, SERVER_CPU } from './runner/pinning';
import { floorRatiosOf, markdown, ratiosOf, type Results } from './runner/report';
import { redactUrl } from '@mcpx/redis';
import { BENCH_REDIS_URL, BenchRedis } from './runner/redis';
import { median } from './runner/stats';
import { BASELINED, TARGETS, baselineTargets } from './runner/targets';

const USAGE = `npm run bench [-- options]

Measures mcpx, the official SDK, FastMCP, a raw Fastify route and a bare node:http SSE server
side by side on 127.0.0.1, interleaved round by round, and reports medians. Writes
<out>/latest.json and <out>/latest.md.
mcpx-redis shares its state through Redis at $MCPX_BENCH_REDIS_URL (default
redis://127.0.0.1:6379) under a key prefix of its own, removed after each measurement; it is
skipped, with a line saying so, when Redis does not answer.

Over HTTP, besides req/s, latency and server CPU per echo call: MB/s of 1 MB results on 4
connections, then on 16 with the server's RSS sampled every 10 ms (its peak); RSS per open idle
session and sessions/s for stateful servers; and the time to listen, from the spawn to the first
accepted TCP connection (tried every 5 ms): it includes Node's start and the preload of the probe
that reads memory and CPU, the same for every server. The bare node:http SSE server (node-sse) is
the floor every HTTP server is also divided by.

  --quick            one short round (a smoke run, not a measurement)
  --rounds <n>       rounds (default 3)
  --seconds <s>      seconds per load run (default 3)
  --targets <keys>   comma-separated subset of: ${TARGETS.map((t) => t.key).join(', ')}
  --out <dir>        where to write the results (default apps/bench/results)
  --baseline <dir>   also measure ${BASELINED.join(' and ')} as served by another checkout of mcpx
                     (built: <dir>/apps/bench/dist/serve.js), each right before this build's: the
                     goal that no middleware costs nothing measurable is checked against it
  --pin              every server (and the bare \`node -e\` start) on CPU ${SERVER_CPU}, started as
                     \`taskset -c ${SERVER_CPU} node …\`; the runner pins itself, all its threads, to CPU ${RUNNER_CPU}
                     (\`taskset -a -p -c ${RUNNER_CPU} <pid>\`), so there is no need to start it under taskset.
                     Needs taskset (util-linux) and 2 CPUs; otherwise the run goes on unpinned and
                     the report says why. Redis (mcpx-redis) is not pinned.
`;

function parseArgs(argv: string[]): { settings: Settings; keys: string[]; out: string; baseline?: string } {
  const settings: Settings = {
    rounds: 3,
    callS: 3,
    warmS: 1,
    concurrencies: [1, 16, 64],
    bigConnections: 4,
    peakConnections: 16,
    sessionConnections: 16,
    memorySessions: 1000,
    stdioInFlight: 64,
    pin: false,
  };
  let keys = TARGETS.map((t) => t.key);
  let out = path.resolve(__dirname, '../results');
  let baseline: string | undefined;
  const value = (i: number, flag: string) => {
    const v = argv[i + 1];
    if (v === undefined || v.startsWith('--')) fail(`${flag} needs a value`);
    return v!;
  };
  const positive = (v: string, flag: string) => {
    const n = Number(v);
    if (!(n > 0)) fail(`${flag} must be a positive number, got ${v}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    switch (arg) {
      case '--quick':
        Object.assign(settings, { rounds: 1, callS: 0.3, warmS: 0.2, memorySessions: 100 });
        break;
      case '--rounds':
        settings.rounds = Math.round(positive(value(i++, arg), arg));
        break;
      case '--seconds':
        settings.callS = positive(value(i++, arg), arg);
        break;
      case '--targets':
        keys = value(i++, arg).split(',');
        for (const k of keys) if (!TARGETS.some((t) => t.key === k)) fail(`unknown target ${k}`);
        break;
      case '--out':
        out = path.resolve(value(i++, arg));
        break;
      case '--baseline':
        baseline = path.resolve(value(i++, arg));
        if (!existsSync(path.join(baseline, 'apps/bench/dist/serve.js'))) fail(`--baseline: no built benchmark at ${baseline}/apps/bench/dist/serve.js`);
        break;
      case '--pin':
        settings.pin = true;
        break;
      case '--help':
        process.stdout.write(USAGE);
        process.exit(0);
      // falls through (exit does not return)
      default:
        fail(`unknown option ${arg}`);
    }
  }
  return { settings, keys, out, baseline };
}

function fail(message: string): never {
  process.stderr.write(`bench: ${message}\n\n${USAGE}`);
  process.exit(2);
}

async function main(): Promise<void> {
  const { settings, keys, out, baseline } = parseArgs(process.argv.slice(2));
  let measured = TARGETS.filter((t) => keys.includes(t.key));
  if (baseline) {
    // Each right before the same server of this build: paired in every round, as the middleware targets are.
    const base = baselineTargets(baseline);
    measured = measured.flatMap((t) => [...base.filter((b) => b.baselineOf === t.key), t]);
  }
  const log = (line: string) => process.stderr.write(`${line}\n`);
  let pinning: string | undefined;
  if (settings.pin) {
    const why = pinRunner();
    settings.pin = why === undefined;
    pinning = why ? `Not pinned (--pin asked): ${why}.` : `Pinned: servers on CPU ${SERVER_CPU} (taskset -c ${SERVER_CPU}), the runner on CPU ${RUNNER_CPU}.`;
    log(pinning);
  }
  const skipped: { target: string; reason: string }[] = [];
  let redis: BenchRedis | undefined;
  if (measured.some((t) => t.redis)) {
    try {
      redis = await BenchRedis.connect(BENCH_REDIS_URL);
    } catch (err) {
      // Without Redis the rest of the benchmark still runs: the Redis-backed targets are left out, and the report says so.
      const reason = `Redis does not answer at ${redactUrl(BENCH_REDIS_URL)} (${(err as Error).message || String(err)}); start one or set MCPX_BENCH_REDIS_URL`;
      for (const target of measured.filter((t) => t.redis)) {
        log(`skipping ${target.label} (${target.key}): ${reason}`);
        skipped.push({ target: target.key, reason });
      }
      measured = measured.filter((t) => !t.redis);
    }
  }
  const rounds: Record<string, Figures>[] = [];
  try {
    for (let round = 1; round <= settings.rounds; round++) {
      log(`round ${round} of ${settings.rounds}`);
      const figures: Record<string, Figures> = {};
      // One server at a time, the order reversed every other round (A B C, C B A, …): drift hits all
      // alike, and the two servers of a pair (a build and its baseline, a server and its middleware
      // variant, side by side) are measured first and second alike. Measured always in one order, an
      // A/A run (this build against a copy of itself) read the second 6.9 µs per call dearer, in 7 of 10 pairs.
      for (const target of round % 2 === 1 ? measured : [...measured].reverse()) figures[target.key] = await measure(target, settings, log, redis);
      rounds.push(figures);
    }
  } finally {
    await redis?.close();
    removeCompileCaches();
  }

  const medians: Record<string, Figures> = {};
  for (const target of measured) {
    const metrics = Object.keys(rounds[0]![target.key]!);
    medians[target.key] = Object.fromEntries(metrics.map((m) => [m, median(rounds.map((r) => r[target.key]![m]!))]));
  }
  const cpus = os.cpus();
  const results: Results = {
    date: new Date().toISOString(),
    machine: { node: process.version, platform: `${os.platform()} ${os.arch()}`, cpus: cpus.length, cpuModel: cpus[0]?.model.trim() ?? 'unknown' },
    settings,
    rounds,
    medians,
    ratios: ratiosOf(medians, measured),
    floorRatios: floorRatiosOf(medians, measured),
    targets: checkTargets(medians, rounds),
    pinning,
    redis: redis && { url: redactUrl(redis.url), version: redis.version },
    baseline,
    skipped,
  };
  const md = markdown(results, measured);
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'latest.json'), JSON.stringify(results, null, 2) + '\n');
  writeFileSync(path.join(out, 'latest.md'), md + '\n');
  process.stdout.write(`${md}\nwritten: ${path.join(out, 'latest.json')}, ${path.join(out, 'latest.md')}\n`);
}

main().catch((err: Error) => {
  process.stderr.write(`bench: ${err.message}\n`);
  process.exit(1);
});
