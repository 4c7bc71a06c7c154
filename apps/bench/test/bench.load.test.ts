/**
 * `npm run bench -- --quick` end to end: every server of the benchmark starts, is measured, answers
 * correctly and stops. About 40 s of load on the whole machine, so `npm run test:load` runs it
 * (CI does, after `npm test`), not `npm test`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exitOf } from './child-exit';
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
  // The figures of a 0.3 s run mean nothing, and no test asserts a speed.
  it('measures every server, checks every answer, and writes JSON and Markdown', async () => {
    const child = spawn(process.execPath, [RUN, '--quick', '--out', out], { stdio: ['ignore', 'pipe', 'pipe'] });
    const { code, stdout, stderr } = await exitOf(child);
    expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });

    const results = JSON.parse(readFileSync(path.join(out, 'latest.json'), 'utf8'));
    expect(results.rounds).toHaveLength(1);
    expect(Object.keys(results.medians).sort()).toEqual(TARGETS.map((t) => t.key).sort());
    for (const target of TARGETS) {
      const figures = results.medians[target.key] as Record<string, number>;
      const expected =
        target.transport === 'stdio'
          ? ['idleRssKB', 'stdioPipelinedRps', 'stdioSerialRps']
          : [
              'idleRssKB',
              ...[1, 16, 64].flatMap((c) => [`echo${c}Rps`, `echo${c}P50`, `echo${c}P99`, `echo${c}CpuUs`]),
              'bigMBps',
              ...(target.stateful ? ['kbPerSession', 'heapKbPerSession', 'sessionsRssKB', 'sessionsPerS'] : []),
            ];
      expect(Object.keys(figures).sort()).toEqual(expected.sort());
      for (const metric of ['idleRssKB', ...expected.filter((m) => /Rps$|MBps$|PerS$/.test(m))]) {
        expect([target.key, metric, figures[metric]! > 0]).toEqual([target.key, metric, true]);
      }
    }
    // Ratios of mcpx to each anchor, and the goals, computed from the same medians.
    const ratio = results.ratios.find((r: { mcpx: string; versus: string; metric: string }) => r.mcpx === 'mcpx-sse' && r.versus === 'sdk' && r.metric === 'echo64Rps');
    expect(ratio.value).toBeCloseTo(results.medians['mcpx-sse'].echo64Rps / results.medians.sdk.echo64Rps, 6);
    expect(results.targets.map((t: { goal: string }) => t.goal)).toHaveLength(7);

    const markdown = readFileSync(path.join(out, 'latest.md'), 'utf8');
    for (const heading of ['### Streamable HTTP', '### stdio', '### Ratios, Streamable HTTP', '### Ratios, stdio', '### Goals']) expect(markdown).toContain(heading);
    expect(stdout).toContain(markdown.trim());
  }, 240_000);
});
