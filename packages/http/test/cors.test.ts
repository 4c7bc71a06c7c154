import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import fastifyCors from '@fastify/cors';
import pino from 'pino';
import { McpServer, Server, Tool } from '@mcpx/core';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, InvalidTokenError, mcpx, normalizeOrigin, resolveCors, type ListenOptions, type McpHttpServer } from '@mcpx/http';
import { corsOptions } from '../../../docs/examples/transports-cors';
import { LATEST, callTool, getHeaders, initializeBody, notification, openSse, postHeaders, request, rpc, startServer, type Headers, type RawResponse } from './http-kit';

/**
 * CORS for browser clients, over real HTTP to a listening server: preflights, the headers on every
 * kind of answer (JSON, SSE, refusals), the Origin check around it, and the configurations refused
 * at startup. (browser-cors.browser.test.ts runs the same against a real browser.)
 */

@Server({ name: 'cors-fixture', version: '1.0.0' })
class Fixture extends McpServer {
  @Tool({ description: 'Answers pong' })
  ping() {
    return 'pong';
  }
}

const PAGE = 'http://page.example.test:8080';
const OTHER = 'https://evil.example.com';
/** A loopback origin: the default Origin check lets it through, but CORS is not on for it. */
const LOOPBACK_PAGE = 'http://localhost:5173';

const preflightHeaders = (origin: string | undefined, method: string, headers: string): Headers => ({
  origin,
  'access-control-request-method': method,
  'access-control-request-headers': headers,
});

/** Header values listed with commas, as a set of lower-case names. */
const listed = (value: string | string[] | undefined): string[] =>
  String(value ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

/** A refusal from the transport: its status and JSON-RPC error (which echoes the request's id when known). */
function expectRefusal(res: RawResponse, status: number, message: RegExp): void {
  expect(res.status).toBe(status);
  expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringMatching(message) } });
}

function expectNoCors(res: RawResponse): void {
  for (const name of Object.keys(res.headers)) expect(name).not.toMatch(/^access-control-/);
}

/** The CORS headers every answer to PAGE carries. */
function expectCorsFor(res: RawResponse | { headers: RawResponse['headers'] }, origin = PAGE): void {
  expect(res.headers['access-control-allow-origin']).toBe(origin);
  expect(listed(res.headers['access-control-expose-headers'])).toEqual(expect.arrayContaining(['mcp-session-id', 'www-authenticate', 'mcp-protocol-version']));
  expect(listed(res.headers.vary)).toContain('origin');
  expect(res.headers['access-control-allow-credentials']).toBeUndefined();
}

/** initialize + initialized from `origin` (null: no Origin header, as native clients send). */
async function initialize(url: string, from: string | null = PAGE): Promise<{ res: RawResponse; session: string }> {
  const origin = from ?? undefined;
  const res = await request(url, { method: 'POST', headers: postHeaders(undefined, { origin }), body: initializeBody() });
  const session = res.headers['mcp-session-id'];
  if (res.status !== 200 || typeof session !== 'string') throw new Error(`initialize answered ${res.status}: ${res.body}`);
  const done = await request(url, { method: 'POST', headers: postHeaders(session, { origin }), body: notification('notifications/initialized') });
  expect(done.status).toBe(202);
  return { res, session };
}

describe('CORS on: preflights', () => {
  let server: McpHttpServer;
  beforeAll(async () => {
    server = await startServer(new Fixture(), { cors: { origins: [PAGE] } });
  });
  afterAll(() => server.close());

  it('answers a preflight from a CORS origin with 204 and every header', async () => {
    const asked = 'content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id, mcp-method, mcp-name';
    const res = await request(server.url, { method: 'OPTIONS', headers: preflightHeaders(PAGE, 'POST', asked) });
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    expect(res.headers['content-length']).toBe('0');
    expect(res.headers['access-control-allow-origin']).toBe(PAGE);
    expect(listed(res.headers['access-control-allow-methods'])).toEqual(['get', 'post', 'delete', 'options']);
    expect(listed(res.headers['access-control-allow-headers'])).toEqual([
      'content-type',
      'accept',
      'authorization',
      'mcp-session-id',
      'mcp-protocol-version',
      'last-event-id',
      'mcp-method',
      'mcp-name',
    ]);
    expect(listed(res.headers['access-control-expose-headers'])).toEqual(['mcp-session-id', 'mcp-protocol-version', 'www-authenticate', 'retry-after']);
    expect(res.headers['access-control-max-age']).toBe('7200');
    expect(listed(res.headers.vary)).toContain('origin');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers.allow).toBeUndefined();
  });

  it.each(['GET', 'POST', 'DELETE'])('answers the preflight of a %s (what the SDK client sends)', async (method) => {
    const res = await request(server.url, {
      method: 'OPTIONS',
      headers: preflightHeaders(PAGE, method, method === 'GET' ? 'last-event-id,mcp-protocol-version,mcp-session-id' : 'mcp-protocol-version,mcp-session-id'),
    });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(PAGE);
    expect(listed(res.headers['access-control-allow-methods'])).toContain(method.toLowerCase());
  });

  it('refuses a preflight from any other origin with 403 (the Origin check comes first)', async () => {
    const res = await request(server.url, { method: 'OPTIONS', headers: preflightHeaders(OTHER, 'POST', 'content-type') });
    expectRefusal(res, 403, /^Forbidden: Origin https:\/\/evil\.example\.com is not allowed$/);
    expectNoCors(res);
  });

  it('gives a loopback origin the Origin check lets through, but CORS is not on for, no CORS: its preflight gets the 405', async () => {
    const res = await request(server.url, { method: 'OPTIONS', headers: preflightHeaders(LOOPBACK_PAGE, 'POST', 'content-type') });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST, GET, DELETE');
    expectNoCors(res);
  });

  it('keeps the 405 for an OPTIONS without Origin (not a browser)', async () => {
    const res = await request(server.url, { method: 'OPTIONS' });
    expectRefusal(res, 405, /^Method Not Allowed: OPTIONS/);
    expect(res.headers.allow).toBe('POST, GET, DELETE');
    expectNoCors(res);
  });

  it('answers an OPTIONS from a CORS origin that is not a preflight (no Access-Control-Request-Method) with the 405, readable', async () => {
    const res = await request(server.url, { method: 'OPTIONS', headers: { origin: PAGE } });
    expectRefusal(res, 405, /^Method Not Allowed: OPTIONS/);
    expectCorsFor(res);
    expect(res.headers['access-control-allow-methods']).toBeUndefined();
  });

  it('still refuses a bad Host before anything else, preflights included (DNS rebinding)', async () => {
    const res = await request(server.url, { method: 'OPTIONS', headers: { ...preflightHeaders(PAGE, 'POST', 'content-type'), host: 'rebound.example.com' } });
    expectRefusal(res, 403, /^Forbidden: Host rebound\.example\.com is not allowed$/);
    expectNoCors(res);
  });
});

describe('CORS on: the headers on answers', () => {
  let server: McpHttpServer;
  beforeAll(async () => {
    server = await startServer(new Fixture(), { cors: { origins: [PAGE] } });
  });
  afterAll(() => server.close());

  it('exposes Mcp-Session-Id on the initialize answer (JSON)', async () => {
    const { res } = await initialize(server.url);
    expectCorsFor(res);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('puts the headers on SSE answers to POSTs, which are written on the raw socket', async () => {
    const { session } = await initialize(server.url);
    const stream = await openSse(server.url, { method: 'POST', headers: postHeaders(session, { origin: PAGE }), body: callTool(1, 'ping') });
    expectCorsFor(stream.res);
    expect((await stream.nextEvent())?.data).toBe(''); // the priming event
    expect((await stream.nextEvent())?.message.result.content).toEqual([{ type: 'text', text: 'pong' }]);
  });

  it('puts the headers on the standalone GET stream', async () => {
    const { session } = await initialize(server.url);
    const stream = await openSse(server.url, { method: 'GET', headers: { ...getHeaders(session), origin: PAGE } });
    expectCorsFor(stream.res);
    stream.abort();
  });

  it('puts the headers on DELETE and 202 answers', async () => {
    const { session } = await initialize(server.url);
    const ack = await request(server.url, { method: 'POST', headers: postHeaders(session, { origin: PAGE }), body: notification('notifications/cancelled', { requestId: 99 }) });
    expect(ack.status).toBe(202);
    expectCorsFor(ack);
    const deleted = await request(server.url, { method: 'DELETE', headers: { origin: PAGE, 'mcp-session-id': session, 'mcp-protocol-version': LATEST } });
    expect(deleted.status).toBe(200);
    expectCorsFor(deleted);
  });

  it('puts the headers on refusals, so the page can read why', async () => {
    const noSession = await request(server.url, { method: 'POST', headers: postHeaders(undefined, { origin: PAGE }), body: rpc(1, 'tools/list') });
    expectRefusal(noSession, 400, /Mcp-Session-Id header is required/);
    expectCorsFor(noSession);
    const badVersion = await request(server.url, { method: 'POST', headers: postHeaders(undefined, { origin: PAGE, 'mcp-protocol-version': '1999-01-01' }), body: initializeBody() });
    expect(badVersion.status).toBe(400);
    expectCorsFor(badVersion);
    const unknown = await request(server.url, { method: 'POST', headers: postHeaders('no-such-session', { origin: PAGE }), body: rpc(1, 'tools/list') });
    expect(unknown.status).toBe(404);
    expectCorsFor(unknown);
  });

  it('refuses a POST from any other origin with 403, without CORS headers', async () => {
    const res = await request(server.url, { method: 'POST', headers: postHeaders(undefined, { origin: OTHER }), body: initializeBody() });
    expectRefusal(res, 403, /^Forbidden: Origin/);
    expectNoCors(res);
  });

  it('leaves clients without Origin (native ones) alone: served, no CORS headers', async () => {
    const { res } = await initialize(server.url, null);
    expect(res.status).toBe(200);
    expectNoCors(res);
  });

  it('keeps the default Origin check: a loopback page is still served, without CORS headers', async () => {
    const { res } = await initialize(server.url, LOOPBACK_PAGE);
    expect(res.status).toBe(200);
    expectNoCors(res);
  });
});

describe('CORS and allowedOrigins', () => {
  it('adds the CORS origins to an explicit allowedOrigins list; everything else still gets 403', async () => {
    const server = await startServer(new Fixture(), { allowedOrigins: ['https://admin.example.com'], cors: { origins: [PAGE] } });
    try {
      expect((await initialize(server.url, PAGE)).res.status).toBe(200);
      const admin = await initialize(server.url, 'https://admin.example.com');
      expect(admin.res.status).toBe(200);
      expectNoCors(admin.res); // allowed to call, but CORS is not on for it
      const loopback = await request(server.url, { method: 'POST', headers: postHeaders(undefined, { origin: LOOPBACK_PAGE }), body: initializeBody() });
      expect(loopback.status).toBe(403); // the list replaced the loopback default
    } finally {
      await server.close();
    }
  });

  it('with origins ["*"], lets any page call and read (Access-Control-Allow-Origin: *)', async () => {
    const server = await startServer(new Fixture(), { cors: { origins: ['*'] } });
    try {
      const preflight = await request(server.url, { method: 'OPTIONS', headers: preflightHeaders(OTHER, 'POST', 'content-type') });
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('*');
      const { res } = await initialize(server.url, OTHER);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it('with credentials, sends Access-Control-Allow-Credentials; extra headers and maxAgeSec apply', async () => {
    const server = await startServer(new Fixture(), {
      cors: { origins: [PAGE], credentials: true, maxAgeSec: 0, allowedHeaders: ['X-Trace-Id', 'mcp-param-region'], exposedHeaders: ['X-Request-Id'] },
    });
    try {
      const preflight = await request(server.url, { method: 'OPTIONS', headers: preflightHeaders(PAGE, 'POST', 'content-type,x-trace-id') });
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-credentials']).toBe('true');
      expect(preflight.headers['access-control-max-age']).toBe('0');
      expect(listed(preflight.headers['access-control-allow-headers'])).toEqual(expect.arrayContaining(['mcp-session-id', 'x-trace-id', 'mcp-param-region']));
      const { res } = await initialize(server.url, PAGE);
      expect(res.headers['access-control-allow-credentials']).toBe('true');
      expect(listed(res.headers['access-control-expose-headers'])).toEqual(expect.arrayContaining(['mcp-session-id', 'x-request-id']));
    } finally {
      await server.close();
    }
  });

  it('sends no CORS headers when the option is off (the default), and OPTIONS keeps its 405', async () => {
    const server = await startServer(new Fixture());
    try {
      const preflight = await request(server.url, { method: 'OPTIONS', headers: preflightHeaders(LOOPBACK_PAGE, 'POST', 'content-type') });
      expect(preflight.status).toBe(405);
      expectNoCors(preflight);
      const { res } = await initialize(server.url, LOOPBACK_PAGE);
      expectNoCors(res);
      expect(res.headers.vary).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});

describe('CORS configurations refused at startup', () => {
  const start = (cors: ListenOptions['cors']) => startServer(new Fixture(), { cors });

  it('refuses "*" with credentials, saying why', async () => {
    await expect(start({ origins: ['*'], credentials: true })).rejects.toThrow(/^cors: credentials cannot be combined with origins "\*": .* list the origins instead$/);
  });

  it.each([
    [[], /needs at least one origin/],
    [['*', PAGE], /"\*" stands alone/],
    [['https://app.example.com/mcp'], /is not an origin: write scheme:\/\/host\[:port\]/],
    [['app.example.com'], /is not an origin/],
    [['https://*.example.com'], /no wildcard/],
    [['null'], /"null" cannot be allowed/],
    [['https://app.example.com:99999'], /host or port is invalid/],
  ] as [string[], RegExp][])('refuses origins %j', async (origins, message) => {
    await expect(start({ origins })).rejects.toThrow(message);
  });

  it('refuses a bad maxAgeSec and header names that are not header names', async () => {
    await expect(start({ origins: [PAGE], maxAgeSec: -1 })).rejects.toThrow(/maxAgeSec/);
    await expect(start({ origins: [PAGE], allowedHeaders: ['bad header'] })).rejects.toThrow(/"bad header" is not a header name/);
    await expect(start({ origins: [PAGE], allowedHeaders: ['*'] })).rejects.toThrow(/"\*" is not a header name/);
  });

  it('writes origins as browsers send them', () => {
    expect(normalizeOrigin('HTTPS://App.Example.com:443/')).toBe('https://app.example.com');
    expect(normalizeOrigin('http://127.0.0.1:5173')).toBe('http://127.0.0.1:5173');
    expect(normalizeOrigin('http://[::1]:80')).toBe('http://[::1]');
    expect(normalizeOrigin('chrome-extension://ABCdef')).toBe('chrome-extension://abcdef');
    expect(resolveCors({ origins: ['https://a.example.com', 'https://A.example.com/'] })).toEqual({
      origins: ['https://a.example.com'],
      credentials: false,
      maxAgeSec: 7200,
      allowedHeaders: CORS_ALLOWED_HEADERS,
      exposedHeaders: CORS_EXPOSED_HEADERS,
    });
  });

  it('accepts the options shown in docs/transports.md', () => {
    expect(resolveCors(corsOptions.cors)?.origins).toEqual(['https://app.example.com', 'http://localhost:5173']);
  });
});

describe('CORS with authorization: 401s and the metadata document', () => {
  let server: McpHttpServer;
  let base: string;
  const verifier = async (token: string) => {
    if (token !== 'good') throw new InvalidTokenError('unknown token');
    return { subject: 'alice', scopes: [], claims: {} };
  };
  beforeAll(async () => {
    server = await startServer(new Fixture(), {
      cors: { origins: [PAGE] },
      auth: { resource: 'http://127.0.0.1/mcp', authorizationServers: ['https://issuer.test'], verifier },
    });
    base = new URL(server.url).origin;
  });
  afterAll(() => server.close());

  it('answers the preflight of an Authorization header without a token (preflights carry none)', async () => {
    const res = await request(server.url, { method: 'OPTIONS', headers: preflightHeaders(PAGE, 'POST', 'authorization,content-type') });
    expect(res.status).toBe(204);
    expect(listed(res.headers['access-control-allow-headers'])).toContain('authorization');
  });

  it('lets the page read the 401 and its WWW-Authenticate', async () => {
    const res = await request(server.url, { method: 'POST', headers: postHeaders(undefined, { origin: PAGE }), body: initializeBody() });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer resource_metadata=/);
    expectCorsFor(res);
  });

  it('serves a page with a good token', async () => {
    const res = await request(server.url, { method: 'POST', headers: postHeaders(undefined, { origin: PAGE, authorization: 'Bearer good' }), body: initializeBody() });
    expect(res.status).toBe(200);
    expectCorsFor(res);
  });

  it.each(['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'])('serves %s to the page, preflight included', async (path) => {
    const preflight = await request(`${base}${path}`, { method: 'OPTIONS', headers: preflightHeaders(PAGE, 'GET', 'mcp-protocol-version') });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(PAGE);
    expect(listed(preflight.headers['access-control-allow-headers'])).toContain('mcp-protocol-version');
    const res = await request(`${base}${path}`, { headers: { origin: PAGE, 'mcp-protocol-version': LATEST } });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(PAGE);
    expect(JSON.parse(res.body).resource).toBe('http://127.0.0.1/mcp');
  });

  it('gives the metadata no CORS for other origins, and other /.well-known paths none either', async () => {
    const other = await request(`${base}/.well-known/oauth-protected-resource`, { headers: { origin: OTHER } });
    expect(other.status).toBe(200); // public, as before: only the browser keeps it from the page
    expectNoCors(other);
    const otherPreflight = await request(`${base}/.well-known/oauth-protected-resource`, { method: 'OPTIONS', headers: preflightHeaders(OTHER, 'GET', 'mcp-protocol-version') });
    expect(otherPreflight.status).toBe(404);
    expectNoCors(otherPreflight);
    const elsewhere = await request(`${base}/.well-known/openid-configuration`, { method: 'OPTIONS', headers: preflightHeaders(PAGE, 'GET', 'mcp-protocol-version') });
    expect(elsewhere.status).toBe(404);
    expectNoCors(elsewhere);
  });

  it('leaves the health routes without CORS', async () => {
    const res = await request(`${base}/healthz`, { headers: { origin: PAGE } });
    expect(res.status).toBe(200);
    expectNoCors(res);
  });
});

describe('the plugin with CORS, under a prefix, next to the app’s own routes', () => {
  const app = Fastify({ loggerInstance: pino({ level: 'silent' }) });
  let base: string;
  beforeAll(async () => {
    app.get('/hello', async () => ({ hello: 'world' }));
    app.put('/api/things', async () => ({ put: true }));
    await app.register(mcpx, { server: new Fixture(), prefix: '/api', cors: { origins: [PAGE] } });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => app.close());

  it('answers preflights and sets the headers on the endpoint', async () => {
    const preflight = await request(`${base}/api/mcp`, { method: 'OPTIONS', headers: preflightHeaders(PAGE, 'POST', 'content-type') });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(PAGE);
    expectCorsFor((await initialize(`${base}/api/mcp`)).res);
  });

  it("gives the app's routes no CORS: a preflight to them gets the 404 it got before", async () => {
    const preflight = await request(`${base}/api/things`, { method: 'OPTIONS', headers: preflightHeaders(PAGE, 'PUT', 'content-type') });
    expect(preflight.status).toBe(404);
    expectNoCors(preflight);
    const hello = await request(`${base}/hello`, { headers: { origin: PAGE } });
    expect(hello.status).toBe(200);
    expectNoCors(hello);
  });

  it('refuses to start when the app already registers @fastify/cors, saying where to configure it', async () => {
    const other = Fastify({ loggerInstance: pino({ level: 'silent' }) });
    await other.register(fastifyCors, { origin: [PAGE] });
    await expect(other.register(mcpx, { server: new Fixture(), prefix: '/api', cors: { origins: [PAGE] } })).rejects.toThrow(/^cors: this app already registers @fastify\/cors/);
    await other.close();
  });

  it('with the app’s own @fastify/cors and the option off, serves as before', async () => {
    const other = Fastify({ loggerInstance: pino({ level: 'silent' }) });
    await other.register(fastifyCors, { origin: [PAGE], exposedHeaders: ['Mcp-Session-Id'] });
    await other.register(mcpx, { server: new Fixture(), prefix: '/api' });
    await other.listen({ host: '127.0.0.1', port: 0 });
    try {
      const url = `http://127.0.0.1:${(other.server.address() as AddressInfo).port}/api/mcp`;
      const { res } = await initialize(url, 'http://localhost:3000');
      expect(res.status).toBe(200);
    } finally {
      await other.close();
    }
  });
});
