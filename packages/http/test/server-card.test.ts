/**
 * The MCP server card (the `serverCard` option, experimental): real HTTP to listening servers. The
 * card is checked field by field and against the draft's JSON Schema (2020-12), at both of its
 * paths, with the draft's media type, CORS, caching, ETag and 304; public when auth is on; absent
 * when off. fixtures/server-card.schema.json is an unmodified copy of schema.json from
 * modelcontextprotocol/experimental-ext-server-card (commit 92999cb, 2026-06-27).
 */
import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import Fastify from 'fastify';
import { Server, Tool, UnknownOptionError } from '@mcpx/core';
import { InvalidTokenError, mcpx, type AuthOptions, type McpHttpServer } from '@mcpx/http';
import { initializeBody, post, request, startServer, type RawResponse } from './http-kit';
import { serverCardOptions } from '../../../docs/examples/transports-server-card';

const SCHEMA_PATH = join(__dirname, 'fixtures', 'server-card.schema.json');
const SCHEMA_SHA256 = '2c772b51edb367f154771d84ddbae87ddba00a624422c8e46f218a9ac03bf042';
const CARD_TYPE = 'application/mcp-server-card+json';
const SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
const VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'];
const WELL_KNOWN = '/.well-known/mcp/server-card.json';

const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv);
ajv.addSchema(JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as object, 'server-card');
const validateCard = ajv.getSchema('server-card#/$defs/ServerCard')!;

/** The schema's complaints about a card (none: it is valid). */
function schemaErrors(card: unknown): string[] {
  return validateCard(card) ? [] : (validateCard.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`);
}

const LONG_DESCRIPTION = 'Forecasts, current conditions and severe weather alerts for any city in the world, from several national weather services at once.';

@Server({
  name: 'weather',
  title: 'Weather',
  version: '2.1.0',
  description: LONG_DESCRIPTION,
  websiteUrl: 'https://weather.example.com',
  icons: [{ src: 'https://weather.example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] }],
  instructions: 'Secret-ish instructions the card must not carry',
})
class WeatherServer {
  @Tool({ description: 'The forecast for a city' })
  forecast() {
    return 'sunny';
  }
}

@Server({ name: 'io.github.acme/plain', version: '1.0.0' })
class PlainServer {
  @Tool()
  ping() {
    return 'pong';
  }
}

@Server({ name: 'io.github.acme/described', version: '0.3.0', description: 'Says pong.' })
class DescribedServer {
  @Tool()
  ping() {
    return 'pong';
  }
}

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET',
  'access-control-allow-headers': 'Content-Type, If-None-Match',
  'access-control-expose-headers': 'ETag',
};

/** The card's URLs on a running server: the draft's, next to the endpoint, and the well-known one. */
function cardUrls(server: McpHttpServer): [string, string] {
  return [`${server.url}/server-card`, new URL(WELL_KNOWN, server.url).href];
}

function cardOf(response: RawResponse): Record<string, unknown> {
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toBe(CARD_TYPE);
  return JSON.parse(response.body) as Record<string, unknown>;
}

it('validates with an unmodified copy of the draft schema, which tells good cards from bad ones', () => {
  expect(createHash('sha256').update(readFileSync(SCHEMA_PATH)).digest('hex')).toBe(SCHEMA_SHA256);
  const minimal = { $schema: SCHEMA_URL, name: 'example-org/minimal', version: '1.0.0', description: 'Smallest valid Server Card.' };
  expect(schemaErrors(minimal)).toEqual([]);
  expect(schemaErrors({ ...minimal, name: 'no-slash-in-name' })).not.toEqual([]);
  expect(schemaErrors({ ...minimal, $schema: 'https://static.modelcontextprotocol.io/schemas/2025-11-25/server-card.schema.json' })).not.toEqual([]);
  expect(schemaErrors({ ...minimal, description: 'x'.repeat(101) })).not.toEqual([]);
});

describe('serverCard with a public URL', () => {
  let server: McpHttpServer;
  const repository = { url: 'https://github.com/acme/weather', source: 'github', subfolder: 'servers/weather' };

  beforeAll(async () => {
    server = await startServer(new WeatherServer(), { serverCard: { url: 'https://mcp.example.com/mcp', repository } });
  });
  afterAll(() => server.close());

  it('serves the card built from the server: name from the URL host, description cut at a word, remotes with the served versions', async () => {
    const [draftUrl] = cardUrls(server);
    const card = cardOf(await request(draftUrl, { headers: { accept: CARD_TYPE } }));
    const description = 'Forecasts, current conditions and severe weather alerts for any city in the world, from several…';
    expect(description.length).toBeLessThanOrEqual(100);
    expect(LONG_DESCRIPTION.startsWith(description.slice(0, -1))).toBe(true);
    expect(card).toEqual({
      $schema: SCHEMA_URL,
      name: 'com.example.mcp/weather',
      version: '2.1.0',
      title: 'Weather',
      description,
      websiteUrl: 'https://weather.example.com',
      repository,
      icons: [{ src: 'https://weather.example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] }],
      remotes: [{ type: 'streamable-http', url: 'https://mcp.example.com/mcp', supportedProtocolVersions: VERSIONS }],
    });
    expect(schemaErrors(card)).toEqual([]);
    // Nothing of what runs inside: no tools, no instructions, no address the server listens on.
    const text = JSON.stringify(card);
    for (const secret of ['forecast', 'instructions', 'Secret-ish', '127.0.0.1']) expect(text).not.toContain(secret);
  });

  it('serves the same document at both paths, with the media type, CORS and caching headers and a strong ETag', async () => {
    const [draft, wellKnown] = await Promise.all(cardUrls(server).map((url) => request(url)));
    for (const response of [draft!, wellKnown!]) {
      expect(response.status).toBe(200);
      expect(response.headers).toMatchObject({ ...CORS, 'content-type': CARD_TYPE, 'cache-control': 'public, max-age=3600' });
      expect(response.headers.etag).toMatch(/^"[A-Za-z0-9_-]{20,}"$/);
    }
    expect(wellKnown!.body).toBe(draft!.body);
    expect(wellKnown!.headers.etag).toBe(draft!.headers.etag);
    // Strong: it changes with the body (a different card, below, has a different tag).
    const plain = await startServer(new DescribedServer(), { serverCard: { url: 'https://mcp.example.com/mcp' } });
    try {
      const other = await request(cardUrls(plain)[0]);
      expect(other.headers.etag).not.toBe(draft!.headers.etag);
    } finally {
      await plain.close();
    }
  });

  it('answers If-None-Match with 304 (its tag, weak or strong, or *), anything else with the card', async () => {
    for (const url of cardUrls(server)) {
      const { headers } = await request(url);
      const etag = headers.etag as string;
      for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const notModified = await request(url, { headers: { 'if-none-match': ifNoneMatch } });
        expect({ ifNoneMatch, status: notModified.status, body: notModified.body }).toEqual({ ifNoneMatch, status: 304, body: '' });
        expect(notModified.headers).toMatchObject({ ...CORS, etag, 'cache-control': 'public, max-age=3600' });
      }
      const changed = await request(url, { headers: { 'if-none-match': '"stale"' } });
      expect(changed.status).toBe(200);
      expect(changed.body).not.toBe('');
    }
  });

  it('answers HEAD with the headers alone, and a CORS preflight from any origin with 204', async () => {
    for (const url of cardUrls(server)) {
      const head = await request(url, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.body).toBe('');
      expect(head.headers).toMatchObject({ ...CORS, 'content-type': CARD_TYPE });

      const preflight = await request(url, {
        method: 'OPTIONS',
        headers: { origin: 'https://catalog.example.org', 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers).toMatchObject(CORS);
    }
  });

  it('is readable from a page of any origin, which the MCP endpoint itself still refuses', async () => {
    const origin = 'https://catalog.example.org';
    for (const url of cardUrls(server)) {
      const response = await request(url, { headers: { origin } });
      expect(response.status).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBe('*');
    }
    expect((await post(server.url, initializeBody(), undefined, { origin })).status).toBe(403);
  });

  it('takes GET and HEAD only', async () => {
    const [url] = cardUrls(server);
    for (const method of ['POST', 'PUT', 'DELETE']) expect({ method, status: (await request(url, { method, body: '{}' })).status }).toEqual({ method, status: 404 });
  });
});

describe('serverCard with auth on', () => {
  let server: McpHttpServer;
  const auth: AuthOptions = {
    resource: 'https://weather.acme.dev/mcp',
    authorizationServers: ['https://id.acme.dev'],
    verifier: async (token) => {
      if (token !== 'let-me-in') throw new InvalidTokenError('unknown token');
      return { subject: 'svc', scopes: [], claims: { sub: 'svc' } };
    },
  };

  beforeAll(async () => {
    // CORS on as well: the protected-resource metadata then has @fastify/cors of its own under /.well-known.
    server = await startServer(new WeatherServer(), { auth, serverCard: true, cors: { origins: ['https://app.example.com'] } });
  });
  afterAll(() => server.close());

  it('serves the card without a token (its URL and name from auth.resource), while /mcp needs one', async () => {
    for (const url of cardUrls(server)) {
      for (const authorization of [undefined, 'Bearer wrong']) {
        const card = cardOf(await request(url, { headers: { authorization } }));
        expect(card).toMatchObject({ name: 'dev.acme.weather/weather', remotes: [{ type: 'streamable-http', url: auth.resource, supportedProtocolVersions: VERSIONS }] });
        expect(schemaErrors(card)).toEqual([]);
      }
    }
    expect((await post(server.url, initializeBody())).status).toBe(401);
    expect((await post(server.url, initializeBody(), undefined, { authorization: 'Bearer let-me-in' })).status).toBe(200);
  });

  it("answers preflights with the card's own CORS headers, next to the endpoint's and the metadata's", async () => {
    for (const url of cardUrls(server)) {
      const preflight = await request(url, { method: 'OPTIONS', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' } });
      expect(preflight.status).toBe(204);
      expect(preflight.headers).toMatchObject(CORS);
    }
    const metadata = await request(new URL('/.well-known/oauth-protected-resource/mcp', server.url).href, { headers: { origin: 'https://app.example.com' } });
    expect(metadata.headers['access-control-allow-origin']).toBe('https://app.example.com');
  });
});

describe('serverCard off', () => {
  it('is the default: both paths are 404 as before, and so with serverCard: false', async () => {
    for (const serverCard of [undefined, false]) {
      const server = await startServer(new WeatherServer(), serverCard === undefined ? {} : { serverCard });
      try {
        for (const url of cardUrls(server)) expect({ url, status: (await request(url)).status }).toEqual({ url, status: 404 });
      } finally {
        await server.close();
      }
    }
  });
});

describe('what the card is made from', () => {
  it('refuses to start a server with no description, and takes serverCard.description for it', async () => {
    const err = await startServer(new PlainServer(), { serverCard: { url: 'https://plain.acme.dev/mcp' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RangeError);
    expect((err as Error).message).toBe(
      'serverCard: the card needs a description, and the server "io.github.acme/plain" has none: give @Server({ description }) or serverCard.description (1 to 100 characters)',
    );

    const server = await startServer(new PlainServer(), { serverCard: { description: '  Answers   ping with pong. ', url: 'https://plain.acme.dev/mcp' } });
    try {
      const card = cardOf(await request(cardUrls(server)[0]));
      // The server's own reverse-DNS name is kept; no title, website or icons when the server has none.
      expect(card).toEqual({
        $schema: SCHEMA_URL,
        name: 'io.github.acme/plain',
        version: '1.0.0',
        description: 'Answers ping with pong.',
        remotes: [{ type: 'streamable-http', url: 'https://plain.acme.dev/mcp', supportedProtocolVersions: VERSIONS }],
      });
      expect(schemaErrors(card)).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('refuses to start when no reverse-DNS name can be made, saying how to give one', async () => {
    const noUrl = await startServer(new WeatherServer(), { serverCard: true }).catch((e: unknown) => e);
    expect(noUrl).toBeInstanceOf(RangeError);
    expect((noUrl as Error).message).toMatch(/^serverCard: the card needs a reverse-DNS name, namespace\/name .*"weather" is not one, and no public URL is configured .*serverCard\.name/);
    const ipUrl = await startServer(new WeatherServer(), { serverCard: { url: 'https://10.0.0.7/mcp' } }).catch((e: unknown) => e);
    expect((ipUrl as Error).message).toContain('the host of https://10.0.0.7/mcp is no domain name');
    await expect(startServer(new WeatherServer(), { serverCard: { name: 'weather' } })).rejects.toThrow('serverCard.name must be reverse-DNS');
  });

  it('takes the options shown in docs/transports.md', async () => {
    const server = await startServer(new WeatherServer(), serverCardOptions);
    try {
      const card = cardOf(await request(cardUrls(server)[1]));
      expect(card).toMatchObject({ name: 'com.example/weather', repository: { url: 'https://github.com/example/weather', source: 'github' } });
      expect(schemaErrors(card)).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('checks its settings: unknown keys, URLs', async () => {
    await expect(startServer(new DescribedServer(), { serverCard: { urls: 'https://x.example.com/mcp' } as never })).rejects.toThrow(UnknownOptionError);
    await expect(startServer(new DescribedServer(), { serverCard: { url: 'mcp.example.com/mcp' } })).rejects.toThrow('serverCard.url must be the http(s) URL of the MCP endpoint');
    await expect(startServer(new DescribedServer(), { serverCard: { url: 'https://user:pw@mcp.example.com/mcp' } })).rejects.toThrow('must not carry credentials');
    await expect(startServer(new DescribedServer(), { serverCard: { websiteUrl: 'example.com' } })).rejects.toThrow('serverCard.websiteUrl must be an absolute URL');
    await expect(startServer(new DescribedServer(), { serverCard: { description: 'x'.repeat(101) } })).rejects.toThrow('serverCard.description must be 1 to 100 characters');
  });

  it('without a configured URL, takes it from the Host only when it is an allowed host, and over plain HTTP only a loopback one', async () => {
    const server = await startServer(new DescribedServer(), { serverCard: true, allowedHosts: ['localhost', '127.0.0.1', 'mcp.example.com'] });
    try {
      const port = new URL(server.url).port;
      const remotesFor = async (host: string) => {
        const card = cardOf(await request(cardUrls(server)[0], { headers: { host } }));
        expect(schemaErrors(card)).toEqual([]);
        return card.remotes;
      };
      expect(await remotesFor(`127.0.0.1:${port}`)).toEqual([{ type: 'streamable-http', url: `http://127.0.0.1:${port}/mcp`, supportedProtocolVersions: VERSIONS }]);
      expect(await remotesFor(`localhost:${port}`)).toEqual([{ type: 'streamable-http', url: `http://localhost:${port}/mcp`, supportedProtocolVersions: VERSIONS }]);
      // A public name over plain HTTP would steer clients away from TLS: no remotes rather than that.
      expect(await remotesFor('mcp.example.com')).toBeUndefined();
      // A Host not on the list is refused outright on this loopback connection (DNS-rebinding protection).
      expect((await request(cardUrls(server)[0], { headers: { host: 'evil.example.net' } })).status).toBe(403);
    } finally {
      await server.close();
    }

    // Behind a proxy Fastify trusts, X-Forwarded-Proto says the client used HTTPS.
    const proxied = await startServer(new DescribedServer(), { serverCard: true, allowedHosts: ['mcp.example.com'], fastify: { trustProxy: true } });
    try {
      const card = cardOf(await request(cardUrls(proxied)[0], { headers: { host: 'mcp.example.com', 'x-forwarded-proto': 'https' } }));
      expect(card.remotes).toEqual([{ type: 'streamable-http', url: 'https://mcp.example.com/mcp', supportedProtocolVersions: VERSIONS }]);
      const notListed = cardOf(await request(cardUrls(proxied)[0], { headers: { host: 'mcp.example.com', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'other.example.com' } }));
      expect(notListed.remotes).toBeUndefined();
    } finally {
      await proxied.close();
    }
  });
});

describe('serverCard in the Fastify plugin', () => {
  it('under a prefix: next to the endpoint only (a .well-known path is the root app’s), outside the endpoint’s CORS', async () => {
    const app = Fastify({ logger: false });
    await app.register(mcpx, {
      server: new DescribedServer(),
      prefix: '/api',
      logLevel: 'silent',
      cors: { origins: ['https://app.example.com'] },
      serverCard: { url: 'https://tools.acme.dev/api/mcp' },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
      const origin = 'https://app.example.com';
      const response = await request(`${base}/api/mcp/server-card`, { headers: { origin } });
      const card = cardOf(response);
      expect(card).toMatchObject({ name: 'io.github.acme/described', remotes: [{ url: 'https://tools.acme.dev/api/mcp' }] });
      expect(response.headers).toMatchObject(CORS);
      // The card's own CORS, not the endpoint's (which would echo the origin and list MCP's methods).
      expect(response.headers['access-control-allow-credentials']).toBeUndefined();
      const preflight = await request(`${base}/api/mcp/server-card`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET' } });
      expect(preflight.status).toBe(204);
      expect(preflight.headers).toMatchObject(CORS);
      expect((await request(`${base}${WELL_KNOWN}`)).status).toBe(404);
      expect((await request(`${base}/api${WELL_KNOWN}`)).status).toBe(404);
    } finally {
      await app.close();
    }
  });
});
