import 'reflect-metadata';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, UnsecuredJWT, exportJWK, generateKeyPair, type KeyLike } from 'jose';
import { McpServer, Server, Tool, type RequestContext } from '@mcpx/core';
import { jwtVerifier, type McpHttpServer } from '@mcpx/http';
import { memoryLogger } from '@mcpx/testing';
import { callTool, freePort, initializeBody, notification, post, request, rpc, startServer } from '../http-kit';

@Server({ name: 'protected', version: '1.0.0' })
class Protected extends McpServer {
  @Tool()
  whoami(_input: void, ctx: RequestContext) {
    return `${ctx.principal?.subject} via ${ctx.principal?.clientId} with ${ctx.principal?.scopes.join(',')}`;
  }

  @Tool({ scopes: ['notes:write'] })
  write() {
    return 'written';
  }
}

/** A JWKS served on loopback, with the key the tokens below are signed with. */
let jwks: http.Server;
let jwksUrl: string;
let key: KeyLike;
let server: McpHttpServer;
let resource: string;
const ISSUER = 'https://issuer.test';

beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  key = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  jwks = http.createServer((_req, res) => res.setHeader('content-type', 'application/json').end(JSON.stringify({ keys: [jwk] })));
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`;
  const port = await freePort(); // the resource URL names the port, so it is picked first
  resource = `http://127.0.0.1:${port}/mcp`;
  server = await startServer(new Protected(), {
    port,
    auth: {
      resource,
      authorizationServers: [ISSUER],
      scopesSupported: ['notes:read', 'notes:write'],
      verifier: jwtVerifier({ jwksUrl, issuer: ISSUER, audience: resource }),
    },
  });
});
afterAll(async () => {
  await server.close();
  await new Promise((resolve) => jwks.close(resolve));
});

function token(claims: Record<string, unknown> = {}, options: { kid?: string; exp?: number | string; signer?: KeyLike } = {}): Promise<string> {
  return new SignJWT({ scope: 'notes:read', client_id: 'cli', ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? 'k1' })
    .setIssuer((claims.iss as string) ?? ISSUER)
    .setAudience((claims.aud as string) ?? resource)
    .setSubject((claims.sub as string) ?? 'alice')
    .setIssuedAt()
    .setExpirationTime(options.exp ?? '5m')
    .sign(options.signer ?? key);
}

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const metadataUrl = () => `${new URL(resource).origin}/.well-known/oauth-protected-resource/mcp`;
const challengeOf = (res: { headers: http.IncomingHttpHeaders }) => res.headers['www-authenticate'];

async function openAs(t: string): Promise<string> {
  const init = await post(server.url, initializeBody(), undefined, bearer(t));
  expect(init.status).toBe(200);
  const session = init.headers['mcp-session-id'] as string;
  expect((await post(server.url, notification('notifications/initialized'), session, bearer(t))).status).toBe(202);
  return session;
}

describe('protected resource metadata (RFC 9728)', () => {
  it('is served at the well-known URL and its path-suffixed form, without a token', async () => {
    for (const url of [metadataUrl(), `${new URL(resource).origin}/.well-known/oauth-protected-resource`]) {
      const res = await request(url);
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toEqual({
        resource,
        authorization_servers: [ISSUER],
        scopes_supported: ['notes:read', 'notes:write'],
        bearer_methods_supported: ['header'],
      });
    }
    expect((await request(new URL('/healthz', resource).href)).status).toBe(200);
  });
});

describe('bearer tokens on every MCP request', () => {
  it('no token: 401 with the metadata URL and the supported scopes', async () => {
    const res = await post(server.url, initializeBody());
    expect(res.status).toBe(401);
    expect(challengeOf(res)).toBe(`Bearer resource_metadata="${metadataUrl()}", scope="notes:read notes:write"`);
  });

  it.each([
    ['a malformed header', 'Token abc', 'invalid_request', 'the Authorization header must be: Bearer <token>'],
    ['a malformed token', 'Bearer not-a-jwt', 'invalid_token', 'the token is malformed'],
  ])('%s: 401 %s', async (_what, header, error, description) => {
    const res = await post(server.url, initializeBody(), undefined, { authorization: header });
    expect(res.status).toBe(401);
    expect(challengeOf(res)).toBe(`Bearer resource_metadata="${metadataUrl()}", error="${error}", error_description="${description}"`);
  });

  it('refuses expired, foreign-issuer, foreign-audience, unsigned, HMAC and unknown-key tokens with invalid_token', async () => {
    const other = await generateKeyPair('RS256');
    const hmac = await new SignJWT({ scope: 'notes:read' })
      .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
      .setIssuer(ISSUER)
      .setAudience(resource)
      .setSubject('alice')
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('a-shared-secret-that-is-long-enough!'));
    const unsigned = new UnsecuredJWT({ scope: 'notes:read' }).setIssuer(ISSUER).setAudience(resource).setSubject('alice').setExpirationTime('5m').encode();
    const cases: [string, string, string][] = [
      ['expired', await token({}, { exp: Math.floor(Date.now() / 1000) - 120 }), 'the token has expired'],
      ['wrong issuer', await token({ iss: 'https://evil.test' }), 'the token was not issued by a trusted authorization server (issuer)'],
      ['wrong audience', await token({ aud: 'https://other.example/mcp' }), 'the token was not issued for this server (audience)'],
      ['alg none', unsigned, 'the token is signed with an algorithm this server does not accept'],
      ['HS256', hmac, 'the token is signed with an algorithm this server does not accept'],
      ['unknown kid', await token({}, { kid: 'k9', signer: other.privateKey }), 'the token is signed with an unknown key'],
      ['known kid, wrong key', await token({}, { signer: other.privateKey }), 'the token signature is invalid'],
    ];
    for (const [what, t, description] of cases) {
      const res = await post(server.url, initializeBody(), undefined, bearer(t));
      expect([what, res.status, challengeOf(res)]).toEqual([what, 401, `Bearer resource_metadata="${metadataUrl()}", error="invalid_token", error_description="${description}"`]);
    }
  });

  it('a token in the query string is refused (400 invalid_request), even a valid one, and is not logged', async () => {
    const { logger, lines } = memoryLogger('info');
    const logged = await startServer(new Protected(), {
      logger,
      auth: { resource, authorizationServers: [ISSUER], verifier: jwtVerifier({ jwksUrl, issuer: ISSUER, audience: resource }) },
    });
    try {
      const t = await token();
      const res = await post(`${logged.url}?access_token=${t}`, initializeBody(), undefined, bearer(t));
      expect(res.status).toBe(400);
      expect(challengeOf(res)).toBe(
        `Bearer resource_metadata="${metadataUrl()}", error="invalid_request", error_description="access tokens are accepted in the Authorization header only, never in the URL"`,
      );
      const line = lines.find((l) => l.msg === 'http request');
      expect(line?.url).toBe('/mcp?access_token=[redacted]');
      expect(JSON.stringify(lines)).not.toContain(t);
    } finally {
      await logged.close();
    }
  });

  it('a valid token serves the session, and the handler sees the principal', async () => {
    const t = await token({ scope: 'notes:read notes:write' });
    const session = await openAs(t);
    const res = await post(server.url, callTool(2, 'whoami'), session, bearer(t));
    expect(res.status).toBe(200);
    expect(res.body).toContain('alice via cli with notes:read,notes:write');
  });

  it('a session is bound to its principal: another subject gets 404 on POST, GET and DELETE', async () => {
    const session = await openAs(await token());
    const mallory = bearer(await token({ sub: 'mallory' }));
    expect((await post(server.url, callTool(3, 'whoami'), session, mallory)).status).toBe(404);
    expect((await request(server.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': session, ...mallory } })).status).toBe(404);
    expect((await request(server.url, { method: 'DELETE', headers: { 'mcp-session-id': session, ...mallory } })).status).toBe(404);
    // The owner still has it.
    expect((await post(server.url, callTool(4, 'whoami'), session, bearer(await token()))).status).toBe(200);
  });

  it('a call without the scope it needs: 403 insufficient_scope naming the scopes, before any work; lists hide it', async () => {
    const t = await token({ scope: 'notes:read' });
    const session = await openAs(t);
    const res = await post(server.url, callTool(5, 'write'), session, bearer(t));
    expect(res.status).toBe(403);
    expect(challengeOf(res)).toBe(
      `Bearer resource_metadata="${metadataUrl()}", scope="notes:read notes:write", error="insufficient_scope", error_description="tools/call needs the scopes notes:write"`,
    );
    const list = await post(server.url, rpc(6, 'tools/list'), session, bearer(t));
    expect(list.status).toBe(200);
    expect(list.body).toContain('"whoami"');
    expect(list.body).not.toContain('"write"');
    // Step-up: a new token with the wider scope, same session.
    const wider = await token({ scope: 'notes:read notes:write' });
    const again = await post(server.url, callTool(7, 'write'), session, bearer(wider));
    expect(again.status).toBe(200);
    expect(again.body).toContain('written');
  });
});

@Server({ name: 'members-only', version: '1.0.0' })
class MembersOnly extends McpServer {
  @Tool({ taskSupport: 'optional' })
  async report() {
    await new Promise((resolve) => setTimeout(resolve, 50));
    return 'report ready';
  }
}

describe('server-wide scopes and tasks', () => {
  let members: McpHttpServer;
  let membersResource: string;
  const tokenFor = (sub: string, scope: string) => token({ sub, scope, aud: membersResource });

  beforeAll(async () => {
    const port = await freePort();
    membersResource = `http://127.0.0.1:${port}/mcp`;
    members = await startServer(new MembersOnly(), {
      port,
      auth: {
        resource: membersResource,
        authorizationServers: [ISSUER],
        requiredScopes: ['mcp:use'],
        verifier: jwtVerifier({ jwksUrl, issuer: ISSUER, audience: membersResource }),
      },
    });
  });
  afterAll(() => members.close());

  it('a token without the scopes every request needs: 403 insufficient_scope, on a list as on anything', async () => {
    const t = await tokenFor('alice', 'mcp:use');
    const init = await post(members.url, initializeBody(), undefined, bearer(t));
    const session = init.headers['mcp-session-id'] as string;
    const narrow = await tokenFor('alice', 'notes:read');
    const res = await post(members.url, rpc(2, 'tools/list'), session, bearer(narrow));
    expect(res.status).toBe(403);
    expect(res.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="http://127.0.0.1:${new URL(membersResource).port}/.well-known/oauth-protected-resource/mcp", scope="mcp:use", error="insufficient_scope", error_description="this server needs the scopes mcp:use"`,
    );
  });

  it('tasks belong to the principal that started them: nobody else can reach them', async () => {
    const alice = bearer(await tokenFor('alice', 'mcp:use'));
    const mallory = bearer(await tokenFor('mallory', 'mcp:use'));
    const open = async (auth: Record<string, string>) => {
      const init = await post(members.url, initializeBody(), undefined, auth);
      const session = init.headers['mcp-session-id'] as string;
      await post(members.url, notification('notifications/initialized'), session, auth);
      return session;
    };
    const aliceSession = await open(alice);
    const started = await post(members.url, rpc(3, 'tools/call', { name: 'report', arguments: {}, task: { ttl: 60_000 } }), aliceSession, alice);
    const taskId = /"taskId":"([^"]+)"/.exec(started.body)?.[1];
    expect(taskId).toBeDefined();
    // Mallory with Alice's session id: no such session.
    expect((await post(members.url, rpc(4, 'tasks/get', { taskId }), aliceSession, mallory)).status).toBe(404);
    // Mallory in a session of her own: no such task.
    const mallorySession = await open(mallory);
    const foreign = await post(members.url, rpc(5, 'tasks/get', { taskId }), mallorySession, mallory);
    expect(foreign.body).toContain('"code":-32602');
    expect((await post(members.url, rpc(6, 'tasks/cancel', { taskId }), mallorySession, mallory)).body).toContain('"code":-32602');
    // Alice gets her result.
    const result = await post(members.url, rpc(7, 'tasks/result', { taskId }), aliceSession, alice);
    expect(result.body).toContain('report ready');
  });
});
