import 'reflect-metadata';
import http, { METHODS } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import Fastify from 'fastify';
import pino from 'pino';
import { McpServer, Server, Tool } from '@mcpx/core';
import { mcpx, type McpHttpServer, type ListenOptions } from '@mcpx/http';
import { LATEST, deleteSession, getSse, initializeBody, openSession, post, startServer, type Headers, type RawResponse } from './http-kit';

/**
 * Methods other than POST, GET and DELETE on the MCP path: 405 with an Allow header that matches
 * the mode, and a JSON-RPC error body without an id. Real HTTP requests to a listening server.
 */

@Server({ name: 'methods-fixture', version: '1.0.0' })
class Fixture extends McpServer {
  @Tool({ description: 'Answers pong' })
  ping() {
    return 'pong';
  }
}

/** Every method Node's HTTP parser passes on (CONNECT is Node's own business: it never reaches Fastify). */
const OTHER_METHODS = METHODS.filter((m) => !['POST', 'GET', 'DELETE', 'CONNECT'].includes(m));
const CLIENT_TIMEOUT_MS = 10_000;

/**
 * One request on a fresh connection, failing (rather than hanging) when no response arrives: the
 * socket timeout is generous, it only turns a hang into an error.
 */
function send(url: string, method: string, headers: Headers = {}, body?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = v;
    const req = http.request(url, { method, headers: out, agent: false, timeout: CLIENT_TIMEOUT_MS }, (res) => {
      res.setEncoding('utf8');
      let text = '';
      res.on('data', (chunk: string) => (text += chunk));
      res.once('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      res.once('error', reject);
    });
    req.once('timeout', () => req.destroy(new Error(`${method} ${url}: no response within ${CLIENT_TIMEOUT_MS} ms`)));
    req.once('error', reject);
    req.end(body);
  });
}

/**
 * A request with a `size`-byte body written on a bare socket, read to the server's close: the
 * server answers without reading the body, and Node's client, still writing, can trip over that.
 */
function sendRaw(url: string, method: string, headers: Headers, size: number): Promise<RawResponse> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let text = '';
    const done = () => {
      clearTimeout(timer);
      const head = text.slice(0, text.indexOf('\r\n\r\n'));
      if (!head) return reject(new Error(`${method} ${url}: no response (${JSON.stringify(text)})`));
      const [statusLine, ...lines] = head.split('\r\n');
      const parsed: http.IncomingHttpHeaders = {};
      for (const line of lines) parsed[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
      resolve({ status: Number(statusLine!.split(' ')[1]), headers: parsed, body: text.slice(head.length + 4) });
    };
    const timer = setTimeout(() => socket.destroy(), CLIENT_TIMEOUT_MS);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.once('close', done);
    socket.on('error', () => undefined); // EPIPE/ECONNRESET once the server is done with us: the answer is already in
    const lines = Object.entries({ host: `${hostname}:${port}`, connection: 'close', 'content-length': String(size), ...headers })
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}: ${v}`);
    socket.write(`${method} ${pathname} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
    socket.end(Buffer.alloc(size, 'x'));
  });
}

/** A 405 exactly as the endpoint must answer it. */
function expect405(res: RawResponse, method: string, allow: string): void {
  expect({ method, status: res.status, allow: res.headers.allow }).toEqual({ method, status: 405, allow });
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  if (method === 'HEAD') {
    expect(res.body).toBe(''); // a HEAD response has headers only
    return;
  }
  const body = JSON.parse(res.body);
  expect(body).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: expect.any(String) } });
  expect(body.error.message).toBe(`Method Not Allowed: ${method} is not supported by this endpoint`);
}

const quiet = () => pino({ level: 'silent' });

describe.each([
  ['stateful', {}, 'POST, GET, DELETE'],
  ['stateful without a GET stream', { enableGetStream: false }, 'POST, DELETE'],
  ['stateless', { stateless: true }, 'POST'],
  ['stateless JSON', { stateless: true, jsonResponse: true }, 'POST'],
] as [string, ListenOptions, string][])('other HTTP methods on the MCP path, %s', (_mode, options, allow) => {
  let server: McpHttpServer;
  let session: string;
  let withSession: Headers;

  beforeAll(async () => {
    server = await startServer(new Fixture(), options);
    // Stateless servers have no sessions: a made-up id is what a confused client would send.
    session = options.stateless ? 'no-such-session' : await openSession(server.url);
    withSession = { 'mcp-session-id': session, 'mcp-protocol-version': LATEST, accept: 'application/json, text/event-stream' };
  });
  afterAll(() => server.close());

  it.each(OTHER_METHODS)('answers %s without a session with 405 and Allow', async (method) => {
    expect405(await send(server.url, method), method, allow);
  });

  it.each(OTHER_METHODS)('answers %s with a session with 405 and Allow', async (method) => {
    expect405(await send(server.url, method, withSession), method, allow);
  });

  it('answers before reading the body: a body the POST route would refuse (type, size) still gets 405', async () => {
    const big = 5 * 1024 * 1024; // beyond the default maxBodyBytes
    for (const method of ['PUT', 'PATCH', 'OPTIONS', 'PROPFIND', 'QUERY']) {
      expect405(await sendRaw(server.url, method, { ...withSession, 'content-type': 'text/plain' }, big), method, allow);
    }
    // QUERY without Content-Type: Fastify would answer 400 for a QUERY route; the endpoint does not serve QUERY at all.
    expect405(await send(server.url, 'QUERY', withSession, '{}'), 'QUERY', allow);
  });

  it('gives GET and DELETE, where the mode refuses them, the same Allow', async () => {
    // (Where they are served, GET would open a stream and DELETE end the session: not sent here.)
    for (const method of ['GET', 'DELETE'].filter((m) => !allow.includes(m))) {
      const res = await send(server.url, method, withSession);
      expect({ method, status: res.status, allow: res.headers.allow }).toEqual({ method, status: 405, allow });
      expect(JSON.parse(res.body)).not.toHaveProperty('id');
    }
  });

  it('still checks Origin first: a cross-site PUT is refused with 403, not told what is allowed', async () => {
    const res = await send(server.url, 'PUT', { ...withSession, origin: 'https://evil.example.com' });
    expect(res.status).toBe(403);
    expect(res.headers.allow).toBeUndefined();
    expect(JSON.parse(res.body)).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'Forbidden: Origin https://evil.example.com is not allowed' } });
  });

  it('still serves POST', async () => {
    const res = await post(server.url, initializeBody());
    expect(res.status).toBe(200);
    const id = res.headers['mcp-session-id'];
    if (typeof id === 'string') await deleteSession(server.url, id);
  });
});

describe('HEAD on the MCP path of a live session (it used to run the GET stream handler and hang)', () => {
  let server: McpHttpServer;
  beforeAll(async () => {
    server = await startServer(new Fixture());
  });
  afterAll(() => server.close());

  it('answers 405 with headers, and opens no stream: the session can still open its GET stream', async () => {
    const session = await openSession(server.url);
    const head = await send(server.url, 'HEAD', { 'mcp-session-id': session, 'mcp-protocol-version': LATEST, accept: 'text/event-stream' });
    expect405(head, 'HEAD', 'POST, GET, DELETE');
    expect(head.headers['content-type']).not.toMatch(/event-stream/);
    // Had HEAD attached the standalone stream, this GET would get 409.
    const stream = await getSse(server.url, session);
    expect(stream.status).toBe(200);
    stream.abort();
    await deleteSession(server.url, session);
  });

  it('leaves methods Node itself refuses to Node: an unknown method gets its 400 before any route', async () => {
    const res = await send(server.url, 'BREW');
    expect(res.status).toBe(400);
    expect(res.headers.allow).toBeUndefined();
  });
});

describe('the plugin mounted under a prefix, next to the app’s own routes', () => {
  const app = Fastify({ loggerInstance: quiet() });
  let base: string;

  beforeAll(async () => {
    // A WebDAV-style method the app routes itself, added before the plugin: it stays as the app set it.
    app.addHttpMethod('MKCOL', { hasBody: true });
    app.route({ method: 'MKCOL', url: '/dav/:name', handler: async (request) => ({ created: (request.params as { name: string }).name }) });
    app.get('/hello', async () => ({ hello: 'world' }));
    app.put('/api/things', async () => ({ put: true }));
    app.setNotFoundHandler((request, reply) => reply.code(404).send({ custom: 'not found', method: request.method }));
    await app.register(mcpx, { server: new Fixture(), prefix: '/api', logger: quiet() });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => app.close());

  it.each(['HEAD', 'PUT', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'MKCOL', 'M-SEARCH', 'QUERY'])('answers %s on /api/mcp with 405', async (method) => {
    expect405(await send(`${base}/api/mcp`, method), method, 'POST, GET, DELETE');
  });

  it('serves MCP at /api/mcp', async () => {
    expect((await openSession(`${base}/api/mcp`)).length).toBeGreaterThan(0);
  });

  it("leaves the app's routes alone, HEAD of its GET routes included", async () => {
    const hello = await send(`${base}/hello`, 'GET');
    expect([hello.status, JSON.parse(hello.body)]).toEqual([200, { hello: 'world' }]);
    const head = await send(`${base}/hello`, 'HEAD');
    expect([head.status, head.body]).toEqual([200, '']);
    const put = await send(`${base}/api/things`, 'PUT');
    expect([put.status, JSON.parse(put.body)]).toEqual([200, { put: true }]);
    const mkcol = await send(`${base}/dav/box`, 'MKCOL', { 'content-type': 'application/json' }, '{}');
    expect([mkcol.status, JSON.parse(mkcol.body)]).toEqual([200, { created: 'box' }]);
  });

  it.each([
    ['GET', '/nope'],
    ['PUT', '/nope'],
    ['PROPFIND', '/nope'],
    ['M-SEARCH', '/api/other'],
    ['HEAD', '/api/other'],
    ['PUT', '/mcp'], // the endpoint's path without the prefix
    ['PATCH', '/api/things'],
  ])("leaves the app's 404s alone: %s %s", async (method, path) => {
    const res = await send(`${base}${path}`, method);
    expect(res.status).toBe(404);
    expect(res.headers.allow).toBeUndefined();
    if (method !== 'HEAD') expect(JSON.parse(res.body)).toEqual({ custom: 'not found', method });
  });
});
