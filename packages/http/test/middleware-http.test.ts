/**
 * Middleware over real HTTP, in both eras: the shop of pipeline-fixture.ts behind listen(), with a
 * middleware in listen()'s own options and bearer auth whose token names the tenant, driven by the
 * official clients (pipeline-suite.ts): sdk 1.x in a 2025-11-25 session, client 2.x in 2026-07-28.
 */
import 'reflect-metadata';
import Fastify from 'fastify';
import pino from 'pino';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Principal } from '@mcpx/core';
import type { McpHttpServer } from '@mcpx/http';
import { mcpx } from '@mcpx/http';
import { freePort, startServer } from './http-kit';
import { Shop, newExtensionProbe, probe, record, testExtension } from '../../core/test/pipeline-fixture';
import { legacyPeer, middlewareSuite, modernPeer, textOf } from '../../core/test/pipeline-suite';

/** The token is the tenant: `acme` calls as user@acme with `{ tenant: 'acme' }`. */
const verifier = async (token: string): Promise<Principal> => ({ subject: `user@${token}`, scopes: [], claims: { tenant: token } });
const bearer = (tenant: string) => ({ headers: { authorization: `Bearer ${tenant}` } });

/**
 * sdk 1.x tries to resume a POST stream that ended with an error response (it counts only results
 * as answers); these tests need no resumption, so no retry timer outlives them.
 */
const NO_RECONNECTION = { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 30_000, reconnectionDelayGrowFactor: 1.5 };

let server: McpHttpServer;

beforeAll(async () => {
  const port = await freePort(); // the resource URL names the port
  server = await startServer(new Shop(), {
    port,
    middleware: [record('options')],
    auth: { resource: `http://127.0.0.1:${port}/mcp`, authorizationServers: ['https://issuer.test'], verifier },
  });
});
afterAll(() => server.close());

describe('middleware over HTTP, 2025-11-25 (sdk 1.x, a session)', () => {
  middlewareSuite(async (tenant) => {
    const transport = new LegacyTransport(new URL(server.url), { requestInit: bearer(tenant), reconnectionOptions: NO_RECONNECTION });
    return legacyPeer(transport, `legacy-${tenant}`);
  });
});

describe('middleware over HTTP, 2026-07-28 (client 2.x, no session)', () => {
  middlewareSuite((tenant) => modernPeer(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: bearer(tenant) }), `modern-${tenant}`));
});

describe('the Fastify plugin, given middleware and an extension in its options', () => {
  const app = Fastify({ loggerInstance: pino({ level: 'silent' }) });
  let url: URL;

  beforeAll(async () => {
    await app.register(mcpx, { server: new Shop(), path: '/mcp', middleware: [record('options')], extensions: [testExtension(newExtensionProbe())] });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    url = new URL(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/mcp`);
  });
  afterAll(() => app.close());
  beforeEach(() => probe.reset());

  it.each(['legacy', 'modern'] as const)('runs them in order around a tool (%s), and serves the extension method', async (era) => {
    const peer =
      era === 'legacy'
        ? await legacyPeer(new LegacyTransport(url, { reconnectionOptions: NO_RECONNECTION }), 'plugin-legacy')
        : await modernPeer(new StreamableHTTPClientTransport(url), 'plugin-modern');
    try {
      expect(textOf(await peer.callTool('ordered'))).toBe('ordered');
      expect(probe.seen.filter((s) => s.endsWith(' tools/call') || s.startsWith('handler '))).toEqual([
        'options tools/call',
        'server tools/call',
        'extension tools/call',
        'class tools/call',
        'method tools/call',
        'handler ordered',
      ]);
      expect(await peer.request('example/echo', { text: 'ok' })).toMatchObject({ echoed: 'ok', era, fromMiddleware: 'extension saw example/echo' });
    } finally {
      await peer.close();
    }
  });
});
