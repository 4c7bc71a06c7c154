import 'reflect-metadata';
import { EventEmitter, once } from 'node:events';
import http from 'node:http';
import { McpServer, Prompt, Resource, Server, Tool, type RequestContext } from '@mcpx/core';
import type { McpHttpServer } from '@mcpx/http';
import { Gate, JSON_TYPE, callTool, jsonOf, openSession, openSse, post, postSse, request, rpc, rpcErrorOf, startServer, summarize } from './http-kit';
import { META_CAPABILITIES, META_LOG_LEVEL, META_VERSION, MODERN, messagesOf, modernBody, modernHeaders, modernMeta, modernPost, refusalOf, responseOf, sentinel } from './modern-kit';

/** What the fixture's tools tell the test, as they happen (no timers: the test waits for these). */
const events = new EventEmitter();

const REGION_SCHEMA = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    count: { type: 'integer', 'x-mcp-header': 'Count' },
    exact: { type: 'boolean', 'x-mcp-header': 'Exact' },
    where: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
    note: { type: 'string' },
  },
  required: ['region'],
};

@Server({ name: 'modern-fixture', version: '1.0.0' })
class Fixture extends McpServer {
  gate = new Gate();

  @Tool({ description: 'Reports progress and logs, then answers' })
  chatter(_input: void, ctx: RequestContext) {
    ctx.progress(1, 2, 'half');
    ctx.log.info('working');
    ctx.progress(2, 2, 'all');
    return 'chatted';
  }

  @Tool({ description: 'Runs until its request is cancelled, and says when it saw the abort' })
  async waitForCancel(_input: void, ctx: RequestContext) {
    const aborted = new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    events.emit('started');
    await aborted;
    events.emit('aborted', ctx.signal.reason instanceof Error ? ctx.signal.reason.message : String(ctx.signal.reason));
    return 'never sent';
  }

  @Tool({ description: 'Waits for the test to open its gate' })
  async hold() {
    events.emit('holding');
    await this.gate.promise;
    return 'held';
  }

  @Tool({ description: 'Asks the client model for a word (needs sampling)' })
  async needsSampling(_input: void, ctx: RequestContext) {
    const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'a word?' } }], maxTokens: 5 });
    return JSON.stringify(answer.content);
  }

  @Tool({ description: 'Says where, from arguments mirrored into headers', inputSchema: REGION_SCHEMA })
  locate(input: { region: string; count?: number; exact?: boolean; where?: { zone?: string } }) {
    return `${input.region}/${input.count ?? '-'}/${input.exact ?? '-'}/${input.where?.zone ?? '-'}`;
  }

  @Resource({ uri: 'mem://notes/café', description: 'A note whose URI is not plain ASCII' })
  cafe() {
    return 'espresso';
  }

  @Resource({ uri: 'mem://notes/welcome', description: 'A welcome note' })
  welcome() {
    return 'hello';
  }

  @Prompt({ description: 'Greets' })
  greet() {
    return 'hello there';
  }
}

const text = (response: any) => response.result?.content?.[0]?.text;

describe('2026-07-28 over Streamable HTTP, beside 2025-11-25 on the same endpoint', () => {
  let server: McpHttpServer;
  let url: string;

  beforeAll(async () => {
    server = await startServer(new Fixture());
    url = server.url;
  });
  afterAll(() => server.close());

  describe('serving', () => {
    it('answers server/discover with both eras and no session', async () => {
      const res = await modernPost(url, 1, 'server/discover');
      expect(res.status).toBe(200);
      expect(res.headers['mcp-session-id']).toBeUndefined();
      const response = responseOf(res, 1);
      expect(response.result).toMatchObject({ resultType: 'complete', supportedVersions: expect.arrayContaining([MODERN, '2025-11-25']) });
      expect(response.result.capabilities.tools).toBeDefined();
      expect(response.result._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: 'modern-fixture' });
    });

    it('streams a tools/call: its progress and (with a logLevel) its log lines, then its response; no event ids, no buffering', async () => {
      const res = await modernPost(url, 'c1', 'tools/call', {
        name: 'chatter',
        arguments: {},
        _meta: modernMeta({ progressToken: 'tok-1', [META_LOG_LEVEL]: 'info' }),
      });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(res.headers['x-accel-buffering']).toBe('no');
      expect(res.headers['mcp-session-id']).toBeUndefined();
      expect(res.body).not.toMatch(/^id:/m);
      const messages = messagesOf(res);
      expect(messages.map((m) => m.method ?? `response ${m.id}`)).toEqual(['notifications/progress', 'notifications/message', 'notifications/progress', 'response c1']);
      expect(messages[0].params).toMatchObject({ progressToken: 'tok-1', progress: 1, total: 2 });
      expect(messages[3].result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'chatted' }] });
    });

    it('sends no log lines when the request names no logLevel', async () => {
      const messages = messagesOf(await modernPost(url, 'c2', 'tools/call', { name: 'chatter', arguments: {}, _meta: modernMeta({ progressToken: 'tok-2' }) }));
      expect(messages.map((m) => m.method ?? 'response')).toEqual(['notifications/progress', 'notifications/progress', 'response']);
    });

    it('reads a resource and gets a prompt', async () => {
      expect(responseOf(await modernPost(url, 'r1', 'resources/read', { uri: 'mem://notes/welcome' }), 'r1').result).toMatchObject({
        resultType: 'complete',
        contents: [{ uri: 'mem://notes/welcome', text: 'hello' }],
        ttlMs: expect.any(Number),
        cacheScope: expect.any(String),
      });
      expect(responseOf(await modernPost(url, 'p1', 'prompts/get', { name: 'greet' }), 'p1').result.messages).toHaveLength(1);
    });

    it('answers a handler-level error with 200 (unknown tool)', async () => {
      const res = await modernPost(url, 'u1', 'tools/call', { name: 'no-such-tool', arguments: {} });
      expect(res.status).toBe(200);
      expect(responseOf(res, 'u1').error.code).toBe(-32602);
    });

    it('answers a missing client capability with 400 and -32021, naming it', async () => {
      const error = refusalOf(await modernPost(url, 'm1', 'tools/call', { name: 'needsSampling', arguments: {} }), 400, 'm1');
      expect(error.code).toBe(-32021);
      expect(error.data).toEqual({ requiredCapabilities: { sampling: {} } });
    });

    it('accepts notifications with 202 and ignores notifications/cancelled', async () => {
      const res = await request(url, {
        method: 'POST',
        headers: modernHeaders('notifications/cancelled', undefined, { 'mcp-method': undefined }),
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c1', _meta: modernMeta() } }),
      });
      expect(res.status).toBe(202);
      expect(res.body).toBe('');
    });

    it('never mints or echoes Mcp-Session-Id, and ignores one sent (and Last-Event-ID)', async () => {
      const session = await openSession(url);
      for (const sent of [session, 'no-such-session']) {
        const res = await modernPost(url, 't1', 'tools/list', {}, { 'mcp-session-id': sent, 'last-event-id': '1_3' });
        expect(res.status).toBe(200);
        expect(res.headers['mcp-session-id']).toBeUndefined();
        expect(responseOf(res, 't1').result.tools.map((t: { name: string }) => t.name)).toContain('locate');
      }
    });

    it('serves a legacy client (initialize, session) on the same endpoint meanwhile', async () => {
      const session = await openSession(url);
      const stream = await postSse(url, session, callTool(7, 'chatter'));
      expect(summarize(await stream.rest())).toEqual(['progress 1', 'progress 2', 'result 7 chatted']);
      const list = await post(url, rpc(8, 'tools/list'), session);
      expect(list.status).toBe(200);
      expect(list.body).not.toContain('resultType');
    });
  });

  describe('refusals of the request as a whole (status and JSON-RPC code exact, id echoed)', () => {
    const withoutMeta = (id: number, method: string, meta: Record<string, unknown> | undefined) =>
      JSON.stringify({ jsonrpc: '2.0', id, method, params: meta === undefined ? {} : { _meta: meta } });

    it.each([
      ['no _meta at all', undefined],
      ['no protocolVersion in _meta', { [META_CAPABILITIES]: {} }],
      ['no clientCapabilities in _meta', { [META_VERSION]: MODERN }],
      ['clientCapabilities that are not an object', { [META_VERSION]: MODERN, [META_CAPABILITIES]: 'all' }],
      ['a malformed logLevel', { [META_VERSION]: MODERN, [META_CAPABILITIES]: {}, [META_LOG_LEVEL]: 'loud' }],
    ])('400 and -32602 for %s', async (_what, meta) => {
      const res = await request(url, { method: 'POST', headers: modernHeaders('server/discover'), body: withoutMeta(11, 'server/discover', meta) });
      expect(refusalOf(res, 400, 11).code).toBe(-32602);
    });

    it('400 and -32022 for a version no era serves, listing the supported ones', async () => {
      const body = withoutMeta(12, 'server/discover', { [META_VERSION]: '1900-01-01', [META_CAPABILITIES]: {} });
      const error = refusalOf(await request(url, { method: 'POST', headers: modernHeaders('server/discover', undefined, { 'mcp-protocol-version': '1900-01-01' }), body }), 400, 12);
      expect(error.code).toBe(-32022);
      expect(error.data).toEqual({ supported: [MODERN, '2025-11-25', '2025-06-18', '2025-03-26'], requested: '1900-01-01' });
    });

    it('400 and -32022 for a legacy version claimed in _meta (a modern request must speak a modern version)', async () => {
      const body = withoutMeta(13, 'tools/list', { [META_VERSION]: '2025-11-25', [META_CAPABILITIES]: {} });
      const error = refusalOf(await request(url, { method: 'POST', headers: modernHeaders('tools/list', undefined, { 'mcp-protocol-version': '2025-11-25' }), body }), 400, 13);
      expect(error.code).toBe(-32022);
      expect(error.data.requested).toBe('2025-11-25');
    });

    it('400 and -32022 (no id) for a version no era serves on a POST whose body is not modern', async () => {
      const res = await post(url, rpc(14, 'tools/list'), undefined, { 'mcp-protocol-version': '1900-01-01' });
      const error = rpcErrorOf(res);
      expect(res.status).toBe(400);
      expect(error).toMatchObject({ code: -32022, data: { supported: expect.arrayContaining([MODERN, '2025-11-25']), requested: '1900-01-01' } });
      expect(error.message).toMatch(/MCP-Protocol-Version "1900-01-01"/);
    });

    it.each([
      ['no MCP-Protocol-Version header', { 'mcp-protocol-version': undefined }],
      ['a legacy MCP-Protocol-Version header', { 'mcp-protocol-version': '2025-11-25' }],
      ['an unknown MCP-Protocol-Version header', { 'mcp-protocol-version': '2099-01-01' }],
      ['no Mcp-Method header', { 'mcp-method': undefined }],
      ['an Mcp-Method header naming another method', { 'mcp-method': 'prompts/list' }],
      ['an Mcp-Method header differing in case', { 'mcp-method': 'TOOLS/LIST' }],
    ])('400 and -32020 for %s', async (_what, headers) => {
      expect(refusalOf(await modernPost(url, 15, 'tools/list', {}, headers), 400, 15).code).toBe(-32020);
    });

    it('400 and -32020 when the header names the modern version and _meta another (mismatch is told before the version)', async () => {
      const body = withoutMeta(16, 'server/discover', { [META_VERSION]: 'v999.0.0', [META_CAPABILITIES]: {} });
      expect(refusalOf(await request(url, { method: 'POST', headers: modernHeaders('server/discover'), body }), 400, 16).code).toBe(-32020);
    });

    it.each([
      ['tools/call', { name: 'chatter', arguments: {} }],
      ['prompts/get', { name: 'greet' }],
      ['resources/read', { uri: 'mem://notes/welcome' }],
    ])('400 and -32020 for %s without Mcp-Name, or with one naming something else', async (method, params) => {
      expect(refusalOf(await modernPost(url, 17, method, params, { 'mcp-name': undefined }), 400, 17).code).toBe(-32020);
      const other = refusalOf(await modernPost(url, 18, method, params, { 'mcp-name': 'something-else' }), 400, 18);
      expect(other.code).toBe(-32020);
      expect(other.message).toMatch(/^Header mismatch: Mcp-Name header value "something-else" does not match/);
    });

    it.each([['initialize'], ['ping'], ['logging/setLevel'], ['resources/subscribe'], ['no/such-method']])('404 and -32601 for %s, a method 2026-07-28 does not have', async (method) => {
      expect(refusalOf(await modernPost(url, 19, method), 404, 19).code).toBe(-32601);
    });

    it('400 and the -32600 of the message for a body that is no request, as for any client', async () => {
      const res = await request(url, { method: 'POST', headers: modernHeaders('tools/list'), body: '{"jsonrpc":"2.0"}' });
      expect(res.status).toBe(400);
      expect(rpcErrorOf(res).code).toBe(-32600);
    });

    it('keeps the Accept and Content-Type checks', async () => {
      expect((await modernPost(url, 20, 'tools/list', {}, { accept: JSON_TYPE })).status).toBe(406);
      expect((await modernPost(url, 21, 'tools/list', {}, { 'content-type': 'text/plain' })).status).toBe(415);
      expect((await modernPost(url, 22, 'tools/list', {}, { origin: 'https://evil.example.com' })).status).toBe(403);
    });
  });

  describe('Mcp-Name and Mcp-Param-* values', () => {
    it('decodes a Base64 sentinel Mcp-Name before comparing (a URI that is not plain ASCII)', async () => {
      const res = await modernPost(url, 30, 'resources/read', { uri: 'mem://notes/café' }, { 'mcp-name': sentinel('mem://notes/café') });
      expect(responseOf(res, 30).result.contents[0]).toMatchObject({ uri: 'mem://notes/café', text: 'espresso' });
      // A plain name may be encoded too.
      expect(text(responseOf(await modernPost(url, 31, 'tools/call', { name: 'chatter', arguments: {} }, { 'mcp-name': sentinel('chatter') }), 31))).toBe('chatted');
    });

    it.each([
      ['unpadded Base64', '=?base64?Y2hhdHRlcg?='],
      ['characters outside Base64', '=?base64?Y2hh!!dHRlcg==?='],
      ['Base64 of bytes that are not UTF-8', `=?base64?${Buffer.from([0xff, 0xfe]).toString('base64')}?=`],
    ])('400 and -32020 for an Mcp-Name sentinel with %s', async (_what, value) => {
      expect(refusalOf(await modernPost(url, 32, 'tools/call', { name: 'chatter', arguments: {} }, { 'mcp-name': value }), 400, 32).code).toBe(-32020);
    });

    const locate = (id: number, args: Record<string, unknown>, headers: Record<string, string | undefined>) =>
      modernPost(url, id, 'tools/call', { name: 'locate', arguments: args }, headers);

    it('accepts Mcp-Param-* headers that match: strings (plain or encoded), integers numerically, booleans, nested properties', async () => {
      const res = await locate(
        40,
        { region: 'eu-west', count: 42, exact: true, where: { zone: 'Zürich' } },
        {
          'mcp-param-region': 'eu-west',
          'MCP-PARAM-COUNT': '42.0',
          'mcp-param-exact': 'true',
          'mcp-param-zone': sentinel('Zürich'),
        },
      );
      expect(text(responseOf(res, 40))).toBe('eu-west/42/true/Zürich');
    });

    it('expects no header for a parameter the call leaves out, and takes values that only look encoded literally', async () => {
      expect(text(responseOf(await locate(41, { region: 'SGVsbG8=' }, { 'mcp-param-region': 'SGVsbG8=' }), 41))).toBe('SGVsbG8=/-/-/-');
      expect(text(responseOf(await locate(42, { region: '=?base64?SGVsbG8=' }, { 'mcp-param-region': '=?base64?SGVsbG8=' }), 42))).toBe('=?base64?SGVsbG8=/-/-/-');
    });

    it('expects no header for a null value (the call then fails on its arguments, at 200)', async () => {
      const res = await locate(43, { region: 'x', count: null }, { 'mcp-param-region': 'x' });
      expect(res.status).toBe(200);
      expect(responseOf(res, 43).error?.code ?? responseOf(res, 43).result.isError).toBeTruthy();
    });

    it.each([
      ['a missing header for a value in the body', { region: 'eu-west' }, {}],
      ['a string that differs', { region: 'eu-west' }, { 'mcp-param-region': 'us-east' }],
      ['a string that differs in case', { region: 'eu-west' }, { 'mcp-param-region': 'EU-WEST' }],
      ['an integer that differs', { region: 'a', count: 42 }, { 'mcp-param-region': 'a', 'mcp-param-count': '43' }],
      ['an integer header that is no number', { region: 'a', count: 42 }, { 'mcp-param-region': 'a', 'mcp-param-count': 'forty-two' }],
      ['a boolean not written true/false', { region: 'a', exact: true }, { 'mcp-param-region': 'a', 'mcp-param-exact': 'True' }],
      ['a nested value without its header', { region: 'a', where: { zone: 'z1' } }, { 'mcp-param-region': 'a' }],
      ['unpadded Base64', { region: 'Hello' }, { 'mcp-param-region': '=?base64?SGVsbG8?=' }],
      ['characters outside Base64', { region: 'Hello' }, { 'mcp-param-region': '=?base64?SGVs!!!bG8=?=' }],
      ['a header for a value the body does not have', { region: 'a' }, { 'mcp-param-region': 'a', 'mcp-param-count': '1' }],
    ])('400 and -32020 for %s', async (_what, args, headers) => {
      const error = refusalOf(await locate(44, args, headers), 400, 44);
      expect(error.code).toBe(-32020);
      expect(error.message).toMatch(/^Header mismatch: .*Mcp-Param-/);
    });

    it('accepts a Base64-encoded parameter that matches', async () => {
      expect(text(responseOf(await locate(45, { region: 'Hello' }, { 'mcp-param-region': '=?base64?SGVsbG8=?=' }), 45))).toBe('Hello/-/-/-');
    });

    it('ignores Mcp-Param-* headers of tools that declare none', async () => {
      expect(text(responseOf(await modernPost(url, 46, 'tools/call', { name: 'chatter', arguments: {} }, { 'mcp-param-region': 'anything' }), 46))).toBe('chatted');
    });
  });

  describe('GET and DELETE', () => {
    it.each([['GET'], ['DELETE']])('%s with a 2026-07-28 MCP-Protocol-Version: 405, Allow: POST', async (method) => {
      const res = await request(url, { method, headers: { accept: 'text/event-stream', 'mcp-protocol-version': MODERN } });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('POST');
      expect(rpcErrorOf(res).message).toMatch(/^Method Not Allowed/);
    });

    it('GET and DELETE in a legacy session are unchanged', async () => {
      const session = await openSession(url);
      const deleted = await request(url, { method: 'DELETE', headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } });
      expect(deleted.status).toBe(200);
    });
  });

  describe('cancellation: closing the response cancels the request', () => {
    it('over SSE: the handler sees its signal abort', async () => {
      const started = once(events, 'started');
      const aborted = once(events, 'aborted');
      const stream = await openSse(url, {
        method: 'POST',
        headers: modernHeaders('tools/call', 'waitForCancel'),
        body: modernBody(50, 'tools/call', { name: 'waitForCancel', arguments: {} }),
      });
      await started;
      stream.abort();
      const [reason] = await aborted;
      expect(reason).toMatch(/client closed the stream/);
    });
  });
});

describe('2026-07-28 with jsonResponse', () => {
  let server: McpHttpServer;

  beforeAll(async () => {
    server = await startServer(new Fixture(), { jsonResponse: true });
  });
  afterAll(() => server.close());

  it('answers a tools/call with one JSON body, and -32021 with 400', async () => {
    const res = await modernPost(server.url, 60, 'tools/call', { name: 'chatter', arguments: {}, _meta: modernMeta({ progressToken: 'p' }) });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['mcp-session-id']).toBeUndefined();
    expect(jsonOf(res)).toMatchObject({ jsonrpc: '2.0', id: 60, result: { resultType: 'complete', content: [{ text: 'chatted' }] } });
    expect(refusalOf(await modernPost(server.url, 61, 'tools/call', { name: 'needsSampling', arguments: {} }), 400, 61).code).toBe(-32021);
  });

  it('cancels the request when the client closes the connection', async () => {
    const started = once(events, 'started');
    const aborted = once(events, 'aborted');
    const req = http.request(server.url, { method: 'POST', headers: modernHeaders('tools/call', 'waitForCancel') as http.OutgoingHttpHeaders });
    req.on('error', () => {}); // destroyed on purpose
    req.end(modernBody(62, 'tools/call', { name: 'waitForCancel', arguments: {} }));
    await started;
    req.destroy();
    const [reason] = await aborted;
    expect(reason).toMatch(/client closed the stream/);
  });
});

describe('2026-07-28 on a stateless endpoint', () => {
  let server: McpHttpServer;

  beforeAll(async () => {
    server = await startServer(new Fixture(), { stateless: true });
  });
  afterAll(() => server.close());

  it('serves modern requests as on any endpoint, and GET with 405', async () => {
    expect(text(responseOf(await modernPost(server.url, 70, 'tools/call', { name: 'chatter', arguments: {} }), 70))).toBe('chatted');
    const get = await request(server.url, { headers: { accept: 'text/event-stream', 'mcp-protocol-version': MODERN } });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
  });

  it('still serves a legacy stateless client', async () => {
    const res = await post(server.url, rpc(71, 'tools/list'), undefined, { 'mcp-protocol-version': '2025-11-25' });
    expect(res.status).toBe(200);
    expect(res.body).toContain('"name":"chatter"');
  });
});

describe('2026-07-28: requests in flight per caller', () => {
  let server: McpHttpServer;
  let fixture: Fixture;

  beforeAll(async () => {
    fixture = new Fixture();
    server = await startServer(fixture, { maxRequestsInFlight: 1 });
  });
  afterAll(() => server.close());

  it('refuses a request beyond maxRequestsInFlight with 429 and -32004, and takes the next once one finished', async () => {
    const holding = once(events, 'holding');
    const first = modernPost(server.url, 80, 'tools/call', { name: 'hold', arguments: {} });
    await holding;
    const second = await modernPost(server.url, 81, 'tools/list');
    expect(second.headers['retry-after']).toBe('1');
    expect(refusalOf(second, 429, 81).code).toBe(-32004);
    fixture.gate.open();
    expect(text(responseOf(await first, 80))).toBe('held');
    expect(responseOf(await modernPost(server.url, 82, 'tools/list'), 82).result.tools).toBeDefined();
  });
});

describe('2026-07-28 CORS preflight', () => {
  let server: McpHttpServer;
  const PAGE = 'https://app.example.com';

  beforeAll(async () => {
    server = await startServer(new Fixture(), { cors: { origins: [PAGE] } });
  });
  afterAll(() => server.close());

  it('allows the metadata headers, and each Mcp-Param-* header the preflight asks for', async () => {
    const res = await request(server.url, {
      method: 'OPTIONS',
      headers: {
        origin: PAGE,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,mcp-method,mcp-name,mcp-param-region,mcp-param-count,mcp-protocol-version',
      },
    });
    expect(res.status).toBe(204);
    const allowed = String(res.headers['access-control-allow-headers'])
      .toLowerCase()
      .split(/\s*,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['mcp-method', 'mcp-name', 'mcp-param-region', 'mcp-param-count', 'mcp-protocol-version']));
    expect(String(res.headers['access-control-expose-headers']).toLowerCase()).toBe('mcp-session-id, mcp-protocol-version, www-authenticate, retry-after');
  });

  it('answers a page modern request with CORS headers', async () => {
    const res = await modernPost(server.url, 90, 'tools/list', {}, { origin: PAGE });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(PAGE);
  });
});
