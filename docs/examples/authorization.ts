import 'reflect-metadata';
import { Server, Tool, Resource, type RequestContext } from '@mcpx/core';
import { listen, jwtVerifier, type AuthOptions } from '@mcpx/http';

@Server({ name: 'notes', version: '1.0.0' })
export class ProtectedNotes {
  @Tool({ description: 'Who am I?' })
  whoami(_input: void, ctx: RequestContext) {
    // subject, clientId, scopes and every claim of the verified token
    return `${ctx.principal?.subject} (client ${ctx.principal?.clientId})`;
  }

  @Tool({ description: 'Deletes every note', scopes: ['notes:admin'] })
  purge() {
    return 'purged';
  }

  @Resource({ uri: 'notes://all', name: 'all notes', scopes: ['notes:read'] })
  all() {
    return 'every note';
  }
}

/** The identity provider's settings (here an Auth0 tenant with an API whose identifier is the MCP URL). */
export const auth: AuthOptions = {
  resource: 'https://mcp.example.com/mcp', // this server's public URL: tokens must be issued for it
  authorizationServers: ['https://example.eu.auth0.com/'],
  scopesSupported: ['notes:read', 'notes:admin'],
  verifier: jwtVerifier({
    jwksUrl: 'https://example.eu.auth0.com/.well-known/jwks.json',
    issuer: 'https://example.eu.auth0.com/',
    audience: 'https://mcp.example.com/mcp',
  }),
};

export async function main() {
  return listen(new ProtectedNotes(), { host: '0.0.0.0', port: 3000, allowedHosts: ['mcp.example.com'], auth });
}

if (require.main === module) void main();
