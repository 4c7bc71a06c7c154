/**
 * Tests of the test authorization server itself, so the resource server tests can trust it.
 * The OAuth flow is driven by hand with fetch to see every step.
 */
import crypto from 'node:crypto';
import { loadJose, startTestAuthorizationServer, type TestAuthorizationServer } from './test-authorization-server';

const jose = loadJose();
const REDIRECT_URI = 'http://127.0.0.1:9/callback';
const RESOURCE = 'http://127.0.0.1:3000/mcp';

let as: TestAuthorizationServer;

beforeAll(async () => {
  as = await startTestAuthorizationServer();
});

afterAll(async () => {
  await as.close();
});

function pkcePair(): { verifier: string; challenge: string } {
  const verifier = crypto.randomBytes(32).toString('base64url');
  return { verifier, challenge: crypto.createHash('sha256').update(verifier).digest('base64url') };
}

async function register(metadata: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const res = await fetch(`${as.issuer}/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_name: 'test', redirect_uris: [REDIRECT_URI], ...metadata }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as Record<string, unknown>;
}

async function authorize(params: Record<string, string>): Promise<Response> {
  const url = new URL(`${as.issuer}/authorize`);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  // manual: the redirect target is not a real server, and we want to read the Location.
  return fetch(url, { redirect: 'manual' });
}

/** register → authorize → returns the code and the PKCE verifier. */
async function getCode(extra: Record<string, string> = {}, clientId?: string): Promise<{ clientId: string; code: string; verifier: string }> {
  const id = clientId ?? ((await register()).client_id as string);
  const { verifier, challenge } = pkcePair();
  const res = await authorize({
    response_type: 'code',
    client_id: id,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st-1',
    ...extra,
  });
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get('location') ?? '');
  expect(location.origin + location.pathname).toBe(REDIRECT_URI);
  expect(location.searchParams.get('state')).toBe('st-1');
  const code = location.searchParams.get('code');
  expect(code).toBeTruthy();
  return { clientId: id, code: code as string, verifier };
}

async function postToken(fields: Record<string, string>, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${as.issuer}/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function redeem(c: { clientId: string; code: string; verifier: string }, extra: Record<string, string> = {}) {
  return postToken({ grant_type: 'authorization_code', client_id: c.clientId, code: c.code, redirect_uri: REDIRECT_URI, code_verifier: c.verifier, ...extra });
}

async function jwksKids(): Promise<string[]> {
  const res = await fetch(as.jwksUrl);
  const body = (await res.json()) as { keys: Array<{ kid: string; alg: string; use: string; kty: string; d?: string }> };
  for (const key of body.keys) {
    expect(key).toMatchObject({ alg: 'RS256', use: 'sig', kty: 'RSA' });
    expect(key.d).toBeUndefined(); // public parts only
  }
  return body.keys.map((k) => k.kid);
}

const remoteJwks = () => jose.createRemoteJWKSet(new URL(as.jwksUrl));

describe('metadata', () => {
  it.each(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'])('serves %s', async (path) => {
    const res = await fetch(`${as.issuer}${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    const meta = (await res.json()) as Record<string, unknown>;
    expect(as.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(meta).toMatchObject({
      issuer: as.issuer,
      authorization_endpoint: `${as.issuer}/authorize`,
      token_endpoint: `${as.issuer}/token`,
      registration_endpoint: `${as.issuer}/register`,
      jwks_uri: as.jwksUrl,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
    });
    expect(meta.scopes_supported).toEqual(expect.arrayContaining(['notes:read', 'notes:write', 'admin']));
  });
});

describe('registration', () => {
  it('registers a public client by default', async () => {
    const client = await register();
    expect(client).toMatchObject({ client_name: 'test', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' });
    expect(typeof client.client_id).toBe('string');
    expect(typeof client.client_id_issued_at).toBe('number');
    expect(client.client_secret).toBeUndefined();
  });

  it('issues a secret to confidential clients', async () => {
    const client = await register({ token_endpoint_auth_method: 'client_secret_post' });
    expect(client.token_endpoint_auth_method).toBe('client_secret_post');
    expect(typeof client.client_secret).toBe('string');
  });

  it('rejects metadata without redirect_uris', async () => {
    const res = await fetch(`${as.issuer}/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_redirect_uri');
  });
});

describe('authorization code + PKCE', () => {
  it('issues a JWT for the requested resource and scope that verifies against the JWKS', async () => {
    const c = await getCode({ scope: 'notes:read notes:write', resource: RESOURCE });
    const before = as.tokenRequests.length;
    const { status, body } = await redeem(c, { resource: RESOURCE });
    expect(status).toBe(200);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 300, scope: 'notes:read notes:write' });
    expect(typeof body.refresh_token).toBe('string');
    // The request was recorded with its form fields.
    expect(as.tokenRequests.length).toBe(before + 1);
    expect(as.tokenRequests[before]).toMatchObject({ grant_type: 'authorization_code', resource: RESOURCE, client_id: c.clientId });

    const fetchesBefore = as.jwksFetches;
    const { payload, protectedHeader } = await jose.jwtVerify(body.access_token as string, remoteJwks(), { issuer: as.issuer, audience: RESOURCE });
    expect(as.jwksFetches).toBe(fetchesBefore + 1);
    expect(protectedHeader.alg).toBe('RS256');
    expect(await jwksKids()).toContain(protectedHeader.kid);
    expect(payload).toMatchObject({ sub: 'alice', aud: RESOURCE, scope: 'notes:read notes:write', client_id: c.clientId });
    expect(payload.exp! - payload.iat!).toBe(300);
    expect(typeof payload.jti).toBe('string');
    // Requested scopes show up in the metadata.
    const meta = (await (await fetch(`${as.issuer}/.well-known/oauth-authorization-server`)).json()) as { scopes_supported: string[] };
    expect(meta.scopes_supported).toEqual(expect.arrayContaining(['notes:read', 'notes:write']));
  });

  it('takes the resource from the authorization request alone, and uses client_id and defaultScope otherwise', async () => {
    const withResource = await redeem(await getCode({ resource: RESOURCE }));
    expect(jose.decodeJwt(withResource.body.access_token as string).aud).toBe(RESOURCE);

    const c = await getCode();
    const { status, body } = await redeem(c);
    expect(status).toBe(200);
    expect(body.scope).toBe(as.defaultScope);
    const { payload } = await jose.jwtVerify(body.access_token as string, remoteJwks(), { audience: c.clientId });
    expect(payload.scope).toBe(as.defaultScope);
  });

  it('rejects a token request naming a different resource than the authorized one', async () => {
    const { status, body } = await redeem(await getCode({ resource: RESOURCE }), { resource: 'http://127.0.0.1:4000/other' });
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_target');
  });

  it('rejects a wrong code_verifier with invalid_grant', async () => {
    const c = await getCode();
    const { status, body } = await redeem(c, { code_verifier: pkcePair().verifier });
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_grant');
  });

  it('accepts a code only once', async () => {
    const c = await getCode();
    expect((await redeem(c)).status).toBe(200);
    const second = await redeem(c);
    expect(second.status).toBe(400);
    expect(second.body.error).toBe('invalid_grant');
  });

  it('rejects a code redeemed with another redirect_uri or by another client', async () => {
    const c1 = await getCode();
    expect((await redeem(c1, { redirect_uri: 'http://127.0.0.1:9/other' })).body.error).toBe('invalid_grant');
    const c2 = await getCode();
    const other = (await register()).client_id as string;
    expect((await redeem({ ...c2, clientId: other })).body.error).toBe('invalid_grant');
  });

  it('refreshes with the same scope and resource, rotating the refresh token', async () => {
    const c = await getCode({ scope: 'admin', resource: RESOURCE });
    const first = await redeem(c);
    const refresh = { grant_type: 'refresh_token', client_id: c.clientId, refresh_token: first.body.refresh_token as string };
    const second = await postToken(refresh);
    expect(second.status).toBe(200);
    expect(second.body.scope).toBe('admin');
    expect(second.body.refresh_token).not.toBe(first.body.refresh_token);
    const { payload } = await jose.jwtVerify(second.body.access_token as string, remoteJwks(), { audience: RESOURCE });
    expect(payload.scope).toBe('admin');
    const reused = await postToken(refresh);
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe('invalid_grant');
  });

  it('authenticates confidential clients with client_secret_basic and client_secret_post', async () => {
    const client = await register({ token_endpoint_auth_method: 'client_secret_basic' });
    const id = client.client_id as string;
    const secret = client.client_secret as string;
    const basic = (s: string) => ({ Authorization: `Basic ${Buffer.from(`${id}:${s}`).toString('base64')}` });

    const c1 = await getCode({}, id);
    const ok = await postToken({ grant_type: 'authorization_code', code: c1.code, redirect_uri: REDIRECT_URI, code_verifier: c1.verifier }, basic(secret));
    expect(ok.status).toBe(200);

    const c2 = await getCode({}, id);
    const bad = await postToken({ grant_type: 'authorization_code', code: c2.code, redirect_uri: REDIRECT_URI, code_verifier: c2.verifier }, basic('wrong'));
    expect(bad.status).toBe(401);
    expect(bad.body.error).toBe('invalid_client');

    const c3 = await getCode({}, id);
    const missing = await redeem(c3);
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_client');

    const c4 = await getCode({}, id);
    expect((await redeem(c4, { client_secret: secret })).status).toBe(200);
  });

  it('rejects bad authorization requests with 400 JSON', async () => {
    const id = (await register()).client_id as string;
    const { challenge } = pkcePair();
    const good = { response_type: 'code', client_id: id, redirect_uri: REDIRECT_URI, code_challenge: challenge, code_challenge_method: 'S256' };
    const cases: Array<[Record<string, string>, string]> = [
      [{ ...good, response_type: 'token' }, 'unsupported_response_type'],
      [{ ...good, client_id: 'nobody' }, 'invalid_request'],
      [{ ...good, redirect_uri: 'http://evil.example/cb' }, 'invalid_request'],
      [{ ...good, code_challenge: '' }, 'invalid_request'],
      [{ ...good, code_challenge_method: 'plain' }, 'invalid_request'],
      [{ ...good, resource: 'not a uri' }, 'invalid_target'],
    ];
    for (const [params, error] of cases) {
      const res = await authorize(params);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe(error);
    }
  });

  it('rejects unknown grant types and non-form bodies', async () => {
    const id = (await register()).client_id as string;
    const unsupported = await postToken({ grant_type: 'password', client_id: id });
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.error).toBe('unsupported_grant_type');

    const res = await fetch(`${as.issuer}/token`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
  });
});

describe('mintToken', () => {
  it('applies the documented defaults and verifies against the JWKS', async () => {
    const before = Math.floor(Date.now() / 1000);
    const token = await as.mintToken({ audience: RESOURCE });
    const after = Math.ceil(Date.now() / 1000);
    const header = jose.decodeProtectedHeader(token);
    expect(header.alg).toBe('RS256');
    expect(await jwksKids()).toContain(header.kid);
    const { payload } = await jose.jwtVerify(token, remoteJwks(), { issuer: as.issuer, audience: RESOURCE });
    expect(payload).toMatchObject({ iss: as.issuer, sub: 'alice', client_id: 'test-client', scope: '', aud: RESOURCE });
    expect(payload.exp! - payload.iat!).toBe(300);
    // Issued now: while mintToken ran, however long that took.
    expect(payload.iat).toBeGreaterThanOrEqual(before);
    expect(payload.iat).toBeLessThanOrEqual(after);
  });

  it('overrides and omits claims', async () => {
    const token = await as.mintToken({
      audience: [RESOURCE, 'other'],
      subject: 'bob',
      scope: 'admin',
      clientId: 'c2',
      issuer: 'http://elsewhere',
      expiresInSec: -10,
      notBefore: 2_000_000_000,
      extraClaims: { tenant: 't1', iat: undefined },
    });
    expect(jose.decodeJwt(token)).toEqual({
      iss: 'http://elsewhere',
      sub: 'bob',
      aud: [RESOURCE, 'other'],
      client_id: 'c2',
      scope: 'admin',
      nbf: 2_000_000_000,
      exp: expect.any(Number),
      tenant: 't1',
    });

    const bare = await as.mintToken({ subject: undefined, expiresInSec: undefined, issuer: undefined, clientId: undefined, scope: undefined, kid: undefined });
    expect(Object.keys(jose.decodeJwt(bare)).sort()).toEqual(['iat']);
    expect(jose.decodeProtectedHeader(bare).kid).toBeUndefined();
  });

  it('produces an unsecured JWT for alg none', async () => {
    const token = await as.mintToken({ alg: 'none', audience: RESOURCE });
    const parts = token.split('.');
    expect(parts).toHaveLength(3);
    expect(parts[2]).toBe('');
    expect(JSON.parse(Buffer.from(parts[0], 'base64url').toString())).toEqual({ alg: 'none' });
    expect(jose.decodeJwt(token)).toMatchObject({ sub: 'alice', aud: RESOURCE });
    await expect(jose.jwtVerify(token, remoteJwks())).rejects.toThrow();
  });

  it.each(['HS256', 'ES256'] as const)('signs %s with a key the JWKS does not hold, under a published kid', async (alg) => {
    const token = await as.mintToken({ alg, audience: RESOURCE });
    const header = jose.decodeProtectedHeader(token);
    expect(header.alg).toBe(alg);
    expect(await jwksKids()).toContain(header.kid);
    await expect(jose.jwtVerify(token, remoteJwks(), { audience: RESOURCE })).rejects.toThrow();
  });

  it('signs with an unknown key and kid when asked', async () => {
    const token = await as.mintToken({ audience: RESOURCE, signWithUnknownKey: true });
    const header = jose.decodeProtectedHeader(token);
    expect(header.alg).toBe('RS256');
    expect(header.kid).toBeTruthy();
    expect(await jwksKids()).not.toContain(header.kid);
    await expect(jose.jwtVerify(token, remoteJwks(), { audience: RESOURCE })).rejects.toBeInstanceOf(jose.errors.JWKSNoMatchingKey);
  });

  it('rejects expired tokens through jose as expected', async () => {
    const token = await as.mintToken({ audience: RESOURCE, expiresInSec: -60 });
    await expect(jose.jwtVerify(token, remoteJwks(), { audience: RESOURCE })).rejects.toBeInstanceOf(jose.errors.JWTExpired);
  });
});

describe('key rotation', () => {
  it('publishes the new key alongside the old one and signs with it', async () => {
    const oldToken = await as.mintToken({ audience: RESOURCE });
    const oldKid = jose.decodeProtectedHeader(oldToken).kid;
    const kidsBefore = await jwksKids();
    const newKid = await as.rotateKey();
    expect(newKid).not.toBe(oldKid);
    const kidsAfter = await jwksKids();
    expect(kidsAfter).toHaveLength(kidsBefore.length + 1);
    expect(kidsAfter).toEqual(expect.arrayContaining([oldKid, newKid]));

    const newToken = await as.mintToken({ audience: RESOURCE });
    expect(jose.decodeProtectedHeader(newToken).kid).toBe(newKid);
    const jwks = remoteJwks();
    await expect(jose.jwtVerify(newToken, jwks, { audience: RESOURCE })).resolves.toBeDefined();
    await expect(jose.jwtVerify(oldToken, jwks, { audience: RESOURCE })).resolves.toBeDefined();

    // Tokens from /token use the new key too.
    const issued = await redeem(await getCode({ resource: RESOURCE }));
    expect(jose.decodeProtectedHeader(issued.body.access_token as string).kid).toBe(newKid);
  });

  it('counts JWKS fetches', async () => {
    const before = as.jwksFetches;
    await fetch(as.jwksUrl);
    await fetch(as.jwksUrl);
    expect(as.jwksFetches).toBe(before + 2);
  });
});
