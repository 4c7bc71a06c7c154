import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { BIN, EXAMPLE_JS, EXAMPLE_TS, FIXTURES, INITIALIZE, ROOT, cleanEnv, freePort, requireBuild, serveHttp } from './cli';

beforeAll(requireBuild);
// Child processes start slower when the other suites run alongside.
jest.setTimeout(40_000);

async function stdioClient(args: string[]): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', ...args, '--stdio'],
    cwd: ROOT,
    env: cleanEnv() as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'cli-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe('mcpx serve over HTTP', () => {
  it('serves the compiled example: /healthz, initialize and tools/list; SIGTERM exits 0', async () => {
    const server = await serveHttp([EXAMPLE_JS, '--port', '0']);
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const health = await fetch(new URL('/healthz', server.url));
      expect(health.status).toBe(200);

      const client = new Client({ name: 'cli-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      expect(client.getServerVersion()?.name).toBe('mcpx-notes');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['create', 'search']));
      await client.close();
    } finally {
      expect(await server.stop()).toBe(0);
    }
    // Not a TTY: one pino JSON object per line on stdout.
    const lines = server.logs().trim().split('\n');
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toContain('stopped');
  });

  it('flags win over MCPX_PORT, which wins over PORT', async () => {
    const [p1, p2, p3] = [await freePort(), await freePort(), await freePort()];
    const fromEnv = await serveHttp([EXAMPLE_JS], { PORT: String(p1), MCPX_PORT: String(p2) });
    expect(new URL(fromEnv.url).port).toBe(String(p2));
    expect(await fromEnv.stop()).toBe(0);

    const fromFlag = await serveHttp([EXAMPLE_JS, '--port', String(p3)], { MCPX_PORT: String(p2) });
    expect(new URL(fromFlag.url).port).toBe(String(p3));
    expect(await fromFlag.stop()).toBe(0);
  });

  it('applies --path, --stateless, --json-response and --allowed-origins (and their env vars)', async () => {
    const server = await serveHttp([EXAMPLE_JS, '--port', '0', '--path', '/rpc', '--json-response'], {
      MCPX_STATELESS: 'true',
      MCPX_PATH: '/ignored',
      MCPX_ALLOWED_ORIGINS: 'https://app.example.com, https://other.example.com',
    });
    try {
      expect(new URL(server.url).pathname).toBe('/rpc');
      const post = (origin: string) =>
        fetch(server.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin },
          body: JSON.stringify(INITIALIZE),
        });
      expect((await post('https://evil.example.com')).status).toBe(403);
      const res = await post('https://other.example.com');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(res.headers.get('mcp-session-id')).toBeNull(); // stateless
      const body = (await res.json()) as { result: { serverInfo: { name: string } } };
      expect(body.result.serverInfo.name).toBe('mcpx-notes');
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});

describe('mcpx serve --stdio', () => {
  it('serves the compiled example to the SDK client; logs stay off stdout', async () => {
    const { client, stderr } = await stdioClient([EXAMPLE_JS]);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('search');
    const result = await client.callTool({ name: 'search', arguments: { query: 'milk' } });
    expect(JSON.stringify(result.structuredContent)).toContain('Shopping');
    await client.close();
    expect(stderr()).toContain('serving over stdio');
  });

  it('serves a .ts entry through ts-node (decorator metadata intact)', async () => {
    const { client } = await stdioClient([EXAMPLE_TS]);
    const { tools } = await client.listTools();
    const create = tools.find((t) => t.name === 'create');
    // The input schema comes from emitDecoratorMetadata: ts-node must not transpile only.
    expect(create?.inputSchema.required).toEqual(expect.arrayContaining(['title', 'body']));
    await client.close();
  });

  it('stops with exit code 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', EXAMPLE_JS, '--stdio'], { cwd: ROOT, env: cleanEnv() });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve) => {
      let err = '';
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        if (err.includes('serving over stdio')) resolve();
      });
    });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('keeps stdout for the protocol from the start: what the entry prints while it loads goes to stderr', async () => {
    const { client, stderr } = await stdioClient([join(FIXTURES, 'noisy-load.js')]);
    const errors: Error[] = [];
    client.onerror = (err) => errors.push(err);
    expect(await client.callTool({ name: 'ping', arguments: {} })).toEqual({ content: [{ type: 'text', text: 'pong' }] });
    await client.close();
    expect(stderr()).toContain('noisy-load: module loading');
    expect(stderr()).toContain('noisy-load: banner written to stdout');
    expect(stderr()).toContain('noisy-load: inside the handler');
    expect(errors).toEqual([]);
  });

  it('--server picks one of several exported server classes', async () => {
    const { client } = await stdioClient([join(FIXTURES, 'two-servers.js'), '--server', 'BetaServer']);
    expect(client.getServerVersion()).toMatchObject({ name: 'beta', version: '2.0.0' });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['beta']);
    await client.close();
  });
});
