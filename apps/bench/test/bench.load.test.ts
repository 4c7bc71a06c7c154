/**
 * `npm run bench -- --quick` end to end: every server of the benchmark starts, is measured, answers
 * correctly and stops. About 45 s of load on the whole machine, so `npm run test:load` runs it
 * (CI does, after `npm test`), not `npm test`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exitOf } from './child-exit';
import { BenchRedis } from '../src/runner/redis';
import { TARGETS } from '../src/runner/targets';

// The compiled benchmark (npm run test:load builds first), as `npm run bench` runs it.
const RUN = path.resolve(__dirname, '../dist/run.js');

beforeAll(() => {
  if (!existsSync(RUN)) throw new Error('apps/bench is not built: run `npm run build` first');
});

describe('npm run bench -- --quick', () => {
  let out: string;
  beforeAll(() => {
    out = mkdtempSync(path.join(os.tmpdir(), 'mcpx-bench-'));
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  // A smoke run that keeps the benchmark working: every server starts, answers correctly and stops.
  // The figures of a 0.3 s run mean nothing, and no test asserts a speed. The Redis-backed target
  // runs when the Redis the benchmark uses answers (CI starts one), and is skipped, saying so, when not.
  it('measures every server, checks every answer, and writes JSON and Markdown', async () => {
    const redisAnswers = await BenchRedis.connect().then(
      (redis) => redis.close().then(() => true),
      () => false,
    );
    const child = spawn(process.execPath, [RUN, '--quick', '--out', out], { stdio: ['ignore', 'pipe', 'pipe'] });
    const { code, stdout, stderr } = await exitOf(child);
    expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });

    const results = JSON.parse(readFileSync(path.join(out, 'latest.json'), 'utf8'));
    const measured = TARGETS.filter((t) => redisAnswers || !t.redis);
    expect(results.rounds).toHaveLength(1);
    expect(Object.keys(results.medians).sort()).toEqual(measured.map((t) => t.key).sort());
    expect(results.skipped.map((s: { target: string }) => s.target)).toEqual(redisAnswers ? [] : ['mcpx-redis']);
    for (const target of measured) {
      const figures = results.medians[target.key] as Record<string, number>;
      const expected =
        target.transport === 'stdio'
          ? ['idleRssKB', 'stdioPipelinedRps', 'stdioSerialRps', 'stdioFirstAnswerMs', 'nodeStartMs']
          : [
              'idleRssKB',
              ...[1, 16, 64].flatMap((c) => [`echo${c}Rps`, `echo${c}P50`, `echo${c}P99`, `echo${c}CpuUs`]),
              ...(target.redis ? [1, 16, 64].flatMap((c) => [`echo${c}RedisCpuUs`, `echo${c}RedisCommands`, `echo${c}RedisKbPerCall`]) : []),
              'bigMBps',
              ...(target.stateful ? ['kbPerSession', 'heapKbPerSession', 'sessionsRssKB', 'sessionsPerS'] : []),
              ...(target.redis ? ['redisKbPerSession', 'redisKeysKbPerSession'] : []),
            ];
      expect(Object.keys(figures).sort()).toEqual(expected.sort());
      for (const metric of ['idleRssKB', ...expected.filter((m) => /Rps$|MBps$|PerS$|RedisCommands$|StartMs$|FirstAnswerMs$/.test(m))]) {
        expect([target.key, metric, figures[metric]! > 0]).toEqual([target.key, metric, true]);
      }
    }
    // Ratios of mcpx to each anchor, and the goals, computed from the same medians.
    const ratio = results.ratios.find((r: { mcpx: string; versus: string; metric: string }) => r.mcpx === 'mcpx-sse' && r.versus === 'sdk' && r.metric === 'echo64Rps');
    expect(ratio.value).toBeCloseTo(results.medians['mcpx-sse'].echo64Rps / results.medians.sdk.echo64Rps, 6);
    // Each era is compared with the same era of the others.
    const pairs = results.ratios.map((r: { mcpx: string; versus: string }) => `${r.mcpx}/${r.versus}`);
    expect(pairs).toEqual(expect.arrayContaining(['mcpx-2026/raw-2026', 'mcpx-2026/sdk2-2026', 'mcpx-sse/raw', 'mcpx-sse/sdk2', 'mcpx-stdio/sdk2-stdio']));
    expect(pairs).not.toContain('mcpx-sse/raw-2026');
    expect(pairs).not.toContain('mcpx-2026/raw');
    const goals = results.targets.map((t: { goal: string }) => t.goal);
    expect(goals).toHaveLength(redisAnswers ? 16 : 15);
    expect(goals).toEqual(
      expect.arrayContaining([
        '2025 SSE: echo c=64 ≥ 75% of the raw Fastify route',
        '2025 SSE: echo c=64 ≥ 6× the SDK v2',
        '2025 stateless: echo c=64 no slower than stateful',
        '2026-07-28: echo c=64 ≥ 80% of the raw route (2026 answers)',
        '2026-07-28: echo c=64 ≥ 5× the SDK v2 (2026-07-28)',
        '2026-07-28: p99 at c=64 ≤ 2× the raw route’s',
        'sessions/s ≥ 8× the SDK',
        '≤ 8 KB of RSS per open idle session',
        'stdio, 64 in flight ≥ 2.5× the SDK v2',
        'stdio: first answer no later than the SDK v2’s',
        'stdio: first answer < 2× a bare `node -e` start',
      ]),
    );

    const markdown = readFileSync(path.join(out, 'latest.md'), 'utf8');
    for (const heading of ['### Streamable HTTP', '### stdio', '### Ratios, Streamable HTTP', '### Ratios, stdio', '### Goals']) expect(markdown).toContain(heading);
    if (redisAnswers) {
      // Redis mode beside the in-memory server, and its goal checked against the same run.
      const cpu = results.ratios.find((r: { mcpx: string; versus: string; metric: string }) => r.mcpx === 'mcpx-redis' && r.versus === 'mcpx-sse' && r.metric === 'echo64CpuUs');
      expect(cpu.value).toBeCloseTo(results.medians['mcpx-redis'].echo64CpuUs / results.medians['mcpx-sse'].echo64CpuUs, 6);
      expect(goals).toContain('on Redis: server CPU per echo call (c=64) ≤ 2× in memory');
      expect(markdown).toContain('### Variants ÷ the plain server');
      // Every key the Redis-backed server wrote is gone.
      const prefixes = [...stderr.matchAll(/removed its \d+ keys under (mcpx-bench:[0-9a-f]+:)/g)].map((m) => m[1]!);
      expect(prefixes).toHaveLength(1);
      const redis = await BenchRedis.connect();
      try {
        expect(await redis.keys(prefixes[0]!)).toEqual([]);
      } finally {
        await redis.close();
      }
    } else {
      expect(markdown).toContain('Not measured: mcpx SSE on Redis: Redis does not answer');
    }
    expect(stdout).toContain(markdown.trim());
  }, 240_000);
});
