/**
 * The gateway over an upstream built with the official SDK v2, reached over Streamable HTTP with a
 * credential from the configuration: its tools served (structured output included); the upstream
 * stopped, noticed by a ping, its tools hidden with list_changed and a clear error; started again on
 * the same port and reached again with backoff; a wrong credential keeps it down, saying why.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { connect, quietOptions, rpcErrorOf } from '@mcpx/testing';
import { proxyServer } from '../src';

jest.setTimeout(40_000);

const UPSTREAM = join(__dirname, 'fixtures', 'sdk2-http-server.mjs');
const TOKEN = 'upstream-token-1';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Starts the upstream and resolves with it once it prints its URL. */
async function startUpstream(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [UPSTREAM], { env: { ...process.env, PORT: String(port), UPSTREAM_TOKEN: TOKEN }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
  return child;
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

it('serves an HTTP upstream, hides it while it is gone and reaches it again when it is back', async () => {
  const port = await freePort();
  let upstream = await startUpstream(port);
  const server = await proxyServer(
    { mcpServers: { web: { url: `http://127.0.0.1:${port}/mcp`, headers: { Authorization: `Bearer ${TOKEN}` } } } },
    { backoffMs: 100, maxBackoffMs: 400, pingIntervalMs: 200 },
  );
  const client = await connect(server, quietOptions());
  try {
    await server.gateway.ready();
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['web_shout', 'web_stats']);
    expect((await client.callTool('web_shout', { text: 'hey' })).content).toEqual([{ type: 'text', text: 'HEY' }]);
    expect((await client.callTool('web_stats', { n: 3 })).structuredContent).toEqual({ square: 9 });

    await stop(upstream);
    await client.nextNotification('notifications/tools/list_changed');
    await until(async () => (await client.listTools()).tools.length === 0, 'the tools to be hidden');
    expect((await rpcErrorOf(client.callTool('web_shout', { text: 'x' }))).message).toMatch(
      /^Tool "web_shout" is unavailable: the upstream server "web" \(http:\/\/127\.0\.0\.1:\d+\) is (down \(.+\)|starting); try again shortly$/,
    );

    upstream = await startUpstream(port);
    await until(async () => (await client.listTools()).tools.length === 2, 'the upstream to be reached again');
    expect((await client.callTool('web_shout', { text: 'back' })).content).toEqual([{ type: 'text', text: 'BACK' }]);
  } finally {
    client.close();
    await server.gateway.close();
    await stop(upstream);
  }
});

it('keeps an upstream that refuses the credential down, and says why', async () => {
  const port = await freePort();
  const upstream = await startUpstream(port);
  const server = await proxyServer({ mcpServers: { web: { url: `http://127.0.0.1:${port}/mcp`, headers: { Authorization: 'Bearer wrong' } } } }, { backoffMs: 5000 });
  const client = await connect(server, quietOptions());
  try {
    await server.gateway.ready();
    const [web] = server.gateway.upstreams;
    expect(web!.state).toBe('down');
    expect(web!.reason).toMatch(/^cannot start: /);
    expect((await client.listTools()).tools).toEqual([]);
  } finally {
    client.close();
    await server.gateway.close();
    await stop(upstream);
  }
});
