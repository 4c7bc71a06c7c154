import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { BIN, FIXTURES, ROOT, cleanEnv, requireBuild, runAsync } from './cli';

beforeAll(requireBuild);

// `mcpx serve` has no --strict flag: MCPX_STRICT_DEFINITIONS reaches createEngine through the environment.
describe('mcpx serve and definition warnings', () => {
  const loose = join(FIXTURES, 'loose-input.js');

  it('MCPX_STRICT_DEFINITIONS=1 makes a warning a definition error (exit 2)', async () => {
    const r = await runAsync(['serve', loose, '--stdio'], { MCPX_STRICT_DEFINITIONS: '1' });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^mcpx: invalid server definition: strictDefinitions makes this warning an error: LooseServer\.take: LooseInput\.payload: the schema accepts any JSON value here/,
    );
  });

  it('without it the server starts and logs the warning once', () => {
    // stdin at end of file: the stdio server starts, finds no client, and ends.
    const r = spawnSync(process.execPath, [BIN, 'serve', loose, '--stdio'], { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', timeout: 15_000 });
    expect(r.status).toBe(0);
    const warnings = r.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; definition?: string; msg: string })
      .filter((line) => line.level === 40);
    expect(warnings).toEqual([
      expect.objectContaining({ definition: 'LooseServer.take', msg: expect.stringMatching(/^LooseServer\.take: LooseInput\.payload: the schema accepts any JSON value here/) }),
    ]);
  });
});
