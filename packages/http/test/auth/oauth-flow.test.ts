import 'reflect-metadata';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { McpServer, Server, Tool, type RequestContext } from '@mcpx/core';
import { jwtVerifier, type McpHttpServer } from '@mcpx/http';
import { freePort, startServer } from '../http-kit';
import { startTestAuthorizationServer, type TestAuthorizationServer } from './test-authorization-server';

@Server({ name: 'oauth-protected', version: '1.0.0' })
class Notes extends McpServer {
  @Tool({ scopes: ['notes:read'] })
  read(_input: void, ctx: RequestContext) {
    return `notes for ${ctx.principal?.subject} (${ctx.principal?.scopes.join(' ')})`;
  }

  @Tool({ scopes: ['notes:write'] })
  write(_input: void, ctx: RequestContext) {
    return `written by ${ctx.principal?.subject}`;
  }
}

/**
 * The official client's OAuth support, driven as a browser would be: the authorization URL is
 * "visited" (the test server approves at once and redirects), and the code handed back.
 */
class AutoApprovingProvider implements OAuthClientProvider {
  private info?: OAuthClientInformationMixed;
  private saved?: OAuthTokens;
  private verifier = '';
  /** The code from the last authorization redirect, for transport.finishAuth(). */
  code?: string;
  authorizations: URL[] = [];

  get redirectUrl() {
    return 'http://127.0.0.1:9/callback';
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'mcpx oauth test',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(url: URL) {
    this.authorizations.push(url);
    const res = await fetch(url, { redirect: 'manual' });
    const location = res.headers.get('location');
    if (res.status !== 302 || !location) throw new Error(`authorization answered ${res.status}`);
    this.code = new URL(location).searchParams.get('code') ?? undefined;
  }
}

let as: TestAuthorizationServer;
let server: McpHttpServer;
let resource: string;

beforeAll(async () => {
  as = await startTestAuthorizationServer();
  const port = await freePort(); // the resource URL names the port, so it is picked first
  resource = `http://127.0.0.1:${port}/mcp`;
  server = await startServer(new Notes(), {
    port,
    auth: {
      resource,
      authorizationServers: [as.issuer],
      scopesSupported: ['notes:read', 'notes:write'],
      verifier: jwtVerifier({ jwksUrl: as.jwksUrl, issuer: as.issuer, audience: resource }),
    },
  });
});
afterAll(async () => {
  await server.close();
  await as.close();
});

describe('the official client against a protected mcpx server', () => {
  it('discovers everything from the 401, registers, authorizes with PKCE and calls a protected tool', async () => {
    as.defaultScope = 'notes:read';
    const provider = new AutoApprovingProvider();
    const url = new URL(resource);

    // 1. No token: the 401 points at the metadata; the client registers, authorizes and must come back with the code.
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await expect(new Client({ name: 'oauth', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizations).toHaveLength(1);
    const authorization = provider.authorizations[0]!;
    expect(authorization.searchParams.get('resource')).toBe(resource); // RFC 8707
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('scope')).toBe('notes:read notes:write'); // from the challenge
    await first.finishAuth(provider.code!);
    expect(as.tokenRequests.at(-1)).toMatchObject({ grant_type: 'authorization_code', resource });

    // 2. With its token: a session, and the protected tool.
    as.defaultScope = 'notes:read';
    const client = new Client({ name: 'oauth', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await client.connect(transport);
    expect(await client.callTool({ name: 'read', arguments: {} })).toEqual({
      content: [{ type: 'text', text: expect.stringMatching(/^notes for alice \(notes:read( notes:write)?\)$/) }],
    });
    await client.close();
  });

  it('steps up from 403 insufficient_scope to a token with the wider scope, in the same session', async () => {
    const provider = new AutoApprovingProvider();
    const url = new URL(resource);
    // A token with notes:read only: the test server grants what is asked, so ask narrowly first.
    const registered = await fetch(`${as.issuer}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(provider.clientMetadata),
    }).then((r) => r.json() as Promise<OAuthClientInformationMixed>);
    provider.saveClientInformation(registered);
    const narrow = await as.mintToken({ audience: resource, scope: 'notes:read', clientId: registered.client_id });
    provider.saveTokens({ access_token: narrow, token_type: 'Bearer' });

    const client = new Client({ name: 'oauth', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['read']);

    // The call needs notes:write: 403 with the scopes to ask for; the client re-authorizes with them.
    await expect(client.callTool({ name: 'write', arguments: {} })).rejects.toBeInstanceOf(UnauthorizedError);
    const stepUp = provider.authorizations.at(-1)!;
    expect(stepUp.searchParams.get('scope')).toBe('notes:read notes:write');
    await transport.finishAuth(provider.code!);
    expect(await client.callTool({ name: 'write', arguments: {} })).toEqual({ content: [{ type: 'text', text: 'written by alice' }] });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['read', 'write']);
    await client.close();
  });
});
