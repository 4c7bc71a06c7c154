/**
 * A minimal, auto-approving OAuth 2.1 authorization server for tests of the MCP resource server:
 * RFC 8414 metadata, RFC 7591 dynamic registration, authorization code + PKCE (S256 only),
 * refresh tokens, RFC 8707 resource indicators and a JWKS endpoint. It is deliberately small
 * and permissive where tests do not care, strict where the resource server's security does
 * (PKCE, single-use codes, exact redirect_uri matching).
 * Not a test file itself (jest only runs *.test.ts).
 */
import http from 'node:http';
import crypto from 'node:crypto';
import vm from 'node:vm';
import type * as JoseModule from 'jose';
import type { JWK } from 'jose';

export type Jose = typeof JoseModule;
// Derived rather than imported so the module type-checks against both jose 5 (KeyLike) and 6 (CryptoKey).
type PrivateKey = Awaited<ReturnType<Jose['generateKeyPair']>>['privateKey'];
type SigningInput = Parameters<InstanceType<Jose['CompactSign']>['sign']>[0];

let joseModule: Jose | undefined;

/**
 * Loads `jose`. jose 5 ships CommonJS, so a plain require() works. jose 6 is ESM-only:
 * Node >= 20.19 can require() it, but Jest's CommonJS runtime on Node < 24.9 refuses (and the
 * jest config does not transform node_modules); then fall back to the host realm's require.
 * Jest's node environment shares URL, fetch, crypto, TextEncoder and Uint8Array with the
 * host, so the host copy works in tests.
 * Whenever the first branch works, the copy is the one src gets, so jose errors are shared.
 */
export function loadJose(): Jose {
  if (joseModule) return joseModule;
  try {
    joseModule = require('jose') as Jose;
  } catch (jestError) {
    try {
      // `process` evaluated in the main context is the real one, not Jest's sandbox copy.
      const hostProcess = vm.runInThisContext('process') as NodeJS.Process;
      const hostModule = hostProcess.getBuiltinModule('node:module');
      joseModule = hostModule.createRequire(__filename)('jose') as Jose;
    } catch {
      throw jestError;
    }
  }
  return joseModule;
}

export interface MintTokenOptions {
  audience?: string | string[];
  subject?: string;
  scope?: string;
  clientId?: string;
  issuer?: string;
  /** Lifetime from now; `exp` is omitted if explicitly set to undefined. */
  expiresInSec?: number;
  /** Absolute `nbf` (seconds since the epoch). */
  notBefore?: number;
  kid?: string;
  alg?: 'RS256' | 'ES256' | 'HS256' | 'none';
  /** Merged last, so they can override any default claim; undefined values remove the claim. */
  extraClaims?: Record<string, unknown>;
  signWithUnknownKey?: boolean;
}

export interface TestAuthorizationServer {
  issuer: string; // e.g. http://127.0.0.1:<port>  (no trailing slash)
  jwksUrl: string; // `${issuer}/jwks`
  /** Signs an access token directly (for raw HTTP tests). Defaults: iss=issuer, sub='alice', client_id='test-client', scope='', aud=options.audience, iat=now, exp=now+300, kid=current key, alg RS256. Any field can be overridden or set to undefined to omit it. */
  mintToken(options: MintTokenOptions): Promise<string>;
  /** Rotates in a new signing key (new kid) that is published in JWKS from now on. Returns the new kid. */
  rotateKey(): Promise<string>;
  /** How many times /jwks was fetched. */
  readonly jwksFetches: number;
  /** Every /token request's form fields, in order (for assertions, e.g. that `resource` was sent). */
  readonly tokenRequests: Record<string, string>[];
  /** Scopes granted when the client asks for none. */
  defaultScope: string;
  /** `sub` of tokens issued by /token. */
  subject: string;
  close(): Promise<void>;
}

export interface StartTestAuthorizationServerOptions {
  port?: number;
  /** Initial `defaultScope` (default 'notes:read'). */
  defaultScope?: string;
  /** Initial `subject` of tokens issued by /token (default 'alice'). */
  subject?: string;
}

const ACCESS_TOKEN_TTL_SEC = 300;
const CODE_TTL_MS = 60_000;
const STATIC_SCOPES = ['notes:read', 'notes:write', 'admin'];
const AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'] as const;
type AuthMethod = (typeof AUTH_METHODS)[number];

interface SigningKey {
  kid: string;
  privateKey: PrivateKey;
  publicJwk: JWK;
}

interface Client {
  clientId: string;
  clientSecret?: string;
  authMethod: AuthMethod;
  redirectUris: string[];
}

interface Grant {
  clientId: string;
  scope: string;
  resource?: string;
  subject: string;
}

interface PendingCode extends Grant {
  redirectUri: string;
  codeChallenge: string;
  expiresAt: number;
}

/** An OAuth error that the handlers turn into a JSON error response. */
class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    description: string,
  ) {
    super(description);
  }
}

const randomToken = (bytes = 32): string => crypto.randomBytes(bytes).toString('base64url');
const nowSec = (): number => Math.floor(Date.now() / 1000);
const b64urlJson = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** RFC 8707: a resource indicator is an absolute URI without a fragment. */
function checkResource(resource: string | undefined): string | undefined {
  if (resource === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    throw new OAuthError(400, 'invalid_target', 'resource must be an absolute URI');
  }
  if (url.hash !== '' || resource.includes('#')) throw new OAuthError(400, 'invalid_target', 'resource must not contain a fragment');
  return resource;
}

class AuthorizationServerImpl implements TestAuthorizationServer {
  issuer = '';
  jwksUrl = '';
  defaultScope: string;
  subject: string;
  readonly tokenRequests: Record<string, string>[] = [];
  private fetches = 0;
  private readonly keys: SigningKey[] = [];
  private readonly clients = new Map<string, Client>();
  private readonly codes = new Map<string, PendingCode>();
  private readonly refreshTokens = new Map<string, Grant>();
  private readonly requestedScopes = new Set<string>();
  private readonly server: http.Server;
  private readonly jose = loadJose();

  constructor(options: StartTestAuthorizationServerOptions) {
    this.defaultScope = options.defaultScope ?? 'notes:read';
    this.subject = options.subject ?? 'alice';
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        if (err instanceof OAuthError) {
          sendJson(res, err.status, { error: err.error, error_description: err.message });
        } else {
          sendJson(res, 500, { error: 'server_error', error_description: String(err) });
        }
      });
    });
  }

  get jwksFetches(): number {
    return this.fetches;
  }

  async listen(port: number): Promise<void> {
    await this.rotateKey();
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => resolve());
    });
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('unexpected server address');
    this.issuer = `http://127.0.0.1:${address.port}`;
    this.jwksUrl = `${this.issuer}/jwks`;
  }

  async close(): Promise<void> {
    // fetch keeps connections alive; without this close() would wait for them to time out.
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.server.close((err) => (err ? reject(err) : resolve())));
  }

  async rotateKey(): Promise<string> {
    const { privateKey, publicKey } = await this.jose.generateKeyPair('RS256', { extractable: true });
    const kid = `key-${this.keys.length + 1}-${randomToken(6)}`;
    const publicJwk: JWK = { ...(await this.jose.exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
    this.keys.push({ kid, privateKey, publicJwk });
    return kid;
  }

  private get currentKey(): SigningKey {
    return this.keys[this.keys.length - 1];
  }

  async mintToken(options: MintTokenOptions): Promise<string> {
    // "Present but undefined" means omit, so defaults only apply to absent keys.
    const pick = <K extends keyof MintTokenOptions>(key: K, fallback: MintTokenOptions[K]): MintTokenOptions[K] =>
      Object.prototype.hasOwnProperty.call(options, key) ? options[key] : fallback;
    const now = nowSec();
    const expiresIn = pick('expiresInSec', ACCESS_TOKEN_TTL_SEC);
    const claims: Record<string, unknown> = {
      iss: pick('issuer', this.issuer),
      sub: pick('subject', 'alice'),
      aud: options.audience,
      client_id: pick('clientId', 'test-client'),
      scope: pick('scope', ''),
      iat: now,
      nbf: options.notBefore,
      exp: expiresIn === undefined ? undefined : now + expiresIn,
      ...options.extraClaims,
    };
    const kid = options.signWithUnknownKey ? pick('kid', `unknown-${randomToken(6)}`) : pick('kid', this.currentKey.kid);
    return this.sign(claims, options.alg ?? 'RS256', kid, options.signWithUnknownKey === true);
  }

  private async sign(claims: Record<string, unknown>, alg: NonNullable<MintTokenOptions['alg']>, kid: string | undefined, unknownKey: boolean): Promise<string> {
    // JSON.stringify drops undefined values, which is how claims get omitted.
    const payload = JSON.parse(JSON.stringify(claims)) as Record<string, unknown>;
    if (alg === 'none') {
      // RFC 7519 section 6 unsecured JWT: empty signature part.
      return `${b64urlJson({ alg: 'none' })}.${b64urlJson(payload)}.`;
    }
    let key: SigningInput;
    if (alg === 'HS256') {
      key = new Uint8Array(crypto.randomBytes(32));
    } else if (alg === 'ES256') {
      // A fresh EC key that is never published: verification must fail even though kid matches.
      key = (await this.jose.generateKeyPair('ES256')).privateKey;
    } else if (unknownKey) {
      key = (await this.jose.generateKeyPair('RS256')).privateKey;
    } else {
      const known = this.keys.find((k) => k.kid === kid);
      // A kid chosen by the test that is not ours still gets signed with the current key.
      key = (known ?? this.currentKey).privateKey;
    }
    const header = { alg, typ: 'at+jwt', ...(kid === undefined ? {} : { kid }) };
    return new this.jose.CompactSign(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader(header).sign(key);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const route = `${req.method ?? 'GET'} ${url.pathname}`;
    switch (route) {
      case 'GET /.well-known/oauth-authorization-server':
      case 'GET /.well-known/openid-configuration':
        return sendJson(res, 200, this.metadata());
      case 'GET /jwks':
        this.fetches++;
        return sendJson(res, 200, { keys: this.keys.map((k) => k.publicJwk) });
      case 'POST /register':
        return sendJson(res, 201, this.register(await readBody(req)));
      case 'GET /authorize':
        return this.authorize(url.searchParams, res);
      case 'POST /token':
        return this.token(req, await readBody(req), res);
      default:
        return sendJson(res, 404, { error: 'not_found', error_description: `no route for ${route}` });
    }
  }

  private metadata(): Record<string, unknown> {
    return {
      issuer: this.issuer,
      authorization_endpoint: `${this.issuer}/authorize`,
      token_endpoint: `${this.issuer}/token`,
      registration_endpoint: `${this.issuer}/register`,
      jwks_uri: this.jwksUrl,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: [...AUTH_METHODS],
      scopes_supported: [...new Set([...STATIC_SCOPES, ...this.requestedScopes])],
    };
  }

  private register(body: string): Record<string, unknown> {
    let metadata: unknown;
    try {
      metadata = JSON.parse(body);
    } catch {
      throw new OAuthError(400, 'invalid_client_metadata', 'body must be JSON');
    }
    if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
      throw new OAuthError(400, 'invalid_client_metadata', 'body must be a JSON object');
    }
    const meta = metadata as Record<string, unknown>;
    const redirectUris = meta.redirect_uris;
    if (!Array.isArray(redirectUris) || redirectUris.length === 0 || !redirectUris.every((u) => typeof u === 'string')) {
      throw new OAuthError(400, 'invalid_redirect_uri', 'redirect_uris must be a non-empty array of strings');
    }
    const authMethod = (meta.token_endpoint_auth_method ?? 'none') as AuthMethod;
    if (!AUTH_METHODS.includes(authMethod)) {
      throw new OAuthError(400, 'invalid_client_metadata', `unsupported token_endpoint_auth_method ${String(authMethod)}`);
    }
    const client: Client = { clientId: `client-${randomToken(12)}`, authMethod, redirectUris: redirectUris as string[] };
    if (authMethod !== 'none') client.clientSecret = randomToken();
    this.clients.set(client.clientId, client);
    return {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...meta,
      client_id: client.clientId,
      client_id_issued_at: nowSec(),
      token_endpoint_auth_method: authMethod,
      ...(client.clientSecret === undefined ? {} : { client_secret: client.clientSecret, client_secret_expires_at: 0 }),
    };
  }

  private authorize(params: URLSearchParams, res: http.ServerResponse): void {
    const param = (name: string): string | undefined => params.get(name) ?? undefined;
    // Errors are reported as 400 JSON rather than redirected: simpler, and tests never need the redirect form.
    if (param('response_type') !== 'code') throw new OAuthError(400, 'unsupported_response_type', 'response_type must be code');
    const client = this.clients.get(param('client_id') ?? '');
    if (!client) throw new OAuthError(400, 'invalid_request', 'unknown client_id');
    const redirectUri = param('redirect_uri');
    if (redirectUri === undefined || !client.redirectUris.includes(redirectUri)) {
      throw new OAuthError(400, 'invalid_request', 'redirect_uri is missing or not registered for this client');
    }
    const codeChallenge = param('code_challenge');
    if (!codeChallenge) throw new OAuthError(400, 'invalid_request', 'code_challenge is required');
    if (param('code_challenge_method') !== 'S256') throw new OAuthError(400, 'invalid_request', 'code_challenge_method must be S256');
    const resource = checkResource(param('resource'));
    const scope = param('scope')?.trim() || this.defaultScope;
    for (const s of scope.split(' ').filter(Boolean)) this.requestedScopes.add(s);

    const code = randomToken();
    this.codes.set(code, { clientId: client.clientId, redirectUri, codeChallenge, scope, resource, subject: this.subject, expiresAt: Date.now() + CODE_TTL_MS });
    const location = new URL(redirectUri);
    location.searchParams.set('code', code);
    const state = param('state');
    if (state !== undefined) location.searchParams.set('state', state);
    res.writeHead(302, { Location: location.toString(), 'Cache-Control': 'no-store' }).end();
  }

  private async token(req: http.IncomingMessage, body: string, res: http.ServerResponse): Promise<void> {
    const form = new URLSearchParams(body);
    this.tokenRequests.push(Object.fromEntries(form));
    if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      throw new OAuthError(400, 'invalid_request', 'content type must be application/x-www-form-urlencoded');
    }
    const field = (name: string): string | undefined => form.get(name) ?? undefined;
    const client = this.authenticateClient(req, field('client_id'), field('client_secret'));

    let grant: Grant;
    const grantType = field('grant_type');
    if (grantType === 'authorization_code') {
      grant = this.redeemCode(client, field('code'), field('redirect_uri'), field('code_verifier'), field('resource'));
    } else if (grantType === 'refresh_token') {
      const refreshToken = field('refresh_token');
      if (!refreshToken) throw new OAuthError(400, 'invalid_request', 'refresh_token is required');
      const stored = this.refreshTokens.get(refreshToken);
      if (!stored || stored.clientId !== client.clientId) throw new OAuthError(400, 'invalid_grant', 'unknown refresh_token');
      // Rotate: OAuth 2.1 requires refresh tokens of public clients to be one-time use (or sender-constrained).
      this.refreshTokens.delete(refreshToken);
      grant = { ...stored, resource: narrowResource(stored.resource, field('resource')) };
    } else if (grantType === undefined) {
      throw new OAuthError(400, 'invalid_request', 'grant_type is required');
    } else {
      throw new OAuthError(400, 'unsupported_grant_type', `unsupported grant_type ${grantType}`);
    }

    const now = nowSec();
    const accessToken = await this.sign(
      {
        iss: this.issuer,
        sub: grant.subject,
        // RFC 8707: the audience is the resource the client named; otherwise the client itself.
        aud: grant.resource ?? grant.clientId,
        client_id: grant.clientId,
        scope: grant.scope,
        iat: now,
        exp: now + ACCESS_TOKEN_TTL_SEC,
        jti: randomToken(16),
      },
      'RS256',
      this.currentKey.kid,
      false,
    );
    const refreshToken = randomToken();
    this.refreshTokens.set(refreshToken, grant);
    sendJson(
      res,
      200,
      { access_token: accessToken, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_SEC, scope: grant.scope, refresh_token: refreshToken },
      { 'Cache-Control': 'no-store', Pragma: 'no-cache' },
    );
  }

  /** Client auth: 'none' (client_id only), client_secret_post or client_secret_basic. */
  private authenticateClient(req: http.IncomingMessage, bodyClientId: string | undefined, bodySecret: string | undefined): Client {
    let clientId = bodyClientId;
    let secret = bodySecret;
    const authorization = req.headers.authorization;
    const usedBasic = authorization?.toLowerCase().startsWith('basic ') ?? false;
    if (authorization && usedBasic) {
      const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) throw new OAuthError(401, 'invalid_client', 'malformed Basic credentials');
      // RFC 6749 section 2.3.1: both parts are form-urlencoded before base64.
      clientId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
      secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
      if (bodyClientId !== undefined && bodyClientId !== clientId) throw new OAuthError(400, 'invalid_request', 'client_id mismatch');
    }
    // RFC 6749 section 5.2: 401 when the client tried HTTP authentication, else 400.
    const status = usedBasic ? 401 : 400;
    if (!clientId) throw new OAuthError(400, 'invalid_client', 'client_id is required');
    const client = this.clients.get(clientId);
    if (!client) throw new OAuthError(status, 'invalid_client', 'unknown client');
    if (client.clientSecret !== undefined) {
      const ok = secret !== undefined && secret.length === client.clientSecret.length && crypto.timingSafeEqual(Buffer.from(secret), Buffer.from(client.clientSecret));
      if (!ok) throw new OAuthError(status, 'invalid_client', 'client authentication failed');
    }
    return client;
  }

  private redeemCode(client: Client, code: string | undefined, redirectUri: string | undefined, verifier: string | undefined, resource: string | undefined): Grant {
    if (!code) throw new OAuthError(400, 'invalid_request', 'code is required');
    if (!verifier) throw new OAuthError(400, 'invalid_request', 'code_verifier is required');
    const pending = this.codes.get(code);
    // Single use: burn the code on any redemption attempt, successful or not.
    this.codes.delete(code);
    if (!pending || pending.expiresAt < Date.now()) throw new OAuthError(400, 'invalid_grant', 'unknown, used or expired code');
    if (pending.clientId !== client.clientId) throw new OAuthError(400, 'invalid_grant', 'code was issued to another client');
    if (redirectUri !== pending.redirectUri) throw new OAuthError(400, 'invalid_grant', 'redirect_uri does not match the authorization request');
    const challenge = crypto.createHash('sha256').update(verifier).digest('base64url');
    if (challenge !== pending.codeChallenge) throw new OAuthError(400, 'invalid_grant', 'code_verifier does not match code_challenge');
    return { clientId: pending.clientId, scope: pending.scope, subject: pending.subject, resource: narrowResource(pending.resource, resource) };
  }
}

/** RFC 8707: a token request may repeat the authorized resource but not name another one. */
function narrowResource(authorized: string | undefined, requested: string | undefined): string | undefined {
  const checked = checkResource(requested);
  if (checked === undefined) return authorized;
  if (authorized !== undefined && checked !== authorized) throw new OAuthError(400, 'invalid_target', 'resource differs from the authorized one');
  return checked;
}

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > 1_000_000) {
        // Stop buffering; the handler still answers with the error.
        reject(new OAuthError(413, 'invalid_request', 'body too large'));
        req.removeAllListeners('data');
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startTestAuthorizationServer(options: StartTestAuthorizationServerOptions = {}): Promise<TestAuthorizationServer> {
  const server = new AuthorizationServerImpl(options);
  await server.listen(options.port ?? 0);
  return server;
}
