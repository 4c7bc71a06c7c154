import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ErrorCode } from '@mcpx/core/errors';
import { freePort, startProcess, type ServerProcess } from '../runner/processes';
import { INITIALIZED_BODY, findResponse, initializeBody, sessionHeaders } from '../runner/mcp';
import { median, percentile, sleep } from '../runner/stats';

const USAGE = `npm run bench:hostile [-- options]

Sends hostile tools/call bodies (every one under the 4 MiB body limit) to an mcpx server running
with its default limits, and measures
  - how long each shape takes to be answered, one at a time (the server's whole cost for it), and
  - how long /healthz takes to answer while hostile calls run back to back, one at a time.
Writes <out>/hostile.json and <out>/hostile.md.

  --runs <n>       answers timed per shape (default 20)
  --seconds <s>    how long hostile calls run beside the /healthz probe (default 5)
  --out <dir>      where to write the results (default apps/bench/results)
`;

/** What the figures must show: any shape answered well under this, and /healthz prompt meanwhile. */
const BOUNDS = { shapeMs: 100, healthzMs: 50 };

type Outcome = 'answered' | 'tool error' | 'refused -32602' | 'refused -32600';

interface Shape {
  name: string;
  body: string;
  /** What the server must answer: a shape that gets anything else is a failure of the run. */
  expect: Outcome;
  /** Part of the background load during the /healthz probe. */
  load?: boolean;
}

const rows = (n: number, row: (i: number) => unknown) => Array.from({ length: n }, (_, i) => row(i));
const keys = (n: number) => Object.fromEntries(rows(n, (i) => [`k${i}`, i]) as [string, number][]);
const call = (name: string, args: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
const rawCall = (name: string, argsJson: string) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${name}","arguments":${argsJson}}}`;

function shapes(): Shape[] {
  const tinyValues = Math.floor((4 * 1024 * 1024 - 200) / 2);
  return [
    { name: 'a normal call (baseline)', body: call('check', { sku: 'a-1', qty: 3 }), expect: 'answered' },
    { name: '200,000 extra keys in one object', body: call('check', { sku: 'a', qty: 1, extra: keys(200_000) }), expect: 'refused -32602', load: true },
    { name: '100,000 levels of nesting', body: rawCall('check', '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)), expect: 'refused -32602', load: true },
    {
      name: `${tinyValues.toLocaleString('en-US')} tiny values`,
      body: rawCall('check', `{"sku":"a","qty":1,"extra":[${'0,'.repeat(tinyValues - 1)}0]}`),
      expect: 'refused -32602',
      load: true,
    },
    { name: '10,000 keys in one object (the message budget’s most)', body: call('check', { sku: 'a', qty: 1, extra: keys(10_000) }), expect: 'tool error', load: true },
    { name: '4,990 undeclared keys (within the argument limits)', body: call('check', { sku: 'a', qty: 1, extra: keys(4_990) }), expect: 'tool error', load: true },
    { name: '1,666 nested rows, all valid (4,999 keys and items)', body: call('import', { rows: rows(1_666, (i) => ({ sku: `s-${i}`, qty: i })) }), expect: 'answered', load: true },
    { name: '1,666 nested rows, all invalid', body: call('import', { rows: rows(1_666, () => ({ sku: '', qty: -1.5 })) }), expect: 'tool error', load: true },
    { name: '900 nested rows with 2 undeclared keys each', body: call('import', { rows: rows(900, (i) => ({ sku: `s-${i}`, qty: i, x: 1, y: 2 })) }), expect: 'tool error', load: true },
    { name: 'a 1 MiB string (the longest allowed)', body: call('check', { sku: 'x'.repeat(1_048_576), qty: 1 }), expect: 'tool error', load: true },
    {
      name: '31 levels of nesting (within the argument limits)',
      body: rawCall('check', `{"sku":"a","qty":1,"extra":${'{"a":'.repeat(30)}1${'}'.repeat(30)}}`),
      expect: 'tool error',
      load: true,
    },
  ];
}

interface ShapeFigures {
  name: string;
  bytes: number;
  outcome: Outcome;
  medianMs: number;
  maxMs: number;
}

interface Results {
  date: string;
  machine: { node: string; cpus: number; cpuModel: string };
  shapes: ShapeFigures[];
  healthz: { probes: number; hostileCalls: number; p50Ms: number; p99Ms: number; maxMs: number };
  bounds: typeof BOUNDS;
  pass: boolean;
}

function parseArgs(argv: string[]): { runs: number; seconds: number; out: string } {
  const options = { runs: 20, seconds: 5, out: path.resolve(__dirname, '../../results') };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) fail(`${arg} needs a value`);
      return v!;
    };
    const positive = () => {
      const n = Number(value());
      if (!(n > 0)) fail(`${arg} must be a positive number`);
      return n;
    };
    if (arg === '--runs') options.runs = Math.round(positive());
    else if (arg === '--seconds') options.seconds = positive();
    else if (arg === '--out') options.out = path.resolve(value());
    else if (arg === '--help') {
      process.stdout.write(USAGE);
      process.exit(0);
    } else fail(`unknown option ${arg}`);
  }
  return options;
}

function fail(message: string): never {
  process.stderr.write(`bench:hostile: ${message}\n\n${USAGE}`);
  process.exit(2);
}

class Target {
  private session?: string;
  constructor(
    readonly base: string,
    readonly process: ServerProcess,
  ) {}

  async open(): Promise<void> {
    const init = await fetch(`${this.base}/mcp`, { method: 'POST', headers: sessionHeaders(undefined), body: initializeBody(0) });
    this.session = init.headers.get('mcp-session-id') ?? undefined;
    await init.text();
    if (!init.ok || !this.session) throw new Error(`initialize answered ${init.status}`);
    const initialized = await fetch(`${this.base}/mcp`, { method: 'POST', headers: sessionHeaders(this.session), body: INITIALIZED_BODY });
    await initialized.text();
  }

  /** Sends one body and returns how the server answered it. */
  async send(body: string): Promise<Outcome> {
    const res = await fetch(`${this.base}/mcp`, { method: 'POST', headers: sessionHeaders(this.session), body });
    const text = await res.text();
    const response = findResponse(text, 1) ?? (JSON.parse(text) as { error?: { code: number; message: string } });
    if (response.error) return response.error.code === ErrorCode.InvalidParams ? 'refused -32602' : 'refused -32600';
    return (response as { result?: { isError?: boolean } }).result?.isError ? 'tool error' : 'answered';
  }

  async healthz(): Promise<void> {
    const res = await fetch(`${this.base}/healthz`);
    await res.text();
    if (!res.ok) throw new Error(`/healthz answered ${res.status}`);
  }
}

async function start(): Promise<Target> {
  const port = await freePort();
  const server = startProcess('dist/hostile/serve-hostile.js', [], { PORT: String(port), MCPX_LOG_LEVEL: 'warn' }, false);
  const base = `http://127.0.0.1:${port}`;
  const target = new Target(base, server);
  for (let attempt = 0; ; attempt++) {
    try {
      await target.healthz();
      break;
    } catch (err) {
      if (attempt > 200 || server.child.exitCode !== null) throw new Error(`the server did not start: ${(err as Error).message}\n${server.stderrTail()}`, { cause: err });
      await sleep(50);
    }
  }
  await target.open();
  return target;
}

async function timeShape(target: Target, shape: Shape, runs: number): Promise<ShapeFigures> {
  const times: number[] = [];
  for (let i = 0; i < runs + 2; i++) {
    const started = performance.now();
    const outcome = await target.send(shape.body);
    const ms = performance.now() - started;
    if (outcome !== shape.expect) throw new Error(`${shape.name}: expected ${shape.expect}, got ${outcome}`);
    if (i >= 2) times.push(ms); // the first two warm up the server's code paths
  }
  return { name: shape.name, bytes: Buffer.byteLength(shape.body), outcome: shape.expect, medianMs: median(times), maxMs: Math.max(...times) };
}

/** Hostile calls back to back (one at a time) while /healthz is asked every 10 ms. */
async function probeHealthz(target: Target, load: Shape[], seconds: number): Promise<Results['healthz']> {
  const until = performance.now() + seconds * 1000;
  let hostileCalls = 0;
  const attacker = async (offset: number) => {
    for (let i = offset; performance.now() < until; i++) {
      await target.send(load[i % load.length]!.body);
      hostileCalls++;
    }
  };
  const latencies: number[] = [];
  const prober = async () => {
    while (performance.now() < until) {
      const started = performance.now();
      await target.healthz();
      latencies.push(performance.now() - started);
      await sleep(10);
    }
  };
  await Promise.all([attacker(0), prober()]);
  return { probes: latencies.length, hostileCalls, p50Ms: median(latencies), p99Ms: percentile(latencies, 0.99), maxMs: Math.max(...latencies) };
}

function markdown(results: Results): string {
  const ms = (n: number) => n.toFixed(1);
  const lines = [
    `# Hostile input: cost of each shape and /healthz beside it`,
    '',
    `${results.date}, Node ${results.machine.node}, ${results.machine.cpus} × ${results.machine.cpuModel}. Default limits; every body under the 4 MiB body limit.`,
    '',
    '| shape | body | answered as | median ms | max ms |',
    '|---|---:|---|---:|---:|',
    ...results.shapes.map((s) => `| ${s.name} | ${(s.bytes / 1024).toFixed(0)} KB | ${s.outcome} | ${ms(s.medianMs)} | ${ms(s.maxMs)} |`),
    '',
    `/healthz while hostile calls ran back to back (${results.healthz.hostileCalls} calls): ${results.healthz.probes} probes, ` +
      `p50 ${ms(results.healthz.p50Ms)} ms, p99 ${ms(results.healthz.p99Ms)} ms, max ${ms(results.healthz.maxMs)} ms.`,
    '',
    `Bounds: every shape's median under ${results.bounds.shapeMs} ms, every /healthz answer under ${results.bounds.healthzMs} ms: ${results.pass ? 'met' : 'NOT met'}.`,
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { runs, seconds, out } = parseArgs(process.argv.slice(2));
  const all = shapes();
  const target = await start();
  try {
    const figures: ShapeFigures[] = [];
    for (const shape of all) {
      process.stderr.write(`timing: ${shape.name}\n`);
      figures.push(await timeShape(target, shape, runs));
    }
    process.stderr.write(`probing /healthz for ${seconds} s under hostile load\n`);
    const healthz = await probeHealthz(
      target,
      all.filter((s) => s.load),
      seconds,
    );
    const cpus = os.cpus();
    const results: Results = {
      date: new Date().toISOString(),
      machine: { node: process.version, cpus: cpus.length, cpuModel: cpus[0]?.model.trim() ?? 'unknown' },
      shapes: figures,
      healthz,
      bounds: BOUNDS,
      pass: figures.every((f) => f.medianMs < BOUNDS.shapeMs) && healthz.maxMs < BOUNDS.healthzMs,
    };
    const md = markdown(results);
    mkdirSync(out, { recursive: true });
    writeFileSync(path.join(out, 'hostile.json'), JSON.stringify(results, null, 2) + '\n');
    writeFileSync(path.join(out, 'hostile.md'), md + '\n');
    process.stdout.write(`${md}\n\nwritten: ${path.join(out, 'hostile.json')}, ${path.join(out, 'hostile.md')}\n`);
  } finally {
    await target.process.stop();
  }
}

main().catch((err: Error) => {
  process.stderr.write(`bench:hostile: ${err.message}\n`);
  process.exit(1);
});
