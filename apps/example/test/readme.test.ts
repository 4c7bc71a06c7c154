import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const root = join(__dirname, '..', '..', '..');
const greeterSource = join(root, 'apps/example/src/greeter.ts');
const greeterBuilt = join(root, 'apps/example/dist/greeter.js');

describe('the README server', () => {
  it('is the code in apps/example/src/greeter.ts, word for word', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const block = /## A server in 15 lines\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const source = readFileSync(greeterSource, 'utf8').split('\n').slice(1).join('\n');
    expect(source).toBe(block);
    expect(block!.trim().split('\n').length).toBeLessThanOrEqual(21);
  });

  it('serves over stdio: lists the tool with its schema and turns a rule break into an isError result', async () => {
    if (!existsSync(greeterBuilt)) throw new Error(`${greeterBuilt} is missing: run "npm run build" first (npm test does)`);
    const child = spawn(process.execPath, [greeterBuilt], { stdio: ['pipe', 'pipe', 'ignore'] });
    const lines = createInterface({ input: child.stdout });
    const replies = new Map<number, any>();
    const waiting = new Map<number, (m: any) => void>();
    lines.on('line', (line) => {
      const msg = JSON.parse(line);
      const resolve = waiting.get(msg.id);
      if (resolve) resolve(msg);
      else replies.set(msg.id, msg);
    });
    const call = (id: number, method: string, params: object) =>
      new Promise<any>((resolve) => {
        if (replies.has(id)) return resolve(replies.get(id));
        waiting.set(id, resolve);
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      });
    try {
      const init = await call(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'readme', version: '1' } });
      expect(init.result.serverInfo).toEqual({ name: 'greeter', version: '1.0.0' });
      child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
      const list = await call(2, 'tools/list', {});
      expect(list.result.tools[0].inputSchema).toMatchObject({
        type: 'object',
        properties: { name: { type: 'string', description: 'Who to greet' }, times: { type: 'integer', minimum: 1, maximum: 5 } },
        required: ['name', 'times'],
      });
      const ok = await call(3, 'tools/call', { name: 'greet', arguments: { name: 'Ada', times: 2 } });
      expect(ok.result.content).toEqual([{ type: 'text', text: 'Hello, Ada!\nHello, Ada!' }]);
      const bad = await call(4, 'tools/call', { name: 'greet', arguments: { name: 'Ada', times: 9 } });
      expect(bad.result.isError).toBe(true);
      expect(bad.result.content[0].text).toMatch(/times/);
    } finally {
      child.stdin.end();
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });
});
