/**
 * `mcpx proxy CONFIG` as a user runs it: a real process serving, over HTTP behind OAuth, an upstream
 * built with the official SDK v1 (started over stdio, 2025-11-25) and one built with the SDK v2
 * (reached over HTTP with a credential from the environment, 2026-07-28), to a 2025-11-25 client (SDK v1) and a 2026-07-28
 * client (SDK v2): lists, calls with progress, an elicitation answered downstream (in both eras), cancellation, a
 * scope on one proxied tool, and the stdio upstream killed and started again.
 */
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort, requireBuild, serveHttp, type Running } from './cli';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '../../http/test/auth/test-authorization-server';

beforeAll(requireBuild);
jest.setTimeout(60_000);

const FIXTURES = join(__dirname, '..', '..', 'proxy', 'test', 'fixtures');
const UPSTREAM_TOKEN = 'upstream-secret-4711';

let as: TestAuthorizationServer;
let web: ChildProcess;
let gateway: Running;
let audience: string;

beforeAll(async () => {
  as = await startTestAuthorizationServer();
  web = spawn(process.execPath, [join(FIXTURES, 'sdk2-http-server.mjs')], { env: { ...process.env, PORT: '0', UPSTREAM_TOKEN }, stdio: ['ignore', 'pipe', 'inherit'] });
  const webUrl = await new Promise<string>((resolve) => createInterface({ input: web.stdout! }).once('line', resolve));
  const config = join(mkdtempSync(join(tmpdir(), 'mcpx-proxy-')), 'gateway.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        docs: { command: 'node', args: [join(FIXTURES, 'sdk1-stdio-server.js')], scopes: { add: ['math:use'] } },
        web: { url: webUrl, headers: { Authorization: 'Bearer ${WEB_TOKEN}' } },
      },
    }),
  );
  const port = await freePort();
  audience = `http://127.0.0.1:${port}/mcp`;
  gateway = await serveHttp(
    [config, '--port', String(port), '--auth-jwks-url', as.jwksUrl, '--auth-issuer', as.issuer, '--auth-audience', audience, '--log-level', 'debug'],
    { WEB_TOKEN: UPSTREAM_TOKEN },
    'proxy',
  );
});

afterAll(async () => {
  await gateway?.stop();
  web?.kill();
  await as?.close();
});

async function v1Client(scope: string): Promise<V1Client> {
  const token = await as.mintToken({ audience, scope });
  const client = new V1Client({ name: 'gateway-test-2025', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  await client.connect(new V1Transport(new URL(audience), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

/** Lists until the gateway has both upstreams' tools (they start while it already serves). */
async function toolsOf(client: { listTools(): Promise<{ tools: { name: string }[] }> }, expected: number): Promise<string[]> {
  for (let i = 0; i < 400; i++) {
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    if (names.length >= expected) return names;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the upstreams did not come up');
}

describe('mcpx proxy', () => {
  it('serves both upstreams to a 2025-11-25 client: progress, elicitation, cancellation, a scope', async () => {
    const client = await v1Client('math:use');
    const names = await toolsOf(client, 11);
    expect(names).toEqual(expect.arrayContaining(['docs_add', 'docs_ask', 'docs_count', 'docs_wait', 'web_shout', 'web_stats']));
    // Each upstream in the era it speaks: the SDK v1 server 2025-11-25, the SDK v2 server 2026-07-28.
    // (Logged once its whole listing is done, which may be just after its tools are listed.)
    const eras = () =>
      Object.fromEntries(
        gateway
          .logs()
          .split('\n')
          .filter((line) => line.includes('"upstream up"'))
          .map((line) => JSON.parse(line) as { upstream: string; protocolVersion: string })
          .map((l) => [l.upstream, l.protocolVersion]),
      );
    for (let i = 0; i < 200 && Object.keys(eras()).length < 2; i++) await new Promise((r) => setTimeout(r, 25));
    expect(eras()).toEqual({ docs: '2025-11-25', web: '2026-07-28' });
    expect(textOf(await client.callTool({ name: 'docs_add', arguments: { a: 20, b: 22 } }))).toBe('42');
    // The upstream credential came from the environment and reached the upstream (it answers 401 otherwise).
    expect(textOf(await client.callTool({ name: 'web_shout', arguments: { text: 'quiet' } }))).toBe('QUIET');
    expect((await client.callTool({ name: 'web_stats', arguments: { n: 9 } })).structuredContent).toEqual({ square: 81 });

    // Progress in order. The SDK v1 client drops a notification it reads in the same chunk as the
    // result (it handles notifications a microtask late): the upstream pauses between steps, and
    // the exact sequence is checked in process (packages/proxy/test), where nothing is dropped.
    const progress: number[] = [];
    const counted = await client.callTool({ name: 'docs_count', arguments: { n: 3 } }, undefined, { onprogress: (p) => progress.push(p.progress) });
    expect(textOf(counted)).toBe('counted to 3');
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress).toEqual([1, 2, 3].slice(0, progress.length));

    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      expect(request.params.message).toBe('Your name?');
      return { action: 'accept', content: { name: 'Grace' } };
    });
    expect(textOf(await client.callTool({ name: 'docs_ask', arguments: {} }))).toBe('hello Grace');

    const controller = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const waiting = client.callTool({ name: 'docs_wait', arguments: {} }, undefined, { signal: controller.signal, onprogress: () => started() });
    await running;
    controller.abort();
    await expect(waiting).rejects.toThrow();
    for (let i = 0; i < 400 && textOf(await client.callTool({ name: 'docs_cancellations', arguments: {} })) !== '1'; i++) await new Promise((r) => setTimeout(r, 25));
    expect(textOf(await client.callTool({ name: 'docs_cancellations', arguments: {} }))).toBe('1');
    await client.close();

    // Without the scope, docs_add is refused; the other tools still answer.
    const limited = await v1Client('other');
    const refused = await limited.callTool({ name: 'docs_add', arguments: { a: 1, b: 1 } }).then(
      (result) => result,
      (err: Error) => err,
    );
    expect(refused).toBeInstanceOf(Error);
    expect(String((refused as Error).message)).toMatch(/math:use/);
    expect(textOf(await limited.callTool({ name: 'web_shout', arguments: { text: 'ok' } }))).toBe('OK');
    await limited.close();

    // The upstream credential is nowhere in what the gateway logged.
    expect(gateway.logs()).not.toContain(UPSTREAM_TOKEN);
  });

  it('serves a 2026-07-28 client: lists, structured output, an elicitation as an input request, progress, cancellation', async () => {
    const token = await as.mintToken({ audience, scope: 'math:use' });
    const client = new V2Client({ name: 'gateway-test-2026', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {} } } });
    // Asked through an input request: the client answers, retries, and the gateway calls the upstream again.
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Lin' } }));
    // The token added by a fetch of its own: the transport's other headers stay the transport's.
    const withToken: typeof fetch = (url, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${token}`);
      return fetch(url, { ...init, headers });
    };
    await client.connect(new V2Transport(new URL(audience), { fetch: withToken }));
    const names = await toolsOf(client as never, 11);
    expect(names).toEqual(expect.arrayContaining(['docs_add', 'web_shout']));
    expect(textOf(await client.callTool({ name: 'docs_add', arguments: { a: 1, b: 2 } }))).toBe('3');
    expect((await client.callTool({ name: 'web_stats', arguments: { n: 4 } })).structuredContent).toEqual({ square: 16 });
    expect(textOf(await client.callTool({ name: 'docs_ask', arguments: {} }))).toBe('hello Lin');

    const progress: number[] = [];
    expect(textOf(await client.callTool({ name: 'docs_count', arguments: { n: 3 } }, { onprogress: (p) => void progress.push(p.progress) }))).toBe('counted to 3');
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress).toEqual([1, 2, 3].slice(0, progress.length));

    const before = Number(textOf(await client.callTool({ name: 'docs_cancellations', arguments: {} })));
    const controller = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const waiting = client.callTool({ name: 'docs_wait', arguments: {} }, { signal: controller.signal, onprogress: () => started() });
    await running;
    controller.abort();
    await expect(waiting).rejects.toThrow();
    for (let i = 0; i < 400 && Number(textOf(await client.callTool({ name: 'docs_cancellations', arguments: {} }))) === before; i++) await new Promise((r) => setTimeout(r, 25));
    expect(Number(textOf(await client.callTool({ name: 'docs_cancellations', arguments: {} })))).toBe(before + 1);
    await client.close();
  });

  it('starts a stdio upstream again when it dies, telling clients its tools left and came back', async () => {
    const client = await v1Client('math:use');
    await toolsOf(client, 11);
    const changes: number[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes.push(Date.now()));
    const pid = Number(textOf(await client.callTool({ name: 'docs_pid', arguments: {} })));
    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 400 && changes.length < 2; i++) await new Promise((r) => setTimeout(r, 25));
    expect(changes.length).toBeGreaterThanOrEqual(2);
    await toolsOf(client, 11);
    const again = Number(textOf(await client.callTool({ name: 'docs_pid', arguments: {} })));
    expect(again).not.toBe(pid);
    expect(gateway.logs()).toMatch(/upstream \\"docs\\" \(node\) is down: its process exited/);
    await client.close();
  });
});
