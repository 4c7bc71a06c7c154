import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { join } from 'node:path';
import { BIN, FIXTURES, ROOT, cleanEnv, requireBuild, run, serveHttp } from './cli';

beforeAll(requireBuild);
jest.setTimeout(40_000);

const FAILING = join(FIXTURES, 'failing-tool.js');
const SECRET = 'password authentication failed for user "ops" at db-3.internal';
const MASKED = `Tool "connect" failed with an unexpected error; the server's log has the details`;
const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

describe('mcpx serve --mask-errors', () => {
  it('over HTTP: the client reads a generic message, the log the whole error; a ToolError is told as it is', async () => {
    const server = await serveHttp([FAILING, '--port', '0', '--mask-errors']);
    try {
      const client = new Client({ name: 'cli-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      const masked = await client.callTool({ name: 'connect', arguments: {} });
      expect(masked.isError).toBe(true);
      expect(textOf(masked)).toBe(MASKED);
      expect(textOf(await client.callTool({ name: 'quota', arguments: {} }))).toBe('The quota is spent; try again tomorrow');
      await client.close();
      const failed = server
        .logs()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { msg: string; tool?: string; err?: { message: string } })
        .filter((l) => l.msg === 'tool failed');
      expect(failed.map((l) => [l.tool, l.err?.message])).toEqual([
        ['connect', SECRET],
        ['quota', 'The quota is spent; try again tomorrow'],
      ]);
    } finally {
      await server.stop();
    }
  });

  it('over stdio from MCPX_MASK_ERRORS; without it the message goes through', async () => {
    for (const [env, expected] of [
      [{ MCPX_MASK_ERRORS: 'yes' }, MASKED],
      [{}, SECRET],
    ] as const) {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'serve', FAILING, '--stdio'],
        cwd: ROOT,
        env: cleanEnv(env) as Record<string, string>,
        stderr: 'pipe',
      });
      const client = new Client({ name: 'cli-test', version: '1.0.0' });
      await client.connect(transport);
      expect(textOf(await client.callTool({ name: 'connect', arguments: {} }))).toBe(expected);
      await client.close();
    }
  });

  it('refuses a value that is not a boolean', () => {
    const r = run(['serve', FAILING, '--stdio'], { MCPX_MASK_ERRORS: 'sometimes' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/MCPX_MASK_ERRORS/);
  });
});
