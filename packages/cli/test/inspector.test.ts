import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/**
 * A third-party client against `mcpx serve`: the MCP Inspector CLI lists and calls tools over
 * HTTP and stdio.
 */
const root = join(__dirname, '..', '..', '..');
const mcpx = join(root, 'packages/cli/dist/bin.js');
const entry = join(root, 'apps/example/dist/notes-server.js');
// The Inspector CLI finds its own package.json relative to the working directory: run it from its build folder.
const inspectorDir = join(root, 'node_modules/@modelcontextprotocol/inspector-cli/build');

function inspector(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['cli.js', '--cli', ...args], { cwd: inspectorDir, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

describe('the MCP Inspector CLI against mcpx serve', () => {
  beforeAll(() => {
    for (const file of [mcpx, entry, join(inspectorDir, 'cli.js')]) {
      if (!existsSync(file)) throw new Error(`${file} is missing: run "npm run build" first (npm test does)`);
    }
  });

  describe('over stdio', () => {
    const dataDir = join(root, '.data', `inspector-${process.pid}`);
    const serve = [process.execPath, mcpx, 'serve', entry, '--stdio'];

    it('lists the tools', async () => {
      const { code, stdout, stderr } = await inspector([...serve, '--method', 'tools/list'], { MCPX_DATA_DIR: dataDir });
      expect({ code, stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, stderr: '' });
      const names = (JSON.parse(stdout).tools as { name: string }[]).map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['create', 'search', 'delete', 'export']));
    });

    it('calls a tool and gets its structured result', async () => {
      const { code, stdout } = await inspector([...serve, '--method', 'tools/call', '--tool-name', 'search', '--tool-arg', 'query=e'], {
        MCPX_DATA_DIR: dataDir,
      });
      expect(code).toBe(0);
      const result = JSON.parse(stdout);
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent.total).toEqual(expect.any(Number));
    });
  });

  describe('over HTTP', () => {
    let server: ChildProcess;
    let url: string;

    beforeAll(async () => {
      const port = await freePort();
      url = `http://127.0.0.1:${port}/mcp`;
      server = spawn(process.execPath, [mcpx, 'serve', entry, '--port', String(port)], {
        env: { ...process.env, MCPX_DATA_DIR: join(root, '.data', `inspector-http-${process.pid}`), MCPX_LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      // A bound on waiting for the server to start, not a speed.
      for (const until = Date.now() + 30_000; Date.now() < until;) {
        try {
          if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return;
        } catch {
          // not listening yet
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('mcpx serve did not become healthy in 30 s');
    }, 40_000);

    afterAll(async () => {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    });

    it('lists and calls tools', async () => {
      const list = await inspector([url, '--transport', 'http', '--method', 'tools/list']);
      expect(list.code).toBe(0);
      expect((JSON.parse(list.stdout).tools as { name: string }[]).map((t) => t.name)).toContain('search');
      const call = await inspector([url, '--transport', 'http', '--method', 'tools/call', '--tool-name', 'search', '--tool-arg', 'query=e']);
      expect(call.code).toBe(0);
      expect(JSON.parse(call.stdout).structuredContent.total).toEqual(expect.any(Number));
    });
  });
});
