import 'reflect-metadata';
import { McpServer, Server, Tool } from '@mcpx/core';
import type { McpHttpServer } from '@mcpx/http';
import { LATEST, getHeaders, initializeBody, notification, openSession, post, request, rpc, startServer, type RawResponse } from './http-kit';

/**
 * The JSON-RPC error bodies of the endpoint's HTTP errors: never `"id": null`. No id where the
 * request's id is unknown (it was never parsed, or the message was a notification); the request's
 * own id where the body was parsed as a request.
 */

@Server({ name: 'error-bodies', version: '1.0.0' })
class Fixture extends McpServer {
  @Tool({ description: 'Answers pong' })
  ping() {
    return 'pong';
  }
}

/** The error body, checked for shape: `id` absent, or exactly `id`. */
function errorBody(res: RawResponse, status: number, id?: string | number): { code: number; message: string } {
  expect({ status: res.status, body: res.body }).toEqual({ status, body: expect.any(String) });
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).not.toMatch(/"id"\s*:\s*null/);
  const body = JSON.parse(res.body);
  expect(Object.keys(body).sort()).toEqual(id === undefined ? ['error', 'jsonrpc'] : ['error', 'id', 'jsonrpc']);
  expect(body.jsonrpc).toBe('2.0');
  if (id !== undefined) expect(body.id).toBe(id);
  return body.error;
}

describe.each([
  ['stateful', false],
  ['stateless', true],
])('HTTP error bodies, %s', (_mode, stateless) => {
  let server: McpHttpServer;
  let url: string;
  let session: string | undefined;

  beforeAll(async () => {
    server = await startServer(new Fixture(), { stateless, maxBodyBytes: 1024 });
    url = server.url;
    session = stateless ? undefined : await openSession(url);
  });
  afterAll(() => server.close());

  describe('no id where it is unknown', () => {
    it.each([
      ['truncated JSON', '{"jsonrpc":"2.0","id":1,', -32700],
      ['not JSON', 'hello', -32700],
      ['an empty body', '', -32700],
      ['a batch', `[${rpc(1, 'ping')}]`, -32600],
      ['a JSON value that is no message', '42', -32600],
      ['an object that is no message', '{"jsonrpc":"2.0"}', -32600],
      ['a non-scalar id', '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', -32600],
    ])('400 for %s', async (_what, body, code) => {
      expect(errorBody(await post(url, body, session), 400).code).toBe(code);
    });

    it('406 for a POST without both types in Accept', async () => {
      expect(errorBody(await post(url, rpc(1, 'ping'), session, { accept: 'application/json' }), 406).code).toBe(-32000);
    });

    it('415 for a POST that is not application/json', async () => {
      expect(errorBody(await post(url, rpc(1, 'ping'), session, { 'content-type': 'text/plain' }), 415).code).toBe(-32000);
    });

    it('413 for a POST body beyond maxBodyBytes without an id', async () => {
      const big = notification('notifications/message', { data: 'x'.repeat(2048) });
      expect(errorBody(await post(url, big, session), 413).code).toBe(-32600);
    });

    it('403 for a foreign Origin, and for a foreign Host', async () => {
      expect(errorBody(await post(url, rpc(1, 'ping'), session, { origin: 'https://evil.example.com' }), 403).message).toMatch(/^Forbidden: Origin/);
      expect(errorBody(await post(url, rpc(1, 'ping'), session, { host: 'evil.example.com' }), 403).message).toMatch(/^Forbidden: Host/);
    });

    it('400 for an unsupported MCP-Protocol-Version', async () => {
      expect(errorBody(await post(url, rpc(1, 'ping'), session, { 'mcp-protocol-version': '1999-01-01' }), 400).message).toMatch(/MCP-Protocol-Version/);
    });

    it('405 for a method the endpoint does not serve', async () => {
      expect(errorBody(await request(url, { method: 'PUT' }), 405).message).toBe('Method Not Allowed: PUT is not supported by this endpoint');
    });

    if (stateless) {
      it('405 for GET and DELETE, which have no body', async () => {
        errorBody(await request(url, { headers: getHeaders('x') }), 405);
        errorBody(await request(url, { method: 'DELETE', headers: { 'mcp-session-id': 'x' } }), 405);
      });
    } else {
      it('404 for an unknown session on GET and DELETE, and on a POSTed notification', async () => {
        errorBody(await request(url, { headers: getHeaders('no-such-session') }), 404);
        errorBody(await request(url, { method: 'DELETE', headers: { 'mcp-session-id': 'no-such-session', 'mcp-protocol-version': LATEST } }), 404);
        errorBody(await post(url, notification('notifications/initialized'), 'no-such-session'), 404);
      });

      it('400 for a notification without Mcp-Session-Id', async () => {
        errorBody(await post(url, notification('notifications/initialized')), 400);
      });
    }
  });

  describe('the request id echoed where it is known', () => {
    it.each([
      ['a number', 7],
      ['a string', 'req-7'],
      ['zero', 0],
    ])('400 with the id (%s) of an envelope that is not valid JSON-RPC', async (_what, id) => {
      const error = errorBody(await post(url, JSON.stringify({ jsonrpc: '1.0', id, method: 'ping' }), session), 400, id);
      expect(error.code).toBe(-32600);
    });

    it('413 with the id of a request whose body is beyond maxBodyBytes (found by a bounded scan)', async () => {
      const big = rpc(1, 'tools/call', { name: 'ping', arguments: { pad: 'x'.repeat(2048) } });
      expect(errorBody(await post(url, big, session), 413, 1).code).toBe(-32600);
    });

    it('200 with -32602 and the id of a request whose params are not an object (answered like any invalid argument)', async () => {
      const error = errorBody(await post(url, JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping', params: [1] }), session), 200, 9);
      expect(error.code).toBe(-32602);
    });

    if (!stateless) {
      it('404 with the id of a request sent in an unknown session', async () => {
        const error = errorBody(await post(url, rpc('abc', 'ping'), 'no-such-session'), 404, 'abc');
        expect(error.message).toBe('Session not found: it expired or was deleted; initialize a new one');
      });

      it('400 with the id of a request sent without Mcp-Session-Id', async () => {
        expect(errorBody(await post(url, rpc(12, 'tools/list')), 400, 12).message).toBe('Bad Request: Mcp-Session-Id header is required');
      });

      it('400 with the id of an initialize sent inside a session', async () => {
        expect(errorBody(await post(url, initializeBody(), session), 400, 0).message).toMatch(/^Bad Request: initialize starts a new session/);
      });
    }
  });
});
