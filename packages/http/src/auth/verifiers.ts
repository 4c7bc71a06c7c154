import type * as Jose from 'jose';
import { McpxError, type Principal } from '@mcpx/core';

/** Why a token was refused; the message goes to the client in `error_description`. */
export class InvalidTokenError extends McpxError {
  constructor(message: string) {
    super('MCPX_INVALID_TOKEN', message);
  }
}

/**
 * Checks a bearer token and says who it stands for, or throws InvalidTokenError. It must check
 * that the token was issued for this server (its audience): a token for another resource is
 * refused, never passed on.
 */
export type TokenVerifier = (token: string) => Promise<Principal>;

export interface JwtVerifierOptions {
  /** Where the authorization server publishes its keys. */
  jwksUrl: string | URL;
  /** The expected `iss`. */
  issuer: string | string[];
  /** The expected `aud`: this server's resource identifier (RFC 8707), usually its MCP URL. */
  audience: string | string[];
  /** Allowed signature algorithms (default RS256, ES256, PS256, EdDSA; `none` and HMAC never). */
  algorithms?: string[];
  /** Clock skew allowed on exp and nbf, in seconds (default 30). */
  clockToleranceSec?: number;
  /** The shortest time between two JWKS fetches (on an unknown kid), in ms (default 30 s). */
  jwksCooldownMs?: number;
  /** How long fetched keys are trusted before they are fetched again, in ms (default 10 min). */
  jwksCacheMaxAgeMs?: number;
}

const DEFAULT_ALGORITHMS = ['RS256', 'ES256', 'PS256', 'EdDSA'];

let jose: typeof Jose | undefined;
/** jose is loaded when a JWT verifier is made: a server without one does not pay for it at start. */
function loadJose(): typeof Jose {
  return (jose ??= require('jose') as typeof Jose);
}

/** A verifier for JWT access tokens signed with a key from a JWKS (keys cached; refetched on an unknown kid, rate limited). */
export function jwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  const algorithms = (options.algorithms ?? DEFAULT_ALGORITHMS).filter((alg) => alg !== 'none' && !alg.startsWith('HS'));
  const { createRemoteJWKSet, jwtVerify } = loadJose();
  const keys = createRemoteJWKSet(new URL(options.jwksUrl), {
    cooldownDuration: options.jwksCooldownMs ?? 30_000,
    cacheMaxAge: options.jwksCacheMaxAgeMs ?? 600_000,
  });
  return async (token) => {
    let payload: Jose.JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: options.issuer,
        audience: options.audience,
        algorithms,
        clockTolerance: options.clockToleranceSec ?? 30,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (err) {
      throw new InvalidTokenError(describeJoseError(err));
    }
    return principalFromClaims(payload as Record<string, unknown>);
  };
}

/** The principal a token's claims (or an introspection answer) describe. */
export function principalFromClaims(claims: Record<string, unknown>): Principal {
  const subject = claims.sub;
  if (typeof subject !== 'string' || subject === '') throw new InvalidTokenError('the token names no subject');
  const clientId = typeof claims.client_id === 'string' ? claims.client_id : typeof claims.azp === 'string' ? claims.azp : undefined;
  const scope = claims.scope ?? claims.scp;
  const scopes = typeof scope === 'string' ? scope.split(' ').filter(Boolean) : Array.isArray(scope) ? scope.filter((s): s is string => typeof s === 'string') : [];
  return { subject, clientId, scopes, claims };
}

function describeJoseError(err: unknown): string {
  const { errors } = loadJose();
  if (err instanceof errors.JWTExpired) return 'the token has expired';
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'aud') return 'the token was not issued for this server (audience)';
    if (err.claim === 'iss') return 'the token was not issued by a trusted authorization server (issuer)';
    if (err.claim === 'nbf') return 'the token is not valid yet';
    return `the token's ${err.claim} claim is not acceptable`;
  }
  if (err instanceof errors.JOSEAlgNotAllowed) return 'the token is signed with an algorithm this server does not accept';
  if (err instanceof errors.JWKSNoMatchingKey) return 'the token is signed with an unknown key';
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'the token signature is invalid';
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JOSEError) {
    if (err instanceof errors.JWTInvalid || err instanceof errors.JWSInvalid) return 'the token is malformed';
    return `the token could not be verified (${(err as Error).message})`;
  }
  return 'the token could not be verified';
}

export interface IntrospectionVerifierOptions {
  /** The authorization server's introspection endpoint (RFC 7662). */
  url: string | URL;
  /** This server's credentials at the authorization server (client_secret_basic). */
  clientId: string;
  clientSecret: string;
  /** The expected audience: an active token whose `aud` does not include it is refused. */
  audience: string | string[];
  /** How long an answer is reused, in ms (default 60 s; never past the token's exp). */
  cacheMs?: number;
}

/** A verifier that asks the authorization server about each token (RFC 7662), caching answers. */
export function introspectionVerifier(options: IntrospectionVerifierOptions): TokenVerifier {
  const cache = new Map<string, { principal: Principal; until: number }>();
  const audiences = Array.isArray(options.audience) ? options.audience : [options.audience];
  const auth = `Basic ${Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`).toString('base64')}`;
  return async (token) => {
    const now = Date.now();
    const hit = cache.get(token);
    if (hit && hit.until > now) return hit.principal;
    const res = await fetch(options.url, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
    }).catch((err: Error) => {
      throw new InvalidTokenError(`the token could not be checked (${err.message})`);
    });
    if (!res.ok) throw new InvalidTokenError(`the token could not be checked (introspection answered ${res.status})`);
    const answer = (await res.json()) as Record<string, unknown>;
    if (answer.active !== true) throw new InvalidTokenError('the token is not active');
    const aud = answer.aud;
    const tokenAudiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
    if (!tokenAudiences.some((a) => audiences.includes(a as string))) throw new InvalidTokenError('the token was not issued for this server (audience)');
    const principal = principalFromClaims(answer);
    const exp = typeof answer.exp === 'number' ? answer.exp * 1000 : Infinity;
    if (cache.size > 10_000) cache.clear();
    cache.set(token, { principal, until: Math.min(now + (options.cacheMs ?? 60_000), exp) });
    return principal;
  };
}
