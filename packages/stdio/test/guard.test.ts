/**
 * `import '@mcpx/stdio/guard'` first in a stdio entry: what modules print while they load (before
 * serveStdio() runs) goes to stderr, and the protocol stream stays clean. Without it, the same
 * line reaches the client as a line that is not JSON-RPC.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';

const ROOT = resolve(__dirname, '../../..');
const ENTRY = resolve(__dirname, 'fixtures/guarded-entry.js');
jest.setTimeout(60_000);

async function run(env: Record<string, string>) {
  if (!existsSync(resolve(ROOT, 'packages/stdio/dist/guard.js'))) throw new Error('packages/stdio/dist is missing: run `npm run build` first (npm test does)');
  const transport = new StdioClientTransport({ command: process.execPath, args: [ENTRY], cwd: ROOT, env: { ...getDefaultEnvironment(), ...env }, stderr: 'pipe' });
  let stderr = '';
  transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const errors: Error[] = [];
  const client = new Client({ name: 'guard-test', version: '1.0.0' });
  client.onerror = (err) => errors.push(err);
  await client.connect(transport);
  const result = await client.callTool({ name: 'ping', arguments: {} });
  await client.close();
  return { result, errors, stderr };
}

it('sends what the entry prints while loading to stderr, and serves a clean stream', async () => {
  const { result, errors, stderr } = await run({});
  expect(result).toEqual({ content: [{ type: 'text', text: 'pong' }] });
  expect(errors).toEqual([]);
  expect(stderr).toContain('guarded-entry: printed while loading');
});

it('without it, the line printed while loading reaches the client as garbage', async () => {
  const { result, errors, stderr } = await run({ NO_GUARD: '1' });
  expect(result).toEqual({ content: [{ type: 'text', text: 'pong' }] });
  expect(errors.map((e) => e.message).join('\n')).toMatch(/JSON|Unexpected token/);
  expect(stderr).not.toContain('guarded-entry: printed while loading');
});
