import 'reflect-metadata';
import { McpServer, Server, Tool } from '@mcpx/core';
import type { McpHttpServer } from '@mcpx/http';
import { jsonOf, openSession, post, postHeaders, request, rpcErrorOf, startServer } from './http-kit';

/**
 * A POST body over maxBodyBytes is answered 413 without being parsed, but its JSON-RPC error still
 * carries the request's id, found by a bounded scan of the body (the official SDK clients write the
 * id last, after the params): the client matches the error to its request instead of waiting out
 * its timeout. Without an id to be found, the error has none (never `"id": null`).
 */

@Server({ name: 'oversize-http', version: '1.0.0' })
class Echo extends McpServer {
  @Tool({ inputSchema: { type: 'object', properties: { text: { type: 'string' } } } })
  echo(input: { text: string }) {
    return input.text;
  }
}

const LIMIT = 16 * 1024;
const TOO_LARGE = `Payload Too Large: the body exceeds ${LIMIT} bytes`;

/** A tools/call as the official SDK client writes it: method, params, jsonrpc, id last. */
function sdkCall(id: number | string, text: string): string {
  return JSON.stringify({ method: 'tools/call', params: { name: 'echo', arguments: { text, nested: { id: 99 } } }, jsonrpc: '2.0', id });
}

describe.each([
  ['stateful', false],
  ['stateless', true],
])('a body over maxBodyBytes, %s', (_mode, stateless) => {
  let server: McpHttpServer;
  let session: string | undefined;

  beforeAll(async () => {
    server = await startServer(new Echo(), { stateless, maxBodyBytes: LIMIT });
    session = stateless ? undefined : await openSession(server.url);
  });
  afterAll(() => server.close());

  it.each([
    ['with Content-Length', false],
    ['chunked', true],
  ])('is answered 413 with the id written last, after the params (%s)', async (_how, chunked) => {
    const body = sdkCall(7, 'x'.repeat(3 * LIMIT));
    const res = await request(server.url, { method: 'POST', headers: postHeaders(session), body, chunked });
    expect(res.status).toBe(413);
    expect(rpcErrorOf(res, 7)).toEqual({ code: -32600, message: TOO_LARGE });
  });

  it('is answered with a string id, and with an id that comes first', async () => {
    const named = await post(server.url, sdkCall('call-"8"', 'y'.repeat(2 * LIMIT)), session);
    expect(named.status).toBe(413);
    expect(rpcErrorOf(named, 'call-"8"').message).toBe(TOO_LARGE);
    const first = await post(server.url, JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'echo', arguments: { text: 'z'.repeat(LIMIT) } } }), session);
    expect(first.status).toBe(413);
    expect(rpcErrorOf(first, 9).message).toBe(TOO_LARGE);
  });

  it('is answered without an id when it has none, or none within the bounded scan', async () => {
    const anonymous = await post(server.url, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'n'.repeat(2 * LIMIT), id: 5 } }), session);
    expect(anonymous.status).toBe(413);
    expect(anonymous.body).not.toMatch(/"id"/);
    expect(rpcErrorOf(anonymous)).toEqual({ code: -32600, message: TOO_LARGE });
    // The scan reads 4 × maxBodyBytes past the limit at most: an id beyond that is not looked for.
    const beyond = await post(server.url, sdkCall(10, 'w'.repeat(8 * LIMIT)), session);
    expect(beyond.status).toBe(413);
    expect(rpcErrorOf(beyond)).toEqual({ code: -32600, message: TOO_LARGE });
  });

  it('leaves a body within the limit served as before', async () => {
    const res = await post(server.url, sdkCall(11, 'fits'), session);
    expect(res.status).toBe(200);
    // A JSON body, or an SSE stream whose message event carries the response.
    const answer = res.headers['content-type']?.startsWith('text/event-stream') ? JSON.parse(/^data: (\{.*\})$/m.exec(res.body)![1]!) : jsonOf(res);
    expect(answer).toEqual({ jsonrpc: '2.0', id: 11, result: { content: [{ type: 'text', text: 'fits' }] } });
  });
});
