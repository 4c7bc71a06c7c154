import type { FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requestedParamHeaders } from './modern-headers';

/**
 * CORS for browser-based MCP clients (off unless given): which web pages may call the endpoint
 * from a visitor's browser. Native clients send no `Origin` and are not affected.
 */
export interface CorsOptions {
  /**
   * The origins whose pages may call: exact `scheme://host[:port]` values, e.g.
   * `https://app.example.com` (no path, no patterns). Each is also allowed by the Origin check.
   * `['*']` lets any page call (without credentials only): see docs/transports.md before using it.
   */
  origins: string[];
  /** Send `Access-Control-Allow-Credentials: true`, for cookies or TLS client certificates (default false; never with `*`). */
  credentials?: boolean;
  /** How long a browser may reuse a preflight answer, in seconds (default 7200, Chromium's cap; 0 = ask every time). */
  maxAgeSec?: number;
  /** Request headers to allow besides the ones MCP uses (e.g. custom headers your client adds). */
  allowedHeaders?: string[];
  /** Response headers to expose besides Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate and Retry-After. */
  exposedHeaders?: string[];
}

/** CorsOptions checked and completed: `origins` normalised (or `'*'`), header lists in full. */
export interface ResolvedCorsOptions {
  origins: readonly string[] | '*';
  credentials: boolean;
  maxAgeSec: number;
  allowedHeaders: readonly string[];
  exposedHeaders: readonly string[];
}

/** The methods a preflight may ask for. */
export const CORS_METHODS: readonly string[] = ['GET', 'POST', 'DELETE', 'OPTIONS'];

/**
 * Every request header an MCP client sends (2025-11-25, plus Mcp-Method and Mcp-Name of 2026-07-28).
 * The Mcp-Param-{Name} headers of 2026-07-28 vary with the tools, and a preflight's answer must
 * name each: those a preflight asks for are allowed as asked (registerCors).
 */
export const CORS_ALLOWED_HEADERS: readonly string[] = ['Content-Type', 'Accept', 'Authorization', 'Mcp-Session-Id', 'MCP-Protocol-Version', 'Last-Event-ID', 'Mcp-Method', 'Mcp-Name'];

/** Response headers a page's script may read besides the CORS-safelisted ones. */
export const CORS_EXPOSED_HEADERS: readonly string[] = ['Mcp-Session-Id', 'MCP-Protocol-Version', 'WWW-Authenticate', 'Retry-After'];

const DEFAULT_MAX_AGE_SEC = 7200;
const ORIGIN_FORM = /^([a-z][a-z0-9+.-]*):\/\/([^/?#@\s*]+)\/?$/i;
const HEADER_NAME = /^[!#$%&'*+\-.^\w`|~]+$/;

/** Checks CORS options; throws a RangeError that says what to change. Idempotent. */
export function resolveCors(cors: CorsOptions | ResolvedCorsOptions | undefined): ResolvedCorsOptions | undefined {
  if (cors === undefined) return undefined;
  const given = cors.origins === '*' ? ['*'] : cors.origins;
  if (!Array.isArray(given) || given.length === 0) throw new RangeError('cors.origins needs at least one origin, e.g. ["https://app.example.com"]');
  const credentials = cors.credentials ?? false;
  let origins: readonly string[] | '*';
  if (given.includes('*')) {
    if (given.length > 1) throw new RangeError(`cors.origins: "*" stands alone (any origin); got ${JSON.stringify(given)}`);
    if (credentials) {
      throw new RangeError(
        'cors: credentials cannot be combined with origins "*": browsers refuse credentialed answers to any origin, and it would let every web page act with your users\' cookies; list the origins instead',
      );
    }
    origins = '*';
  } else {
    origins = [...new Set(given.map(normalizeOrigin))];
  }
  const maxAgeSec = cors.maxAgeSec ?? DEFAULT_MAX_AGE_SEC;
  if (!Number.isInteger(maxAgeSec) || maxAgeSec < 0) throw new RangeError(`cors.maxAgeSec must be a whole number of seconds, zero or more, got ${maxAgeSec}`);
  return {
    origins,
    credentials,
    maxAgeSec,
    allowedHeaders: headerList('allowedHeaders', CORS_ALLOWED_HEADERS, cors.allowedHeaders),
    exposedHeaders: headerList('exposedHeaders', CORS_EXPOSED_HEADERS, cors.exposedHeaders),
  };
}

/** An origin as browsers write it in the Origin header (lower case, no default port), or a RangeError. */
export function normalizeOrigin(origin: string): string {
  const text = typeof origin === 'string' ? origin.trim() : '';
  if (text.toLowerCase() === 'null') {
    throw new RangeError('cors.origins: "null" cannot be allowed (sandboxed frames and file: pages send it, so any site can)');
  }
  const match = ORIGIN_FORM.exec(text);
  if (!match) {
    throw new RangeError(`cors.origins: ${JSON.stringify(origin)} is not an origin: write scheme://host[:port], e.g. https://app.example.com (no path, no wildcard)`);
  }
  const scheme = match[1]!.toLowerCase();
  if (scheme === 'http' || scheme === 'https') {
    try {
      return new URL(`${scheme}://${match[2]}`).origin;
    } catch {
      throw new RangeError(`cors.origins: ${JSON.stringify(origin)} is not an origin: its host or port is invalid`);
    }
  }
  // Other schemes (chrome-extension://<id>, moz-extension://<id>): as written, lower case.
  return `${scheme}://${match[2]!.toLowerCase()}`;
}

function headerList(name: string, base: readonly string[], extra: readonly string[] | undefined): string[] {
  const out = new Map<string, string>();
  for (const header of [...base, ...(extra ?? [])]) {
    if (typeof header !== 'string' || !HEADER_NAME.test(header) || header === '*') throw new RangeError(`cors.${name}: ${JSON.stringify(header)} is not a header name`);
    if (!out.has(header.toLowerCase())) out.set(header.toLowerCase(), header);
  }
  return [...out.values()];
}

/** Whether a request's Origin is one the CORS options let read answers. */
export function corsAllows(cors: ResolvedCorsOptions, origin: string | undefined): boolean {
  if (origin === undefined) return false;
  return cors.origins === '*' || cors.origins.includes(origin.toLowerCase());
}

/**
 * Registers @fastify/cors on `app` (an encapsulated context: its hooks reach that context's routes
 * only), for the requests `appliesTo` accepts. Register it after the Origin/Host checks and
 * before anything that may refuse a request (authentication), so refusals carry CORS headers too.
 *
 * @fastify/cors also adds an `OPTIONS <prefix>/*` route to the context, so preflights reach it
 * for paths without an OPTIONS route of their own; `appliesTo` keeps CORS off those.
 */
export async function registerCors(app: FastifyInstance, cors: ResolvedCorsOptions, appliesTo: (request: FastifyRequest) => boolean): Promise<void> {
  if (app.hasRequestDecorator('corsPreflightEnabled')) {
    throw new Error(
      'cors: this app already registers @fastify/cors, whose hook covers the MCP routes too: configure CORS there (with the MCP headers, see docs/transports.md) and leave the mcpx cors option off',
    );
  }
  const common: FastifyCorsOptions = {
    methods: [...CORS_METHODS],
    allowedHeaders: [...cors.allowedHeaders],
    exposedHeaders: [...cors.exposedHeaders],
    credentials: cors.credentials,
    maxAge: cors.maxAgeSec,
    // A preflight needs Origin and Access-Control-Request-Method; anything else is not one.
    strictPreflight: true,
    origin: cors.origins === '*' ? '*' : true, // true: echo the request's Origin, already checked against the list
  };
  // Preflights are answered in the hook (204); other requests go on to their routes with the headers.
  const on: FastifyCorsOptions = { ...common, preflight: true };
  // An OPTIONS that is not a preflight goes on to its route too (the endpoint's 405), with the headers.
  const notPreflight: FastifyCorsOptions = { ...common, preflight: false };
  // No CORS at all: no Origin (native clients), an origin not in the list, or a route CORS is not for.
  const off: FastifyCorsOptions = { origin: false };
  // Loaded here, not with this module: most servers turn CORS off, and their start need not load it.
  const { default: fastifyCors } = require('@fastify/cors') as typeof import('@fastify/cors');
  await app.register(fastifyCors, {
    hook: 'onRequest',
    delegator: (request: FastifyRequest, callback: (error: Error | null, options?: FastifyCorsOptions) => void) => {
      if (!corsAllows(cors, request.headers.origin) || !appliesTo(request)) return callback(null, off);
      const bareOptions = request.method === 'OPTIONS' && request.headers['access-control-request-method'] === undefined;
      if (bareOptions) return callback(null, notPreflight);
      // Tool parameters mirrored into headers: any Mcp-Param-* the page asks for (they only repeat the body, which is checked against them).
      const params = request.method === 'OPTIONS' ? requestedParamHeaders(request.headers['access-control-request-headers']) : [];
      callback(null, params.length === 0 ? on : { ...on, allowedHeaders: [...cors.allowedHeaders, ...params] });
    },
  });
}
