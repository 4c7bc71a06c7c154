import 'reflect-metadata';
import Fastify, { type FastifyInstance } from 'fastify';
import { Server, Tool, type RequestContext } from '@mcpx/core';
import { InvalidTokenError, mcpx, registerProtectedResourceMetadata, type AuthOptions } from '@mcpx/http';
import { freePort, initializeBody, post, request } from '../http-kit';

@Server({ name: 'mounted-protected', version: '1.0.0' })
class Mounted {
  @Tool()
  whoami(_input: void, ctx: RequestContext) {
    return ctx.principal?.subject ?? 'nobody';
  }
}

describe('auth on the plugin, mounted under a prefix, with a verifier of your own', () => {
  let app: FastifyInstance;
  let base: string;
  const tokensSeen: string[] = [];

  beforeAll(async () => {
    const port = await freePort(); // the resource URL names the port, so it is picked first
    base = `http://127.0.0.1:${port}`;
    const auth: AuthOptions = {
      resource: `${base}/tools/mcp`,
      authorizationServers: ['https://id.example.test'],
      verifier: async (token) => {
        tokensSeen.push(token);
        if (token !== 'let-me-in') throw new InvalidTokenError('unknown token');
        return { subject: 'svc', scopes: [], claims: { sub: 'svc' } };
      },
    };
    app = Fastify({ logger: false });
    app.get('/hello', async () => ({ hello: 'world' }));
    await app.register(mcpx, { server: new Mounted(), prefix: '/tools', auth, logLevel: 'silent' });
    registerProtectedResourceMetadata(app, auth);
    await app.listen({ port, host: '127.0.0.1' });
  });
  afterAll(() => app.close());

  it('guards only the MCP routes, and the metadata is registered on the root app', async () => {
    expect((await request(`${base}/hello`)).status).toBe(200);
    const metadata = await request(`${base}/.well-known/oauth-protected-resource/tools/mcp`);
    expect(JSON.parse(metadata.body)).toMatchObject({ resource: `${base}/tools/mcp`, authorization_servers: ['https://id.example.test'] });

    const anonymous = await post(`${base}/tools/mcp`, initializeBody());
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/tools/mcp"`);

    const wrong = await post(`${base}/tools/mcp`, initializeBody(), undefined, { authorization: 'Bearer guess' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toContain('error="invalid_token", error_description="unknown token"');

    const ok = await post(`${base}/tools/mcp`, initializeBody(), undefined, { authorization: 'Bearer let-me-in' });
    expect(ok.status).toBe(200);
    expect(tokensSeen).toEqual(['guess', 'let-me-in']);
  });
});
