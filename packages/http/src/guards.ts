import type { FastifyRequest } from 'fastify';
import { isModernProtocolVersion, isSupportedProtocolVersion } from '@mcpx/core/transport';

/** Header checks the transport spec requires, each returning a reason when the request must be refused. */

const DEFAULT_LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

export interface OriginHostPolicy {
  /** `*`: any origin; else the loopback origins (when `allowedOrigins` is not given) and the listed ones. */
  origins: '*' | { loopback: boolean; listed: Set<string> };
  hosts: { names: Set<string>; withPort: Set<string> };
  /** The last Host header checked, and its verdict. */
  lastHost?: { header: string; refusal: string | undefined };
}

/** `corsOrigins`: the origins CORS is on for, allowed by the Origin check as well. */
export function originHostPolicy(allowedOrigins: string[] | undefined, allowedHosts: string[] | undefined, corsOrigins: readonly string[] | '*' = []): OriginHostPolicy {
  const origins =
    allowedOrigins?.includes('*') || corsOrigins === '*'
      ? '*'
      : { loopback: allowedOrigins === undefined, listed: new Set([...(allowedOrigins ?? []), ...corsOrigins].map((o) => o.toLowerCase())) };
  const names = new Set<string>();
  const withPort = new Set<string>();
  for (const host of (allowedHosts ?? DEFAULT_LOOPBACK_HOSTS).map((h) => h.toLowerCase())) {
    if (/:\d+$/.test(host)) withPort.add(host);
    else names.add(host);
  }
  return { origins, hosts: { names, withPort } };
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    const host = new URL(origin).hostname;
    return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}

export function isLoopbackAddress(address: string | undefined): boolean {
  return !!address && (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'));
}

/** Origin: when present it must be allowed (403 otherwise). Native clients send none. */
export function checkOrigin(request: FastifyRequest, policy: OriginHostPolicy): string | undefined {
  const origin = request.headers.origin;
  if (origin === undefined) return undefined;
  if (policy.origins === '*') return undefined;
  const allowed = policy.origins.listed.has(origin.toLowerCase()) || (policy.origins.loopback && isLoopbackOrigin(origin));
  return allowed ? undefined : `Forbidden: Origin ${origin} is not allowed`;
}

/** Host: on loopback connections it must name this machine, so a rebound DNS name cannot reach us. */
export function checkHost(request: FastifyRequest, policy: OriginHostPolicy): string | undefined {
  if (!isLoopbackAddress(request.socket.localAddress)) return undefined;
  const header = request.headers.host ?? '';
  // Clients send the same Host on every request: the verdict of the last one is kept with the policy.
  const last = policy.lastHost;
  if (last?.header === header) return last.refusal;
  const host = header.toLowerCase();
  let refusal: string | undefined;
  if (!policy.hosts.withPort.has(host)) {
    const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
    refusal = policy.hosts.names.has(name) ? undefined : `Forbidden: Host ${host || '(none)'} is not allowed`;
  }
  policy.lastHost = { header, refusal };
  return refusal;
}

/**
 * MCP-Protocol-Version: absent means 2025-03-26; any version we speak is accepted. A version no era
 * serves is refused here, except on a POST outside any session: that may be a 2026-07-28 client
 * probing, and is answered once its body is read (UnsupportedProtocolVersion, see endpoint.ts).
 */
export function checkProtocolVersion(request: FastifyRequest): string | undefined {
  const header = request.headers['mcp-protocol-version'];
  if (header === undefined) return undefined;
  if (typeof header === 'string' && (isSupportedProtocolVersion(header) || isModernProtocolVersion(header))) return undefined;
  if (request.method === 'POST' && sessionIdOf(request) === undefined) return undefined;
  return `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(header)}`;
}

/** Clients send the same Accept header on every request: remember the verdict for the last few. */
const acceptVerdicts = new Map<string, boolean>();

export function acceptsBoth(accept: string | undefined): boolean {
  if (!accept) return false;
  let verdict = acceptVerdicts.get(accept);
  if (verdict === undefined) {
    verdict = acceptsType(accept, 'application/json') && acceptsType(accept, 'text/event-stream');
    if (acceptVerdicts.size >= 64) acceptVerdicts.clear();
    acceptVerdicts.set(accept, verdict);
  }
  return verdict;
}

/** Whether Accept lists `type` itself: the transport spec asks clients to name both types, so wildcards do not count. */
export function acceptsType(accept: string | undefined, type: string): boolean {
  if (!accept) return false;
  for (const part of accept.split(',')) {
    if (part.split(';')[0]!.trim().toLowerCase() === type) return true;
  }
  return false;
}

export function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === 'application/json') return true;
  if (!contentType) return false;
  return contentType.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

export function sessionIdOf(request: FastifyRequest): string | undefined {
  const id = request.headers['mcp-session-id'];
  return typeof id === 'string' && id.length > 0 ? id : undefined;
}
