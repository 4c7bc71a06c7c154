import 'reflect-metadata';
import { Server, Tool, type RequestContext } from '@mcpx/core';
import { InvalidTokenError, type McpHttpServer } from '@mcpx/http';
import { freePort, startServer } from './http-kit';
import { modernPost, refusalOf, responseOf } from './modern-kit';

/** 2026-07-28 requests on an endpoint with auth: a token on every request, scopes checked before any work. */

@Server({ name: 'modern-protected', version: '1.0.0' })
class Protected {
  @Tool({ description: 'Says who calls' })
  whoami(_input: void, ctx: RequestContext) {
    return ctx.principal?.subject ?? 'nobody';
  }

  @Tool({ description: 'Needs the admin scope', scopes: ['admin'] })
  purge() {
    return 'purged';
  }
}

describe('2026-07-28 with auth', () => {
  let server: McpHttpServer;
  let url: string;

  beforeAll(async () => {
    const port = await freePort(); // the resource URL names the port, so it is picked first
    url = `http://127.0.0.1:${port}/mcp`;
    server = await startServer(new Protected(), {
      port,
      auth: {
        resource: url,
        authorizationServers: ['https://id.example.test'],
        verifier: async (token) => {
          if (token === 'reader') return { subject: 'reader', scopes: [], claims: { sub: 'reader' } };
          if (token === 'admin') return { subject: 'admin', scopes: ['admin'], claims: { sub: 'admin' } };
          throw new InvalidTokenError('unknown token');
        },
      },
    });
  });
  afterAll(() => server.close());

  it('401 with a challenge without a token', async () => {
    const res = await modernPost(url, 1, 'tools/list');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer resource_metadata="/);
  });

  it('serves the principal the token names', async () => {
    const res = await modernPost(url, 2, 'tools/call', { name: 'whoami', arguments: {} }, { authorization: 'Bearer reader' });
    expect(responseOf(res, 2).result.content[0].text).toBe('reader');
  });

  it('403 with a step-up challenge for a call whose scopes the token lacks, before any work', async () => {
    const res = await modernPost(url, 3, 'tools/call', { name: 'purge', arguments: {} }, { authorization: 'Bearer reader' });
    expect(res.status).toBe(403);
    expect(res.headers['www-authenticate']).toContain('error="insufficient_scope"');
    expect(res.headers['www-authenticate']).toContain('scope="admin"');
    const ok = await modernPost(url, 4, 'tools/call', { name: 'purge', arguments: {} }, { authorization: 'Bearer admin' });
    expect(responseOf(ok, 4).result.content[0].text).toBe('purged');
  });

  it('checks the request before its scopes: a header mismatch is 400 even for a call the token may not make', async () => {
    const res = await modernPost(url, 5, 'tools/call', { name: 'purge', arguments: {} }, { authorization: 'Bearer reader', 'mcp-name': 'whoami' });
    expect(refusalOf(res, 400, 5).code).toBe(-32020);
  });
});
