import 'reflect-metadata';
import http from 'node:http';
import { McpServer, Server, Tool, type RequestContext } from '@mcpx/core';
import type { McpHttpServer } from '@mcpx/http';
import {
  ACCEPT_BOTH,
  Gate,
  JSON_TYPE,
  LATEST,
  callTool,
  deleteSession,
  getHeaders,
  getSse,
  initializeBody,
  jsonOf,
  notification,
  openSession,
  post,
  postHeaders,
  postSse,
  request,
  rpc,
  rpcErrorOf,
  seqOf,
  startServer,
  streamOf,
  summarize,
  waitFor,
  type RawResponse,
  type SseBlock,
} from './http-kit';

const TRANSPORT_ERROR = -32000;

@Server({ name: 'raw-fixture', version: '1.0.0' })
class Fixture extends McpServer {
  gate = new Gate();

  @Tool({ description: 'Reports progress and logs, then answers' })
  chatter(_input: void, ctx: RequestContext) {
    ctx.progress(1, 2, 'half');
    ctx.log.info('working');
    ctx.progress(2, 2, 'all');
    return 'chatted';
  }

  @Tool({ description: 'Waits for the test to open its gate' })
  async hold(_input: void, ctx: RequestContext) {
    ctx.progress(1);
    await this.gate.promise;
    return 'held';
  }
}

const fresh = () => new Fixture();

describe('Streamable HTTP, raw: header and body checks', () => {
  let server: McpHttpServer;
  let url: string;
  let port: number;
  let session: string;

  beforeAll(async () => {
    // A server-set default level: these tests read log lines as stream events without calling logging/setLevel.
    server = await startServer(fresh(), { clientLogLevel: 'info' });
    url = server.url;
    port = Number(new URL(url).port);
    session = await openSession(url);
  });
  afterAll(() => server.close());

  describe('Accept', () => {
    it.each([
      ['only application/json', 'application/json'],
      ['only text/event-stream', 'text/event-stream'],
      ['a wildcard', '*/*'],
      ['nothing', undefined],
    ])('refuses a POST whose Accept lists %s with 406', async (_what, accept) => {
      const res = await post(url, rpc(1, 'tools/list'), session, { accept });
      expect(res.status).toBe(406);
      const error = rpcErrorOf(res);
      expect(error.code).toBe(TRANSPORT_ERROR);
      expect(error.message).toBe('Not Acceptable: Accept must list both application/json and text/event-stream');
    });

    it('accepts both types with parameters and in any order', async () => {
      const res = await post(url, rpc(1, 'ping'), session, { accept: 'text/event-stream;q=1, application/json; q=0.5' });
      expect(res.status).toBe(200);
    });

    it.each([
      ['application/json', 'application/json'],
      ['nothing', undefined],
    ])('refuses a GET whose Accept lists %s with 406 (text/event-stream is required)', async (_what, accept) => {
      const res = await request(url, { headers: { ...getHeaders(session), accept } });
      expect(res.status).toBe(406);
      const error = rpcErrorOf(res);
      expect(error.code).toBe(TRANSPORT_ERROR);
      expect(error.message).toBe('Not Acceptable: Accept must list text/event-stream');
    });
  });

  describe('Content-Type', () => {
    it.each([
      ['text/plain', 'text/plain'],
      ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
      ['no Content-Type', undefined],
    ])('refuses %s with 415', async (_what, contentType) => {
      const res = await post(url, rpc(1, 'ping'), session, { 'content-type': contentType });
      expect(res.status).toBe(415);
      const error = rpcErrorOf(res);
      expect(error.code).toBe(TRANSPORT_ERROR);
      expect(error.message).toBe('Unsupported Media Type: Content-Type must be application/json');
    });

    it('accepts application/json with a charset', async () => {
      const res = await post(url, rpc(1, 'ping'), session, { 'content-type': 'application/json; charset=utf-8' });
      expect(res.status).toBe(200);
    });
  });

  describe('body', () => {
    it.each([
      ['truncated JSON', '{"jsonrpc":"2.0","id":1,'],
      ['not JSON at all', 'hello'],
      ['an empty body', ''],
    ])('answers %s with 400 and a -32700 parse error', async (_what, body) => {
      const res = await post(url, body, session);
      expect(res.status).toBe(400);
      const error = rpcErrorOf(res);
      expect(error.code).toBe(-32700);
      expect(error.message).toMatch(/^Parse error: /);
    });

    it('answers a batch array with 400 and -32600, saying batches are not supported', async () => {
      const res = await post(url, `[${rpc(1, 'ping')},${rpc(2, 'ping')}]`, session);
      expect(res.status).toBe(400);
      const error = rpcErrorOf(res);
      expect(error.code).toBe(-32600);
      expect(error.message).toMatch(/batch arrays are not supported/);
    });

    it('answers a wrong jsonrpc version with 400 and -32600', async () => {
      const res = await post(url, JSON.stringify({ jsonrpc: '1.0', method: 'ping' }), session);
      expect(res.status).toBe(400);
      const error = rpcErrorOf(res);
      expect(error.code).toBe(-32600);
      expect(error.message).toBe('Invalid Request: "jsonrpc" must be "2.0"');
    });

    it('answers a JSON value that is no message with 400 and -32600', async () => {
      for (const body of ['42', 'null', '{"jsonrpc":"2.0"}']) {
        const res = await post(url, body, session);
        expect(res.status).toBe(400);
        expect(rpcErrorOf(res).code).toBe(-32600);
      }
    });
  });

  describe('sessions', () => {
    it('answers a non-initialize POST without Mcp-Session-Id with 400', async () => {
      const res = await post(url, rpc(1, 'tools/list'));
      expect(res.status).toBe(400);
      const error = rpcErrorOf(res, 1); // the body was parsed: the request's id is echoed
      expect(error.code).toBe(TRANSPORT_ERROR);
      expect(error.message).toBe('Bad Request: Mcp-Session-Id header is required');
    });

    it('answers an unknown session with 404 on POST, GET and DELETE', async () => {
      const unknown = 'no-such-session-0123456789';
      // POST echoes the id of the request it refused; GET and DELETE carry none.
      const responses: [RawResponse, number | undefined][] = [
        [await post(url, rpc(1, 'tools/list'), unknown), 1],
        [await request(url, { headers: getHeaders(unknown) }), undefined],
        [await deleteSession(url, unknown), undefined],
      ];
      for (const [res, id] of responses) {
        expect(res.status).toBe(404);
        const error = rpcErrorOf(res, id);
        expect(error.code).toBe(TRANSPORT_ERROR);
        expect(error.message).toMatch(/^Session not found: it expired or was (already )?deleted/);
      }
    });

    it('refuses initialize sent inside an existing session with 400', async () => {
      const res = await post(url, initializeBody(), session);
      expect(res.status).toBe(400);
      expect(rpcErrorOf(res, 0).message).toBe('Bad Request: initialize starts a new session; send it without Mcp-Session-Id');
    });

    it('answers initialize as JSON with a session id of visible ASCII, new each time', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 3; i++) {
        const res = await post(url, initializeBody());
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        const id = res.headers['mcp-session-id'] as string;
        expect(id).toMatch(/^[\x21-\x7e]{16,}$/);
        ids.add(id);
        const body = jsonOf(res);
        expect(body).toMatchObject({ jsonrpc: '2.0', id: 0, result: { protocolVersion: LATEST, serverInfo: { name: 'raw-fixture' } } });
        expect((await deleteSession(url, id)).status).toBe(200);
      }
      expect(ids.size).toBe(3);
    });

    it('ends a session on DELETE: afterwards every use of it answers 404', async () => {
      const id = await openSession(url);
      expect((await post(url, rpc(1, 'ping'), id)).status).toBe(200);
      const deleted = await deleteSession(url, id);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toBe('');
      expect(server.endpoint.sessions.get(id)).toBeUndefined();
      expect((await post(url, rpc(2, 'ping'), id)).status).toBe(404);
      expect((await request(url, { headers: getHeaders(id) })).status).toBe(404);
      expect((await post(url, notification('notifications/initialized'), id)).status).toBe(404);
      expect((await deleteSession(url, id)).status).toBe(404);
    });

    it('answers DELETE without a session id with 400', async () => {
      const res = await request(url, { method: 'DELETE' });
      expect(res.status).toBe(400);
      expect(rpcErrorOf(res).message).toBe('Bad Request: Mcp-Session-Id header is required');
    });
  });

  describe('MCP-Protocol-Version', () => {
    it.each(['2024-01-01', '2024-11-05', 'latest', ''])('refuses the header %j with 400', async (version) => {
      for (const res of [
        await post(url, rpc(1, 'tools/list'), session, { 'mcp-protocol-version': version }),
        await request(url, { headers: { ...getHeaders(session), 'mcp-protocol-version': version } }),
      ]) {
        expect(res.status).toBe(400);
        const error = rpcErrorOf(res);
        expect(error.code).toBe(TRANSPORT_ERROR);
        expect(error.message).toBe(`Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(version)}`);
      }
    });

    it.each(['2025-11-25', '2025-06-18', '2025-03-26'])('accepts any supported version (%s) on a 2025-11-25 session', async (version) => {
      const res = await post(url, rpc(1, 'tools/list'), session, { 'mcp-protocol-version': version });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(res.body).toContain('"name":"chatter"');
    });

    it('accepts a request without the header', async () => {
      const res = await post(url, rpc(1, 'tools/list'), session, { 'mcp-protocol-version': undefined });
      expect(res.status).toBe(200);
      expect(res.body).toContain('"name":"hold"');
    });
  });

  describe('Origin (DNS rebinding)', () => {
    it.each(['https://evil.example.com', 'http://localhost.evil.example.com', 'null', 'http://127.0.0.1.nip.io:8080'])('refuses Origin %s with 403 on every method', async (origin) => {
      for (const res of [
        await post(url, initializeBody(), undefined, { origin }),
        await post(url, rpc(1, 'ping'), session, { origin }),
        await request(url, { headers: { ...getHeaders(session), origin } }),
        await request(url, { method: 'DELETE', headers: { 'mcp-session-id': session, origin } }),
      ]) {
        expect(res.status).toBe(403);
        const error = rpcErrorOf(res);
        expect(error.code).toBe(TRANSPORT_ERROR);
        expect(error.message).toBe(`Forbidden: Origin ${origin} is not allowed`);
      }
      // Refused before anything was done: the session is still there.
      expect(server.endpoint.sessions.get(session)).toBeDefined();
    });

    it.each(['http://localhost:5173', 'http://127.0.0.1:8080', 'http://127.0.0.2', 'http://[::1]:3000', 'https://localhost'])('allows the loopback Origin %s by default', async (origin) => {
      const res = await post(url, initializeBody(), undefined, { origin });
      expect(res.status).toBe(200);
      await deleteSession(url, res.headers['mcp-session-id'] as string);
    });
  });

  describe('Host (DNS rebinding, loopback connections)', () => {
    it.each(['evil.example.com', 'evil.example.com:PORT', 'localhost.evil.example.com:PORT', '127.0.0.1.nip.io:PORT'])('refuses Host %s with 403', async (host) => {
      const value = host.replace('PORT', String(port));
      const res = await post(url, rpc(1, 'ping'), session, { host: value });
      expect(res.status).toBe(403);
      const error = rpcErrorOf(res);
      expect(error.code).toBe(TRANSPORT_ERROR);
      expect(error.message).toBe(`Forbidden: Host ${value} is not allowed`);
    });

    it.each(['127.0.0.1:PORT', 'localhost:PORT', '[::1]:PORT', 'LocalHost:PORT', 'localhost'])('accepts Host %s', async (host) => {
      const res = await post(url, rpc(1, 'ping'), session, { host: host.replace('PORT', String(port)) });
      expect(res.status).toBe(200);
    });
  });

  describe('SSE wire format of a request stream', () => {
    const read = async (body: string) => {
      const stream = await postSse(url, session, body);
      expect(stream.res.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(stream.res.headers['cache-control']).toMatch(/no-cache/);
      const blocks = await stream.rest();
      expect(stream.ended).toBe(true);
      return blocks;
    };

    it('primes, numbers events <stream>_<n>, sends the response last and ends', async () => {
      const blocks = await read(callTool(7, 'chatter'));
      // Priming: an id, empty data and the retry hint, before anything else.
      const [priming, ...events] = blocks;
      expect(priming).toEqual({ id: expect.stringMatching(/^[^_]+_0$/), data: '', retry: 1000, comments: [] });
      const stream = streamOf(priming!.id!);
      expect(events.map((e) => e.id)).toEqual([1, 2, 3, 4].map((n) => `${stream}_${n}`));
      expect(summarize(events)).toEqual(['progress 1', 'log working', 'progress 2', 'result 7 chatted']);
      expect(events[0]!.message).toEqual({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p-7', progress: 1, total: 2, message: 'half' } });
      // The response is the last thing on the stream, and the stream ended right after it.
      expect(events.at(-1)!.message).toMatchObject({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'chatted' }] } });
      expect(events.every((e) => e.retry === undefined && e.comments.length === 0)).toBe(true);
    });

    it('keeps event ids unique across every stream of a session, the GET stream included', async () => {
      const get = await getSse(url, session);
      const primingOfGet = await get.next();
      const streams: SseBlock[][] = [await read(callTool(1, 'chatter')), await read(callTool(2, 'chatter')), await read(rpc(3, 'tools/list'))];
      // Request-related messages went only to their own stream: after a round trip, the GET stream still has just its priming event.
      await read(rpc(4, 'ping'));
      expect(get.blocks).toEqual([primingOfGet]);
      get.abort();

      const prefixes = streams.map((blocks) => streamOf(blocks[0]!.id!));
      expect(new Set([...prefixes, streamOf(primingOfGet!.id!)]).size).toBe(4);
      for (const blocks of streams) {
        const prefix = streamOf(blocks[0]!.id!);
        expect(blocks.every((b) => streamOf(b.id!) === prefix)).toBe(true);
        expect(blocks.map((b) => seqOf(b.id!))).toEqual(blocks.map((_, i) => i));
      }
      const ids = [primingOfGet!.id!, ...streams.flat().map((b) => b.id!)];
      expect(new Set(ids).size).toBe(ids.length);
      expect(summarize(streams[2]!)).toEqual(['result 3']);
      await waitFor(() => !server.endpoint.sessions.get(session)!.hasConnection, 'the GET connection to close');
    });
  });

  describe('202 Accepted for what is not a request', () => {
    it.each([
      ['a notification', notification('notifications/cancelled', { requestId: 'nothing-in-flight' })],
      ['a response', JSON.stringify({ jsonrpc: '2.0', id: 'srv-1', result: {} })],
      ['an error response', JSON.stringify({ jsonrpc: '2.0', id: 'srv-2', error: { code: -1, message: 'declined' } })],
    ])('answers %s with 202 and no body', async (_what, body) => {
      const res = await post(url, body, session);
      expect(res.status).toBe(202);
      expect(res.body).toBe('');
      expect(res.headers['content-type']).toBeUndefined();
    });
  });

  describe('the standalone GET stream', () => {
    it('allows one per session: a second GET answers 409 while the first is open', async () => {
      const id = await openSession(url);
      const first = await getSse(url, id);
      expect(await first.next()).toMatchObject({ id: '0_0', data: '', retry: 1000 });
      const second = await request(url, { headers: getHeaders(id) });
      expect(second.status).toBe(409);
      const error = rpcErrorOf(second);
      expect(error.code).toBe(TRANSPORT_ERROR);
      expect(error.message).toBe('Conflict: this session already has a GET stream open');
      // Once the client drops the first, a new one may open.
      first.abort();
      await waitFor(() => !server.endpoint.sessions.get(id)!.hasConnection, 'the server to see the GET connection close');
      const third = await getSse(url, id);
      expect((await third.next())?.id).toMatch(/^0_\d+$/);
      third.abort();
      await deleteSession(url, id);
    });
  });

  describe('health', () => {
    it('serves /healthz and /readyz at the root, outside the Origin/Host checks', async () => {
      const base = new URL(url).origin;
      const health = await request(`${base}/healthz`, { headers: { host: 'evil.example.com' } });
      expect(health.status).toBe(200);
      expect(jsonOf(health)).toEqual({ status: 'ok' });
      const ready = await request(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(jsonOf(ready)).toEqual({ ready: true, sessions: server.endpoint.sessions.size });
    });
  });
});

describe('Streamable HTTP, raw: options', () => {
  const servers: McpHttpServer[] = [];
  const start = async (options: Parameters<typeof startServer>[1]) => {
    const s = await startServer(fresh(), options);
    servers.push(s);
    return s;
  };
  afterAll(() => Promise.all(servers.map((s) => s.close())));

  it('allowedOrigins replaces the loopback default; * allows any', async () => {
    const { url } = await start({ allowedOrigins: ['https://app.example.com'] });
    expect((await post(url, initializeBody(), undefined, { origin: 'https://app.example.com' })).status).toBe(200);
    expect((await post(url, initializeBody(), undefined, { origin: 'HTTPS://APP.EXAMPLE.COM' })).status).toBe(200);
    for (const origin of ['https://evil.example.com', 'http://localhost:5173', 'https://app.example.com:8443']) {
      const res = await post(url, initializeBody(), undefined, { origin });
      expect(res.status).toBe(403);
      expect(rpcErrorOf(res).message).toBe(`Forbidden: Origin ${origin} is not allowed`);
    }
    const open = await start({ allowedOrigins: ['*'] });
    expect((await post(open.url, initializeBody(), undefined, { origin: 'https://anything.example' })).status).toBe(200);
  });

  it('allowedHosts replaces the loopback default: names with any port, or exact host:port', async () => {
    const { url } = await start({ allowedHosts: ['mcp.example.com', 'proxy.local:8443'] });
    const port = new URL(url).port;
    for (const host of ['mcp.example.com', 'mcp.example.com:1234', 'MCP.example.com', 'proxy.local:8443']) {
      expect((await post(url, initializeBody(), undefined, { host })).status).toBe(200);
    }
    for (const host of ['proxy.local:9000', 'proxy.local', `localhost:${port}`, `127.0.0.1:${port}`]) {
      const res = await post(url, initializeBody(), undefined, { host });
      expect(res.status).toBe(403);
      expect(rpcErrorOf(res).message).toBe(`Forbidden: Host ${host.toLowerCase()} is not allowed`);
    }
  });

  it('answers a body over maxBodyBytes with 413, with or without Content-Length', async () => {
    const { url } = await start({ maxBodyBytes: 1024 });
    const session = await openSession(url);
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(2000) } });
    const small = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping', params: { pad: 'x'.repeat(500) } });
    for (const chunked of [false, true]) {
      const res = await request(url, { method: 'POST', headers: postHeaders(session), body: big, chunked });
      expect(res.status).toBe(413);
      // The request's id, found by the bounded scan of the body.
      const error = rpcErrorOf(res, 1);
      expect(error.code).toBe(-32600);
      expect(error.message).toBe('Payload Too Large: the body exceeds 1024 bytes');
    }
    expect((await post(url, small, session)).status).toBe(200);
  });

  it('answers GET with 405 when the GET stream is disabled; DELETE still works', async () => {
    const { url } = await start({ enableGetStream: false });
    const session = await openSession(url);
    const res = await request(url, { headers: getHeaders(session) });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST, DELETE');
    const error = rpcErrorOf(res);
    expect(error.code).toBe(TRANSPORT_ERROR);
    expect(error.message).toBe('Method Not Allowed: this server offers no GET stream');
    expect((await deleteSession(url, session)).status).toBe(200);
  });

  it('stateless: GET and DELETE answer 405; requests are served without a session, streamed without ids', async () => {
    const { url } = await start({ stateless: true, clientLogLevel: 'info' });
    const get = await request(url, { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    expect(rpcErrorOf(get).message).toBe('Method Not Allowed: this server offers no GET stream');
    const del = await request(url, { method: 'DELETE', headers: { 'mcp-session-id': 'whatever' } });
    expect(del.status).toBe(405);
    expect(del.headers.allow).toBe('POST');
    expect(rpcErrorOf(del).message).toBe('Method Not Allowed: this server has no sessions');

    const init = await post(url, initializeBody());
    expect(init.status).toBe(200);
    expect(init.headers['mcp-session-id']).toBeUndefined();
    const call = await request(url, { method: 'POST', headers: { accept: ACCEPT_BOTH, 'content-type': JSON_TYPE, 'mcp-protocol-version': LATEST }, body: callTool(5, 'chatter') });
    expect(call.status).toBe(200);
    expect(call.headers['content-type']).toMatch(/^text\/event-stream/);
    // No ids and no priming: there is nothing to resume without a session.
    expect(call.body).not.toMatch(/^id:/m);
    const messages = call.body
      .split('\n\n')
      .filter(Boolean)
      .map((b) => JSON.parse(b.replace(/^data: /, '')));
    expect(messages.map((m) => m.method ?? `result ${m.id}`)).toEqual(['notifications/progress', 'notifications/message', 'notifications/progress', 'result 5']);
    expect((await post(url, notification('notifications/initialized'))).status).toBe(202);
  });

  it('maxSessions: initialize beyond the cap answers 503 with Retry-After until a session ends', async () => {
    const { url, endpoint } = await start({ maxSessions: 2 });
    const a = await openSession(url);
    await openSession(url);
    const refused = await post(url, initializeBody());
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.headers['mcp-session-id']).toBeUndefined();
    const error = rpcErrorOf(refused, 0);
    expect(error.code).toBe(TRANSPORT_ERROR);
    expect(error.message).toBe('Service Unavailable: too many open sessions');
    expect(endpoint.sessions.size).toBe(2);
    // Sessions already open are not affected.
    expect((await post(url, rpc(1, 'ping'), a)).status).toBe(200);
    await deleteSession(url, a);
    expect((await post(url, initializeBody())).status).toBe(200);
  });

  it('draining: new initialize and /readyz answer 503, requests in flight finish, /healthz stays 200', async () => {
    const fixture = fresh();
    const s = await startServer(fixture, { shutdownTimeoutMs: 5000 });
    const base = new URL(s.url).origin;
    const session = await openSession(s.url);
    const call = await postSse(s.url, session, callTool(1, 'hold'));
    await call.nextEvent(); // priming
    expect(summarize([(await call.nextEvent())!])).toEqual(['progress 1']);

    const closing = s.close();
    await waitFor(() => s.endpoint.sessions.draining, 'the endpoint to start draining');
    const init = await post(s.url, initializeBody());
    expect(init.status).toBe(503);
    expect(init.headers['retry-after']).toBe('5');
    expect(rpcErrorOf(init, 0)).toEqual({ code: TRANSPORT_ERROR, message: 'Service Unavailable: the server is shutting down' });
    const ready = await request(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(jsonOf(ready)).toEqual({ ready: false, reason: 'draining' });
    expect((await request(`${base}/healthz`)).status).toBe(200);
    // The session already open still gets answers while draining, but no new GET stream.
    expect((await post(s.url, rpc(2, 'ping'), session)).status).toBe(200);
    const get = await request(s.url, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': session } });
    expect(get.status).toBe(503);
    expect(rpcErrorOf(get)).toEqual({ code: TRANSPORT_ERROR, message: 'Service Unavailable: the server is shutting down' });

    fixture.gate.open();
    expect(summarize(await call.rest())).toEqual(['result 1 held']);
    await closing;
    // Stopped: a new connection is refused.
    await expect(request(`${base}/healthz`, { agent: new http.Agent({ keepAlive: false }) })).rejects.toThrow(/ECONNREFUSED/);
  });
});
