import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, ROOT, cleanEnv, requireBuild, runAsync } from './cli';

beforeAll(requireBuild);
// Several processes start per test, and the machine may be busy with other suites: generous bounds.
jest.setTimeout(120_000);
const WAIT_MS = 60_000;

/** The server of the temp project: one tool whose description (or whole body) a test rewrites. */
const serverSource = (description: string, body = 'return `echo: ${input.text}`;') => `import { Field, Server, Tool } from '@mcpx/core';

class EchoInput {
  @Field({ description: 'What to echo' })
  text!: string;
}

@Server({ name: 'dev-project', version: '1.0.0' })
export class DevProject {
  @Tool({ description: '${description}' })
  echo(input: EchoInput) {
    ${body}
  }

  @Tool({ description: 'Never answers' })
  hang() {
    process.stderr.write('hanging\\n');
    return new Promise(() => {});
  }
}
`;
// Not TypeScript: the load must fail, and the supervisor live on.
const BROKEN_BODY = 'return return;';

/** A project folder outside the repository, with the repository's node_modules linked in. */
function makeProject(): { dir: string; write(source: string): void } {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-dev-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'dev-project', private: true }));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  mkdirSync(join(dir, 'src'));
  const write = (source: string) => writeFileSync(join(dir, 'src', 'server.ts'), source);
  write(serverSource('Echoes v1'));
  return { dir, write };
}

/** `mcpx dev` as a child process, with waits on what it prints (never on time). */
class Dev {
  readonly child: ChildProcessWithoutNullStreams;
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;
  private readonly listeners = new Set<() => void>();

  constructor(args: string[], cwd: string) {
    this.child = spawn(process.execPath, [BIN, 'dev', ...args], { cwd, env: cleanEnv() });
    this.child.stdout.on('data', (d: Buffer) => this.heard((this.stdout += d.toString())));
    this.child.stderr.on('data', (d: Buffer) => this.heard((this.stderr += d.toString())));
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
    void this.exited.then(() => this.heard());
  }

  private heard(_text?: string) {
    for (const listener of [...this.listeners]) listener();
  }

  /** Resolves with `find`'s answer once it has one; fails if mcpx dev exits first or nothing comes in WAIT_MS. */
  until<T>(what: string, find: () => T | undefined): Promise<T> {
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(check);
      };
      const check = () => {
        const found = find();
        if (found !== undefined) {
          done();
          resolve(found);
        } else if (this.child.exitCode !== null) {
          done();
          reject(new Error(`mcpx dev exited (${this.child.exitCode}) while waiting for ${what}; stderr:\n${this.stderr}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no ${what} within ${WAIT_MS} ms; stderr:\n${this.stderr}`));
      }, WAIT_MS);
      this.listeners.add(check);
      check();
    });
  }

  /** Waits for the n-th stderr line matching `pattern` and returns it. */
  line(pattern: RegExp, n = 1): Promise<string> {
    return this.until(`${n}× ${pattern}`, () => this.stderr.split('\n').filter((l) => pattern.test(l))[n - 1]);
  }

  /** The endpoint URL from the "started" status line. */
  async started(): Promise<string> {
    const line = await this.line(/^mcpx dev: started in/);
    const match = /^mcpx dev: started in \d+ ms at (http:\/\/127\.0\.0\.1:\d+\/mcp); watching \. for changes \(Ctrl-C to stop\)$/.exec(line);
    if (!match) throw new Error(`unexpected status line: ${line}`);
    return match[1]!;
  }

  /** The endpoint URL from the first "serving MCP over Streamable HTTP" log line. */
  url(): Promise<string> {
    return this.until('the serving log line', () => {
      const line = this.stdout.split('\n').find((l) => l.includes('serving MCP over Streamable HTTP'));
      return line ? (JSON.parse(line) as { url: string }).url : undefined;
    });
  }
}

/** The processes whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Resolves once none of `pids` is alive (checked as they exit, bounded by WAIT_MS). */
async function gone(pids: number[]): Promise<void> {
  for (const until = Date.now() + WAIT_MS; Date.now() < until;) {
    if (!pids.some(alive)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`still running: ${pids.filter(alive).join(', ')}`);
}

async function httpClient(url: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'dev-test', version: '1.0.0' });
  client.onerror = () => {}; // the old session's GET stream fails once its process is gone
  await client.connect(transport);
  return { client, transport };
}

const descriptionOf = async (client: Client) => (await client.listTools()).tools.find((t) => t.name === 'echo')?.description;

describe('mcpx dev over HTTP', () => {
  let project: ReturnType<typeof makeProject>;
  beforeAll(() => {
    project = makeProject();
  });
  afterAll(() => rmSync(project.dir, { recursive: true, force: true }));

  it('reloads a .ts source on save: the old session gets 404, a new one sees the change; a broken save keeps it watching', async () => {
    const dev = new Dev(['src/server.ts', '--port', '0'], project.dir);
    try {
      const url = await dev.started();
      // The server's own log names the same endpoint.
      expect(await dev.url()).toBe(url);
      const first = await httpClient(url);
      expect(await descriptionOf(first.client)).toBe('Echoes v1');
      const oldSession = first.transport.sessionId!;

      project.write(serverSource('Echoes v2'));
      expect(await dev.line(/reloaded in/)).toMatch(/^mcpx dev: reloaded in \d+ ms \(src\/server\.ts changed\)$/);
      // A fresh process has no sessions: the old one is unknown (404), so the client initializes again.
      const stale = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': oldSession, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
      expect(stale.status).toBe(404);
      await expect(first.client.listTools()).rejects.toMatchObject({ code: 404 }); // the official client sees the same
      await first.client.close();
      const second = await httpClient(url);
      expect(second.transport.sessionId).not.toBe(oldSession);
      expect(await descriptionOf(second.client)).toBe('Echoes v2');
      await second.client.close();

      project.write(serverSource('Echoes v3', BROKEN_BODY));
      await dev.line(/^mcpx dev: not serving: save a fix to try again$/);
      const failure = dev.stderr.split('\n').filter((l) => l.startsWith('mcpx: could not load'));
      expect(failure).toHaveLength(1);
      expect(failure[0]).toMatch(/^mcpx: could not load src\/server\.ts: .*server\.ts\(\d+,\d+\): error TS\d+/);
      expect(dev.child.exitCode).toBeNull();

      // A type error does not stop a reload: dev compiles without type-checking (tsc's job).
      project.write(serverSource('Echoes v4', "const unchecked: number = 'not a number';\n    return `echo: ${input.text}`;"));
      await dev.line(/reloaded in/, 2);
      const third = await httpClient(url);
      expect(await descriptionOf(third.client)).toBe('Echoes v4');
      expect((await third.client.callTool({ name: 'echo', arguments: { text: 'hi' } })).content).toEqual([{ type: 'text', text: 'echo: hi' }]);
      await third.client.close();
      expect(dev.stderr).not.toMatch(/\n\s+at /); // no stack trace anywhere

      // SIGTERM stops the server process and the warm spare with it.
      const children = childrenOf(dev.child.pid!);
      expect(children.length).toBeGreaterThanOrEqual(1);
      dev.child.kill('SIGTERM');
      expect(await dev.exited).toBe(0);
      await gone(children);
    } finally {
      dev.child.kill('SIGKILL');
    }
  });

  it('reports a crash on one line, and serves again after the next save', async () => {
    project.write(serverSource('Crashes', "setTimeout(() => { throw new TypeError('boom'); }, 1);\n    return 'about to crash';"));
    const dev = new Dev(['src/server.ts', '--port', '0'], project.dir);
    try {
      const url = await dev.started();
      const first = await httpClient(url);
      // The crash may come before the answer is out: only the crash is awaited.
      void first.client.callTool({ name: 'echo', arguments: { text: 'x' } }).catch(() => {});
      await dev.line(/^mcpx dev: the server exited \(code 1\); save a change to restart it$/);
      expect(dev.stderr).toMatch(/^mcpx dev: the server crashed: TypeError: boom \(at src\/server\.ts:\d+:\d+\)$/m);
      expect(dev.stderr).not.toMatch(/\n\s+at /);
      await first.client.close();

      project.write(serverSource('Echoes again'));
      await dev.line(/reloaded in/);
      const second = await httpClient(url);
      expect(await descriptionOf(second.client)).toBe('Echoes again');
      await second.client.close();
      dev.child.kill('SIGTERM');
      expect(await dev.exited).toBe(0);
    } finally {
      dev.child.kill('SIGKILL');
    }
  });

  it('leaves no process behind when it is killed outright', async () => {
    const dev = new Dev(['src/server.ts', '--port', '0'], project.dir);
    try {
      const url = await dev.started();
      const children = childrenOf(dev.child.pid!);
      expect(children.length).toBeGreaterThanOrEqual(1);
      dev.child.kill('SIGKILL');
      await dev.exited;
      await gone(children);
      await expect(fetch(new URL('/healthz', url))).rejects.toThrow();
    } finally {
      dev.child.kill('SIGKILL');
    }
  });
});

describe('mcpx dev --stdio', () => {
  let project: ReturnType<typeof makeProject>;
  beforeAll(() => {
    project = makeProject();
  });
  afterAll(() => rmSync(project.dir, { recursive: true, force: true }));

  it('keeps the client session across reloads: list_changed, then the new tools; errors while the code is broken', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'dev', 'src/server.ts', '--stdio'],
      cwd: project.dir,
      env: cleanEnv() as Record<string, string>,
      stderr: 'pipe',
    });
    let stderr = '';
    const stderrLines: (() => void)[] = [];
    transport.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
      for (const wake of [...stderrLines]) wake();
    });
    const stderrLine = (pattern: RegExp, n = 1) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${WAIT_MS} ms; stderr:\n${stderr}`)), WAIT_MS);
        const wake = () => {
          if (stderr.split('\n').filter((l) => pattern.test(l)).length < n) return;
          clearTimeout(timer);
          stderrLines.splice(stderrLines.indexOf(wake), 1);
          resolve();
        };
        stderrLines.push(wake);
        wake();
      });

    const client = new Client({ name: 'dev-test', version: '1.0.0' });
    let changes = 0;
    const changed: (() => void)[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++;
      for (const wake of changed.splice(0)) wake();
    });
    const listChanged = (n: number) =>
      new Promise<void>((resolve, reject) => {
        if (changes >= n) return resolve();
        const timer = setTimeout(() => reject(new Error(`no list_changed #${n} within ${WAIT_MS} ms; stderr:\n${stderr}`)), WAIT_MS);
        changed.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });

    await client.connect(transport);
    const supervisor = transport.pid!;
    try {
      expect(await descriptionOf(client)).toBe('Echoes v1');
      await stderrLine(/^mcpx dev: started in/);

      project.write(serverSource('Echoes v2'));
      await listChanged(1);
      // Same client, same session: the new process was given its initialize.
      expect(await descriptionOf(client)).toBe('Echoes v2');

      // A request the old process never answers fails when it goes, rather than hanging.
      const hanging = client.callTool({ name: 'hang', arguments: {} }, undefined, { timeout: WAIT_MS * 2 }).then(
        () => undefined,
        (err: unknown) => err,
      );
      await stderrLine(/^hanging$/);
      project.write(serverSource('Echoes v2b'));
      const cut = await hanging;
      expect(cut).toBeInstanceOf(McpError);
      expect((cut as McpError).message).toMatch(/the server reloaded before answering/);
      await listChanged(2);
      expect(await descriptionOf(client)).toBe('Echoes v2b');

      project.write(serverSource('Echoes v3', BROKEN_BODY));
      await stderrLine(/^mcpx dev: not serving/);
      const refused = await client.callTool({ name: 'echo', arguments: { text: 'hi' } }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(McpError);
      expect((refused as McpError).code).toBe(-32603);
      expect((refused as McpError).message).toMatch(/failed to start; save a fix/);

      project.write(serverSource('Echoes v4'));
      await listChanged(3);
      expect(await descriptionOf(client)).toBe('Echoes v4');
      expect((await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).content).toEqual([{ type: 'text', text: 'echo: hi' }]);
      expect(stderr).toMatch(/^mcpx: could not load src\/server\.ts: /m);
      expect(stderr).not.toMatch(/\n\s+at /);
    } finally {
      const children = childrenOf(supervisor);
      await client.close(); // ends stdin: the supervisor stops its server and exits
      await gone([supervisor, ...children]);
    }
  });
});

describe('mcpx dev usage', () => {
  const busyPort = () =>
    new Promise<{ port: number; close: () => void }>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => resolve({ port: (server.address() as { port: number }).port, close: () => server.close() }));
    });

  it('checks its arguments before starting anything', async () => {
    const { port, close } = await busyPort();
    try {
      const cases: [string[], number, RegExp][] = [
        [['dev'], 2, /^mcpx: dev needs an entry file, e\.g\. mcpx dev dist\/server\.js \(see mcpx dev --help\)$/],
        [['dev', 'nope/server.ts'], 2, /^mcpx: cannot find entry file nope\/server\.ts/],
        [['dev', 'apps/example/src/notes-server.ts', '--bogus'], 2, /^mcpx: unknown option '--bogus' \(see mcpx dev --help\)$/],
        [['dev', 'apps/example/src/notes-server.ts', '--watch'], 2, /^mcpx: option '--watch <dir>' argument missing/],
        [['dev', 'apps/example/src/notes-server.ts', '--watch', 'nope'], 2, /^mcpx: --watch needs a folder, got "nope"/],
        [['dev', 'apps/example/src/notes-server.ts', '--port', String(port)], 1, new RegExp(`^mcpx: cannot listen on 127\\.0\\.0\\.1:${port}: address already in use$`)],
      ];
      const results = await Promise.all(cases.map(([args]) => runAsync(args)));
      results.forEach((r, i) => {
        const [args, status, message] = cases[i]!;
        expect({ args, status: r.status, stdout: r.stdout }).toEqual({ args, status, stdout: '' });
        expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
        expect(r.stderr.trimEnd()).toMatch(message);
      });
    } finally {
      close();
    }
  });

  it('--help explains reloads over HTTP and stdio', async () => {
    const r = await runAsync(['dev', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Usage: mcpx dev <entry>/);
    expect(r.stdout).toContain('--watch <dir>');
    expect(r.stdout).toContain('404');
    expect(r.stdout).toContain('list_changed');
  });
});
