import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createClient } from 'redis';
import { CliError } from '../src/errors';
import { serveSettings } from '../src/serve';
import { exportRedisSettings } from '../src/serve-redis';
import { EXAMPLE_JS, INITIALIZE, freePort, requireBuild, run, runAsync, serveHttp, type Running } from './cli';

/** `--redis-url` / MCPX_REDIS_URL and `--redis-prefix` / MCPX_REDIS_PREFIX: several instances as one server. */

const REDIS_URL = process.env.MCPX_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('--redis-url and --redis-prefix map onto listen({ redis })', () => {
  const redis = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
    const settings = serveSettings([EXAMPLE_JS, ...argv], env);
    if (settings === 'help') throw new Error('unexpected help');
    return settings.redis;
  };

  it('is off unless given', () => {
    expect(redis([])).toBeUndefined();
  });

  it('takes the URL from the flag or MCPX_REDIS_URL, the flag first; the prefix is left to listen() unless given', () => {
    expect(redis(['--redis-url', 'redis://127.0.0.1:6379'])).toEqual({ url: 'redis://127.0.0.1:6379' });
    expect(redis([], { MCPX_REDIS_URL: 'rediss://user:pw@cache.internal:6380/2' })).toEqual({ url: 'rediss://user:pw@cache.internal:6380/2' });
    expect(redis(['--redis-url=redis://a:6379'], { MCPX_REDIS_URL: 'redis://b:6379' })).toEqual({ url: 'redis://a:6379' });
  });

  it('takes a Redis Cluster from --redis-cluster-nodes or MCPX_REDIS_CLUSTER_NODES, comma-separated', () => {
    expect(redis(['--redis-cluster-nodes', 'redis://10.0.0.1:7000, redis://10.0.0.2:7000'])).toEqual({ cluster: ['redis://10.0.0.1:7000', 'redis://10.0.0.2:7000'] });
    expect(redis([], { MCPX_REDIS_CLUSTER_NODES: 'rediss://u:pw@c1:7000', MCPX_REDIS_PREFIX: 'prod:' })).toEqual({ cluster: ['rediss://u:pw@c1:7000'], prefix: 'prod:' });
  });

  it('takes Sentinel from --redis-sentinels and --redis-sentinel-name, the primary credentials from MCPX_REDIS_USERNAME and MCPX_REDIS_PASSWORD', () => {
    expect(redis(['--redis-sentinels', 'redis://s1:26379,redis://s2:26379', '--redis-sentinel-name', 'mcpx'])).toEqual({
      sentinel: { nodes: ['redis://s1:26379', 'redis://s2:26379'], name: 'mcpx' },
    });
    const env = { MCPX_REDIS_SENTINELS: 'redis://s1:26379', MCPX_REDIS_SENTINEL_NAME: 'cache', MCPX_REDIS_USERNAME: 'app', MCPX_REDIS_PASSWORD: 'pw' };
    expect(redis([], env)).toEqual({ sentinel: { nodes: ['redis://s1:26379'], name: 'cache', username: 'app', password: 'pw' } });
  });

  it('lets a flag naming where Redis is set aside the variables naming it another way', () => {
    expect(redis(['--redis-cluster-nodes', 'redis://c:7000'], { MCPX_REDIS_URL: 'redis://single:6379', MCPX_REDIS_PREFIX: 'p:' })).toEqual({ cluster: ['redis://c:7000'], prefix: 'p:' });
    expect(redis(['--redis-url', 'redis://a:6379'], { MCPX_REDIS_SENTINELS: 'redis://s:26379' })).toEqual({ url: 'redis://a:6379' });
  });

  it('passes what it was told on to the server code through the environment, and nothing else', () => {
    const env: NodeJS.ProcessEnv = { MCPX_REDIS_URL: 'redis://old:6379', MCPX_REDIS_PREFIX: 'old:', OTHER: 'kept' };
    exportRedisSettings({ sentinel: { nodes: ['redis://s1:26379', 'redis://s2:26379'], name: 'mcpx' } }, env);
    expect(env).toEqual({ MCPX_REDIS_SENTINELS: 'redis://s1:26379,redis://s2:26379', MCPX_REDIS_SENTINEL_NAME: 'mcpx', OTHER: 'kept' });
    exportRedisSettings({ cluster: ['redis://c1:7000', 'redis://c2:7000'], prefix: 'p:' }, env);
    expect(env).toEqual({ MCPX_REDIS_CLUSTER_NODES: 'redis://c1:7000,redis://c2:7000', MCPX_REDIS_PREFIX: 'p:', OTHER: 'kept' });
  });

  it('takes the prefix from the flag or MCPX_REDIS_PREFIX, the flag first', () => {
    expect(redis(['--redis-url', 'redis://r:6379', '--redis-prefix', 'notes-prod:'])).toEqual({ url: 'redis://r:6379', prefix: 'notes-prod:' });
    expect(redis([], { MCPX_REDIS_URL: 'redis://r:6379', MCPX_REDIS_PREFIX: 'staging:' })).toEqual({ url: 'redis://r:6379', prefix: 'staging:' });
    expect(redis(['--redis-prefix', 'a:'], { MCPX_REDIS_URL: 'redis://r:6379', MCPX_REDIS_PREFIX: 'b:' })).toEqual({ url: 'redis://r:6379', prefix: 'a:' });
  });

  it.each([
    [['--redis-url', 'http://127.0.0.1:6379'], {}, /^--redis-url must be a redis:\/\/ or rediss:\/\/ URL, e\.g\. redis:\/\/127\.0\.0\.1:6379, got "http:\/\/127\.0\.0\.1:6379"$/],
    [[], { MCPX_REDIS_URL: '127.0.0.1:6379' }, /^MCPX_REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/],
    [['--redis-url', 'redis://'], {}, /^--redis-url must be a redis:\/\/ or rediss:\/\/ URL/],
    [['--redis-prefix', 'mcpx:'], {}, /^--redis-prefix needs --redis-url, --redis-cluster-nodes or --redis-sentinels: it applies to that Redis$/],
    [[], { MCPX_REDIS_PREFIX: 'mcpx:' }, /^MCPX_REDIS_PREFIX needs --redis-url, --redis-cluster-nodes or --redis-sentinels/],
    [['--redis-sentinel-name', 'mcpx'], {}, /^--redis-sentinel-name needs --redis-url, --redis-cluster-nodes or --redis-sentinels/],
    [['--redis-url', 'redis://a:6379', '--redis-cluster-nodes', 'redis://b:7000'], {}, /^--redis-url and --redis-cluster-nodes name Redis twice: give one of/],
    [[], { MCPX_REDIS_URL: 'redis://a:6379', MCPX_REDIS_SENTINELS: 'redis://s:26379' }, /^MCPX_REDIS_URL and MCPX_REDIS_SENTINELS name Redis twice/],
    [['--redis-sentinels', 'redis://s1:26379'], {}, /^--redis-sentinels needs --redis-sentinel-name \(MCPX_REDIS_SENTINEL_NAME\): the name the sentinels monitor the primary under$/],
    [['--redis-url', 'redis://a:6379', '--redis-sentinel-name', 'mcpx'], {}, /^--redis-sentinel-name applies to --redis-sentinels \(MCPX_REDIS_SENTINELS\) only$/],
    [
      ['--redis-cluster-nodes', 'redis://a:7000,http://b:7001'],
      {},
      /^--redis-cluster-nodes must be a redis:\/\/ or rediss:\/\/ URL, e\.g\. redis:\/\/127\.0\.0\.1:6379, got "http:\/\/b:7001"$/,
    ],
    [['--redis-cluster-nodes', ' , '], {}, /^--redis-cluster-nodes needs a comma-separated list/],
    [[], { MCPX_REDIS_SENTINELS: 'localhost:26379', MCPX_REDIS_SENTINEL_NAME: 'mcpx' }, /^MCPX_REDIS_SENTINELS must be a redis:\/\/ or rediss:\/\/ URL/],
    [['--stdio', '--redis-cluster-nodes', 'redis://r:7000'], {}, /^--redis-cluster-nodes applies to HTTP only, not --stdio$/],
    [['--redis-url', 'redis://r:6379', '--redis-prefix', 'my app:'], {}, /^--redis-prefix must be a key prefix without spaces or braces, e\.g\. mcpx:, got "my app:"$/],
    [['--redis-url', 'redis://r:6379', '--redis-prefix', '{app}:'], {}, /^--redis-prefix must be a key prefix without spaces or braces/],
    [['--redis-url', 'redis://r:6379', '--redis-prefix='], {}, /^--redis-prefix must be a key prefix without spaces or braces, e\.g\. mcpx:, got ""$/],
    [['--stdio', '--redis-url', 'redis://r:6379'], {}, /^--redis-url applies to HTTP only, not --stdio$/],
  ] as [string[], NodeJS.ProcessEnv, RegExp][])('refuses %j %j', (argv, env, message) => {
    let error: unknown;
    try {
      serveSettings([EXAMPLE_JS, ...argv], env);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CliError);
    expect((error as Error).message).toMatch(message);
  });

  it('hides the password of a URL it refuses: it must not reach the terminal, nor a log collecting it', () => {
    expect(() => serveSettings([EXAMPLE_JS, '--redis-url', 'http://user:s3cret@cache:6379'], {})).toThrow(
      '--redis-url must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379, got "http://user:***@cache:6379"',
    );
  });
});

describe('mcpx serve with Redis, end to end', () => {
  beforeAll(requireBuild);
  // Child processes start slower when the other suites run alongside.
  jest.setTimeout(60_000);

  const redis = createClient({ url: REDIS_URL });
  const prefix = `mcpx-test:${randomBytes(6).toString('hex')}:`;
  const running: Running[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    await redis.connect();
  });

  afterAll(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
    for (const server of running.splice(0)) await server.stop();
    const keys: string[] = [];
    for await (const batch of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 200 })) keys.push(...batch);
    if (keys.length) await redis.del(keys);
    await redis.close();
  });

  async function serve(): Promise<Running> {
    const server = await serveHttp([EXAMPLE_JS, '--port', '0', '--redis-url', REDIS_URL, '--redis-prefix', prefix]);
    running.push(server);
    return server;
  }

  async function client(url: string): Promise<Client> {
    const c = new Client({ name: 'cli-redis-test', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(url)));
    clients.push(c);
    return c;
  }

  it('gives the example its notes in that Redis: a note created through one instance is read through another', async () => {
    const [one, two] = await Promise.all([serve(), serve()]);
    const [a, b] = await Promise.all([client(one.url), client(two.url)]);
    const created = (await a.callTool({ name: 'create', arguments: { title: 'Shared', body: 'through the CLI' } })) as CallToolResult;
    expect(created.content[0]).toEqual({ type: 'text', text: 'Created note 4.' });
    const read = await b.readResource({ uri: 'notes://notes/4' });
    expect(read.contents[0]).toMatchObject({ text: '# Shared\n\nthrough the CLI' });
    expect(await redis.exists(`${prefix}notes:note:4`)).toBe(1);
  });

  it('shares the sessions: one initialized through one instance is served by another', async () => {
    const [one, two] = running.length >= 2 ? running : await Promise.all([serve(), serve()]);
    const post = (url: string, message: object, sessionId?: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' } : {}),
        },
        body: JSON.stringify(message),
      });
    const init = await post(one!.url, INITIALIZE);
    expect(init.status).toBe(200);
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.text();
    expect((await post(two!.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId)).status).toBe(202);
    const listed = await post(two!.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, sessionId);
    expect(listed.status).toBe(200);
    expect(await listed.text()).toContain('"name":"create"');
  });

  it('exits 1 with one line naming the URL (not its password) when Redis cannot be reached at start', async () => {
    const port = await freePort();
    const r = await runAsync(['serve', EXAMPLE_JS, '--port', '0', '--redis-url', `redis://:s3cret@127.0.0.1:${port}`, '--log-level', 'silent']);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^mcpx: cannot start: .*redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}`));
    expect(r.stderr).not.toContain('s3cret');
  });

  it('serve --help names the flags with their env vars', () => {
    const r = run(['serve', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/\n {2}--redis-url <url>\s.*MCPX_REDIS_URL/);
    expect(r.stdout).toMatch(/\n {2}--redis-prefix <prefix>\s.*MCPX_REDIS_PREFIX/);
    expect(r.stdout).toMatch(/\n {2}--redis-cluster-nodes <list>\s.*MCPX_REDIS_CLUSTER_NODES/);
    expect(r.stdout).toMatch(/\n {2}--redis-sentinels <list>\s.*MCPX_REDIS_SENTINELS/);
    expect(r.stdout).toMatch(/\n {2}--redis-sentinel-name <name>\s.*MCPX_REDIS_SENTINEL_NAME/);
  });
});
