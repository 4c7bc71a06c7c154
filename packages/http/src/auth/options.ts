import type { TokenVerifier } from './verifiers';

/** Makes the endpoint an OAuth 2.1 resource server (the MCP authorization spec, 2025-11-25). */
export interface AuthOptions {
  /** This server's resource identifier (RFC 8707 / RFC 9728): its public MCP URL, e.g. https://mcp.example.com/mcp. */
  resource: string;
  /** The authorization servers clients should get tokens from (their issuer URLs). */
  authorizationServers: string[];
  /** Checks a token (its signature or introspection, issuer, audience = `resource`, expiry) and returns its principal. */
  verifier: TokenVerifier;
  /** Scopes listed in the metadata and in the challenge of a request without a token. */
  scopesSupported?: string[];
  /** Scopes every MCP request needs, whatever it asks for (default none). */
  requiredScopes?: string[];
  /** A human-readable name for the metadata document. */
  resourceName?: string;
}

/** Where the Protected Resource Metadata of `resource` lives (RFC 9728 §3.1: the path goes after the well-known part). */
export function metadataUrlOf(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return `${url.origin}/.well-known/oauth-protected-resource${path}`;
}
