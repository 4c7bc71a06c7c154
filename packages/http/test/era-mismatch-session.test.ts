import 'reflect-metadata';
import { McpServer, Server, Tool } from '@mcpx/core';
import type { McpHttpServer } from '@mcpx/http';
import { ACCEPT_BOTH, openSession, post, request, rpc, rpcErrorOf, startServer } from './http-kit';

/**
 * A 2025-11-25 session id with a 2026-07-28 MCP-Protocol-Version header is refused on
 * POST, GET and DELETE with 400 (GET and DELETE: -32020): the header contradicts the session's protocol.
 */

@Server({ name: 'era-mismatch', version: '1.0.0' })
class Fixture extends McpServer {
  @Tool({ description: 'Answers pong' })
  ping() {
    return 'pong';
  }
}

describe('a 2025-11-25 session with a 2026-07-28 version header', () => {
  let server: McpHttpServer;
  beforeAll(async () => {
    server = await startServer(new Fixture());
  });
  afterAll(() => server.close());

  it('is refused with 400 on POST, and with 400 -32020 on GET and DELETE, and the session stays usable', async () => {
    const session = await openSession(server.url);
    const modern = { 'mcp-session-id': session, 'mcp-protocol-version': '2026-07-28' };
    const posted = await post(server.url, rpc(1, 'tools/list'), session, { 'mcp-protocol-version': '2026-07-28' });
    expect(posted.status).toBe(400);
    // POST refuses the 2025-11-25 body the modern header claims to be 2026-07-28 (it lacks the era's _meta).
    expect(rpcErrorOf(posted, 1).code).toBeLessThan(0);

    const got = await request(server.url, { method: 'GET', headers: { ...modern, accept: 'text/event-stream' } });
    expect(got.status).toBe(400);
    expect(rpcErrorOf(got).code).toBe(-32020);

    const deleted = await request(server.url, { method: 'DELETE', headers: modern });
    expect(deleted.status).toBe(400);
    expect(rpcErrorOf(deleted).code).toBe(-32020);

    // Not deleted: the session still answers with its own version.
    const listed = await post(server.url, rpc(2, 'tools/list'), session, { accept: ACCEPT_BOTH });
    expect(listed.status).toBe(200);
  });
});
