import { EXAMPLE_JS, INITIALIZE, freePort, requireBuild, serveHttp } from './cli';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '../../http/test/auth/test-authorization-server';

beforeAll(requireBuild);
jest.setTimeout(40_000);

let as: TestAuthorizationServer;
beforeAll(async () => {
  as = await startTestAuthorizationServer();
});
afterAll(() => as.close());

const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('mcpx serve with --auth-* / MCPX_AUTH_*', () => {
  it('serves the metadata, answers 401 without a token and serves a token issued for it', async () => {
    const port = await freePort();
    const audience = `http://127.0.0.1:${port}/mcp`;
    // Flags and environment mix: flags win, the rest comes from MCPX_AUTH_*.
    const server = await serveHttp([EXAMPLE_JS, '--port', String(port), '--auth-jwks-url', as.jwksUrl, '--auth-scopes-supported', 'notes:read,notes:write'], {
      MCPX_AUTH_ISSUER: as.issuer,
      MCPX_AUTH_AUDIENCE: audience,
    });
    try {
      const metadata = await fetch(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`);
      expect(await metadata.json()).toEqual({
        resource: audience,
        authorization_servers: [as.issuer],
        scopes_supported: ['notes:read', 'notes:write'],
        bearer_methods_supported: ['header'],
      });
      const anonymous = await fetch(server.url, { method: 'POST', headers: POST_HEADERS, body: JSON.stringify(INITIALIZE) });
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp", scope="notes:read notes:write"`);
      const foreign = await fetch(server.url, {
        method: 'POST',
        headers: { ...POST_HEADERS, authorization: `Bearer ${await as.mintToken({ audience: 'http://127.0.0.1:1/mcp' })}` },
        body: JSON.stringify(INITIALIZE),
      });
      expect(foreign.status).toBe(401);
      const ok = await fetch(server.url, {
        method: 'POST',
        headers: { ...POST_HEADERS, authorization: `Bearer ${await as.mintToken({ audience })}` },
        body: JSON.stringify(INITIALIZE),
      });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('mcp-session-id')).toBeTruthy();
      expect((await fetch(new URL('/healthz', server.url))).status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
