/**
 * The notes example as three replicas, as `npm start` runs it with MCPX_REDIS_URL set (separate
 * processes of apps/example/dist/main-http.js sharing the Redis on 127.0.0.1:6379 under a key
 * prefix of their own), behind a round-robin proxy with no stickiness, driven by the official
 * client: one server, one notebook. A note created through one replica is listed, read, searched,
 * exported and deleted (the confirmation answered through another) through the others, and
 * `resources/updated` reaches a subscriber whichever replica holds its stream.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createClient } from 'redis';
import { startRoundRobinProxy, type RoundRobinProxy } from '@mcpx/testing';

const ROOT = resolve(__dirname, '../../..');
const MAIN_HTTP = resolve(ROOT, 'apps/example/dist/main-http.js');
const REDIS_URL = process.env.MCPX_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Starting processes is slow on a busy machine: a bound on waiting, not a speed. */
const START_TIMEOUT_MS = 60_000;

jest.setTimeout(120_000);

interface Replica {
  child: ChildProcess;
  origin: string;
  exited: Promise<void>;
  output(): string;
}

/** One `npm start` process on a free port, sharing the notes and sessions under `prefix`. */
function startReplica(prefix: string): Promise<Replica> {
  const child = spawn(process.execPath, [MAIN_HTTP], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', MCPX_REDIS_URL: REDIS_URL, MCPX_REDIS_PREFIX: prefix, MCPX_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return new Promise((found, fail) => {
    const timer = setTimeout(() => fail(new Error(`no replica serving within ${START_TIMEOUT_MS} ms: ${output}`)), START_TIMEOUT_MS);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output += `${line}\n`;
      if (!line.includes('serving MCP over Streamable HTTP')) return;
      clearTimeout(timer);
      found({ child, origin: new URL((JSON.parse(line) as { url: string }).url).origin, exited, output: () => output });
    });
    void exited.then(() => {
      clearTimeout(timer);
      fail(new Error(`a replica exited (${child.exitCode ?? child.signalCode}) before serving: ${output}`));
    });
  });
}

interface Peer {
  client: Client;
  notifications: { method: string; params?: Record<string, unknown> }[];
  /** Resolves with the next notification of `method` whose params match (or one received and not yet taken). */
  next(method: string, match?: (params: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
}

/** The official client through the proxy, its GET stream open; it confirms deletions. */
async function connectPeer(url: string): Promise<Peer> {
  let getAnswered!: () => void;
  const getStream = new Promise<void>((done) => (getAnswered = done));
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      if ((init?.method ?? 'GET') === 'GET' && response.ok) getAnswered();
      return response;
    },
  });
  const client = new Client({ name: 'notes-replicas-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  const notifications: Peer['notifications'] = [];
  const taken = new WeakSet<object>();
  const waiters: (() => void)[] = [];
  client.fallbackNotificationHandler = async (notification) => {
    notifications.push(notification as Peer['notifications'][number]);
    waiters.splice(0).forEach((wake) => wake());
  };
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { confirm: true } }));
  await client.connect(transport);
  await getStream;
  const next: Peer['next'] = async (method, match = () => true) => {
    for (;;) {
      const found = notifications.find((n) => n.method === method && !taken.has(n) && match(n.params ?? {}));
      if (found) {
        taken.add(found);
        return found.params ?? {};
      }
      await new Promise<void>((wake) => waiters.push(wake));
    }
  };
  return { client, notifications, next };
}

const textOf = (result: unknown) =>
  ((result as CallToolResult).content as { type: string; text?: string }[])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');

/** Polls every 10 ms; fails naming `what` after a bound on waiting (not a speed). */
async function until(predicate: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((wait) => setTimeout(wait, 10));
  }
}

describe('three replicas of the notes example on one Redis', () => {
  const prefix = `mcpx-test:${randomBytes(6).toString('hex')}:`;
  const replicas: Replica[] = [];
  const peers: Peer[] = [];
  let proxy: RoundRobinProxy | undefined;

  beforeAll(async () => {
    if (!existsSync(MAIN_HTTP)) throw new Error(`${MAIN_HTTP} is missing: run "npm run build" first (npm test does)`);
    replicas.push(...(await Promise.all([startReplica(prefix), startReplica(prefix), startReplica(prefix)])));
    proxy = await startRoundRobinProxy(replicas.map((r) => r.origin));
  });

  afterAll(async () => {
    await Promise.all(peers.map((peer) => peer.client.close().catch(() => {})));
    await proxy?.close();
    await Promise.all(
      replicas.map(async (replica) => {
        if (replica.child.exitCode === null && replica.child.signalCode === null) replica.child.kill('SIGTERM');
        await replica.exited;
      }),
    );
    const redis = createClient({ url: REDIS_URL });
    await redis.connect();
    for await (const keys of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) if (keys.length) await redis.del(keys);
    await redis.close();
  });

  it('serve one notebook: every change made through one replica is seen through the others', async () => {
    const mcp = `${proxy!.url}/mcp`;
    const writer = await connectPeer(mcp);
    const reader = await connectPeer(mcp);
    peers.push(writer, reader);
    await reader.client.subscribeResource({ uri: 'notes://index' });

    expect(textOf(await writer.client.callTool({ name: 'create', arguments: { title: 'Shared', body: 'one notebook', tags: ['team'] } }))).toBe('Created note 4.');
    await reader.next('notifications/resources/updated', (p) => p.uri === 'notes://index');

    // Listed by every replica: the proxy sends each list to the next one.
    await until(async () => {
      const lists = await Promise.all([0, 1, 2].map(() => reader.client.listResources()));
      return lists.every(({ resources }) => resources.some((r) => r.uri === 'notes://notes/4'));
    }, 'every replica to list notes://notes/4');
    expect((await reader.client.readResource({ uri: 'notes://notes/4' })).contents[0]).toMatchObject({ text: '# Shared\n\none notebook' });
    expect((await reader.client.callTool({ name: 'search', arguments: { query: 'notebook' } })).structuredContent).toEqual({
      notes: [{ id: '4', title: 'Shared', tags: ['team'] }],
      total: 1,
    });
    const exported = textOf(await reader.client.callTool({ name: 'export', arguments: { format: 'json', delayMs: 0 } }));
    expect(exported.split('\n').map((line) => (JSON.parse(line) as { title: string }).title)).toEqual(['Welcome', 'Shopping', 'Release plan', 'Shared']);

    await reader.client.subscribeResource({ uri: 'notes://notes/4' });
    await writer.client.callTool({ name: 'append', arguments: { id: '4', line: 'appended by the writer' } });
    await reader.next('notifications/resources/updated', (p) => p.uri === 'notes://notes/4');
    expect((await reader.client.readResource({ uri: 'notes://notes/4' })).contents[0]).toMatchObject({ text: '# Shared\n\none notebook\nappended by the writer' });

    // The confirmation is asked by the replica running the call; the answer lands on another.
    expect(textOf(await reader.client.callTool({ name: 'delete', arguments: { id: '4' } }))).toBe('Deleted note 4.');
    await expect(writer.client.readResource({ uri: 'notes://notes/4' })).rejects.toMatchObject({ code: -32002 });
    await until(async () => {
      const lists = await Promise.all([0, 1, 2].map(() => writer.client.listResources()));
      return lists.every(({ resources }) => !resources.some((r) => r.uri === 'notes://notes/4'));
    }, 'every replica to drop notes://notes/4');

    expect(proxy!.counts.every((count) => count > 0)).toBe(true);
    for (const replica of replicas) expect(replica.output()).not.toMatch(/"level":(50|60)/);
  });
});
