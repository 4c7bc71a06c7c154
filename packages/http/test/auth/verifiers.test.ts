import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidTokenError, introspectionVerifier, jwtVerifier, principalFromClaims } from '@mcpx/http';
import { startTestAuthorizationServer, type TestAuthorizationServer } from './test-authorization-server';

const AUDIENCE = 'https://mcp.example.test/mcp';
let as: TestAuthorizationServer;
beforeAll(async () => {
  as = await startTestAuthorizationServer();
});
afterAll(() => as.close());

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof InvalidTokenError) return err.message;
    throw err;
  }
  throw new Error('the token was accepted');
}

describe('jwtVerifier', () => {
  it('returns the principal: subject, client id, scopes, claims', async () => {
    const verify = jwtVerifier({ jwksUrl: as.jwksUrl, issuer: as.issuer, audience: AUDIENCE });
    const principal = await verify(await as.mintToken({ audience: AUDIENCE, subject: 'bob', clientId: 'app', scope: 'a b' }));
    expect(principal).toMatchObject({ subject: 'bob', clientId: 'app', scopes: ['a', 'b'], claims: { sub: 'bob', iss: as.issuer, aud: AUDIENCE } });
  });

  it('allows a small clock skew on exp and nbf, and no more', async () => {
    const verify = jwtVerifier({ jwksUrl: as.jwksUrl, issuer: as.issuer, audience: AUDIENCE, clockToleranceSec: 30 });
    const now = Math.floor(Date.now() / 1000);
    await expect(verify(await as.mintToken({ audience: AUDIENCE, expiresInSec: -10 }))).resolves.toMatchObject({ subject: 'alice' });
    expect(await refusal(verify(await as.mintToken({ audience: AUDIENCE, expiresInSec: -60 })))).toBe('the token has expired');
    await expect(verify(await as.mintToken({ audience: AUDIENCE, notBefore: now + 10 }))).resolves.toMatchObject({ subject: 'alice' });
    expect(await refusal(verify(await as.mintToken({ audience: AUDIENCE, notBefore: now + 120 })))).toBe('the token is not valid yet');
  });

  it('refuses a token without a subject or expiry, and algorithms outside the allowed list', async () => {
    const verify = jwtVerifier({ jwksUrl: as.jwksUrl, issuer: as.issuer, audience: AUDIENCE, algorithms: ['ES256'] });
    expect(await refusal(verify(await as.mintToken({ audience: AUDIENCE })))).toBe('the token is signed with an algorithm this server does not accept');
    const rs = jwtVerifier({ jwksUrl: as.jwksUrl, issuer: as.issuer, audience: AUDIENCE });
    expect(await refusal(rs(await as.mintToken({ audience: AUDIENCE, subject: undefined })))).toMatch(/sub/);
    expect(await refusal(rs(await as.mintToken({ audience: AUDIENCE, extraClaims: { exp: undefined } })))).toMatch(/exp/);
    // 'none' and HMAC are never accepted, even when asked for.
    const lax = jwtVerifier({ jwksUrl: as.jwksUrl, issuer: as.issuer, audience: AUDIENCE, algorithms: ['RS256', 'HS256', 'none'] });
    for (const alg of ['HS256', 'none'] as const) {
      expect(await refusal(lax(await as.mintToken({ audience: AUDIENCE, alg })))).toBe('the token is signed with an algorithm this server does not accept');
    }
  });

  describe('with the wall clock in the test’s hands', () => {
    // Only Date is faked (the cooldown is measured with Date.now()): timers, I/O and crypto run as usual,
    // and the cooldown ends when the test moves the clock, however long key making takes.
    beforeEach(() => {
      jest.useFakeTimers({
        doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'],
      });
    });
    afterEach(() => jest.useRealTimers());

    it('fetches the JWKS again for an unknown key id, at most once per cooldown', async () => {
      const strangers = await Promise.all(Array.from({ length: 5 }, () => as.mintToken({ audience: AUDIENCE, signWithUnknownKey: true })));
      const verify = jwtVerifier({ jwksUrl: as.jwksUrl, issuer: as.issuer, audience: AUDIENCE, jwksCooldownMs: 2000 });
      await verify(await as.mintToken({ audience: AUDIENCE }));
      const fetchedAt = Date.now();
      const fetched = as.jwksFetches;
      const newKid = await as.rotateKey();
      const rotated = await as.mintToken({ audience: AUDIENCE, kid: newKid });
      // Within the cooldown (to its last millisecond): a flood of unknown key ids does not reach the JWKS endpoint.
      for (const token of [...strangers, rotated]) expect(await refusal(verify(token))).toBe('the token is signed with an unknown key');
      jest.setSystemTime(fetchedAt + 1999);
      expect(await refusal(verify(rotated))).toBe('the token is signed with an unknown key');
      expect(as.jwksFetches).toBe(fetched);
      // After it: an unknown key id fetches the keys again, once, and the rotated key is found.
      jest.setSystemTime(fetchedAt + 2000);
      await expect(verify(rotated)).resolves.toMatchObject({ subject: 'alice' });
      expect(as.jwksFetches).toBe(fetched + 1);
    });
  });
});

describe('introspectionVerifier', () => {
  let endpoint: http.Server;
  let url: string;
  let calls: { auth?: string; token: string }[];
  const answers = new Map<string, Record<string, unknown>>();

  beforeAll(async () => {
    calls = [];
    endpoint = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const token = new URLSearchParams(body).get('token') ?? '';
        calls.push({ auth: req.headers.authorization, token });
        res.setHeader('content-type', 'application/json').end(JSON.stringify(answers.get(token) ?? { active: false }));
      });
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/introspect`;
  });
  afterAll(() => new Promise((resolve) => endpoint.close(resolve)));

  it('asks the authorization server with its own credentials, checks active and audience, and caches', async () => {
    const exp = Math.floor(Date.now() / 1000) + 600;
    answers.set('good', { active: true, sub: 'carol', client_id: 'app', scope: 'x y', aud: AUDIENCE, exp });
    answers.set('foreign', { active: true, sub: 'carol', aud: 'https://elsewhere/mcp', exp });
    const verify = introspectionVerifier({ url, clientId: 'mcp-server', clientSecret: 's3cret', audience: AUDIENCE, cacheMs: 60_000 });
    expect(await verify('good')).toMatchObject({ subject: 'carol', clientId: 'app', scopes: ['x', 'y'] });
    expect(await verify('good')).toMatchObject({ subject: 'carol' });
    expect(calls.filter((c) => c.token === 'good')).toHaveLength(1);
    expect(calls[0]!.auth).toBe(`Basic ${Buffer.from('mcp-server:s3cret').toString('base64')}`);
    expect(await refusal(verify('revoked'))).toBe('the token is not active');
    expect(await refusal(verify('foreign'))).toBe('the token was not issued for this server (audience)');
  });
});

describe('principalFromClaims', () => {
  it('reads client_id or azp, and scope or scp', () => {
    expect(principalFromClaims({ sub: 's', azp: 'web', scp: ['a', 'b'] })).toEqual({ subject: 's', clientId: 'web', scopes: ['a', 'b'], claims: { sub: 's', azp: 'web', scp: ['a', 'b'] } });
    expect(() => principalFromClaims({ scope: 'a' })).toThrow(InvalidTokenError);
  });
});
