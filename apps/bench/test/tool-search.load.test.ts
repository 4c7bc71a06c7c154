/**
 * `npm run bench:search` on the generated 1,000-tool catalog (apps/bench/src/tool-search-cost.ts), run short on the
 * built code: the answers it measures are right and its report holds together. Its figures are docs/performance.md's;
 * no test asserts a speed.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { exitOf } from './child-exit';

it('npm run bench:search measures a search that finds the obvious tool, over a tools/list hundreds of times smaller', async () => {
  const child = spawn(process.execPath, [path.resolve(__dirname, '../dist/tool-search-cost.js'), '--calls', '200'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const { code, stdout, stderr } = await exitOf(child);
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  const result = JSON.parse(stdout) as {
    tools: number;
    calls: number;
    call: { p50: number; p99: number };
    ranking: { p50: number; p99: number };
    firstMatch: string;
    listed: string[];
    pinned: string[];
    listBytes: { full: number; searched: number; factor: number };
  };
  expect(result.tools).toBe(1000);
  expect(result.calls).toBe(200);
  expect(result.firstMatch).toBe('billing_create_invoice');
  // tools/list shows the pinned tools and search_tools, nothing else.
  expect(result.listed).toEqual([...result.pinned, 'search_tools']);
  // Twenty pages of 50 full definitions against one short page.
  expect(result.listBytes.full).toBeGreaterThan(300_000);
  expect(result.listBytes.searched).toBeLessThan(2_000);
  expect(result.listBytes.factor).toBeCloseTo(result.listBytes.full / result.listBytes.searched, 6);
  for (const figures of [result.call, result.ranking]) {
    expect(figures.p50).toBeGreaterThan(0);
    expect(figures.p99).toBeGreaterThanOrEqual(figures.p50);
  }
}, 60_000);
