/**
 * An OpenAPI description served as tools, end to end: a real Fastify API publishing its own
 * description with @fastify/swagger (3.0 and 3.1), mcpx serving the generated tools over HTTP,
 * and the official SDK client calling each of them.
 */
import 'reflect-metadata';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pino from 'pino';
import { listen, type McpHttpServer } from '@mcpx/http';
import { openApiServer } from '@mcpx/openapi';
import { petApi, type Seen } from './pet-api';

type Result = { content: { type: string; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

describe.each(['3.0.3', '3.1.0'] as const)('OpenAPI %s through the official client', (version) => {
  let api: Awaited<ReturnType<typeof petApi>>;
  let mcp: McpHttpServer;
  let client: Client;
  let seen: Seen;
  const call = async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as Result;

  beforeAll(async () => {
    api = await petApi(version);
    seen = api.seen;
    // The description as the API publishes it; calls go to the base URL given here, with configured credentials.
    const server = await openApiServer(`${api.url}/openapi.json`, { baseUrl: api.url, headers: { authorization: 'Bearer from-config' }, query: { key: 'k-1' } });
    mcp = await listen(server, { port: 0, host: '127.0.0.1', logger: pino({ level: 'silent' }) });
    client = new Client({ name: 'openapi-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
  });
  afterAll(async () => {
    await client?.close();
    await mcp?.close();
    await api?.app.close();
  });

  it('makes one tool per operation, named by operationId, with the parameters and body as input and the JSON answer as output', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'Pet API', version: '2.1.0' });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['listPets', 'createPet', 'getPet', 'deletePet', 'whoAmI', 'readFile']);
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('getPet')).toMatchObject({
      title: 'Get a pet',
      inputSchema: { type: 'object', properties: { petId: { type: 'integer' } }, required: ['petId'] },
      outputSchema: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } }, required: ['id', 'name'] },
      annotations: { readOnlyHint: true, destructiveHint: false },
    });
    // 3.0 says `nullable: true`; either way the client reads a JSON Schema null type.
    const body = (byName.get('createPet')!.inputSchema.properties as Record<string, { properties: Record<string, { type: unknown }> }>).body!;
    expect(body.properties.tag!.type).toEqual(['string', 'null']);
    expect(byName.get('createPet')!.inputSchema.required).toEqual(['body']);
    // An array answer is wrapped: structuredContent is an object.
    expect(byName.get('listPets')!.outputSchema).toMatchObject({ type: 'object', properties: { result: { type: 'array' } }, required: ['result'] });
    expect(byName.get('deletePet')).toMatchObject({ annotations: { destructiveHint: true }, inputSchema: { required: ['petId', 'x-request-id'] } });
  });

  it('calls each operation and answers with its JSON as structured content', async () => {
    const created = await call('createPet', { body: { name: 'Rex', tag: null } });
    expect(created.isError).toBeFalsy();
    expect(created.structuredContent).toEqual({ id: 2, name: 'Rex', tag: null });
    expect(JSON.parse(created.content[0]!.text)).toEqual(created.structuredContent);

    expect((await call('listPets', { limit: 1 })).structuredContent).toEqual({ result: [{ id: 1, name: 'Tom', tag: 'cat' }] });
    expect((await call('getPet', { petId: 2 })).structuredContent).toEqual({ id: 2, name: 'Rex', tag: null });

    const deleted = await call('deletePet', { petId: 2, 'x-request-id': 'req-42' });
    expect(deleted.isError).toBeFalsy();
    expect(seen.requestIds).toEqual(['req-42']);

    // Credentials and query parameters come from configuration.
    expect((await call('whoAmI')).structuredContent).toEqual({ authorization: 'Bearer from-config', key: 'k-1' });
  });

  it('makes an HTTP error a tool error with its status and body', async () => {
    const missing = await call('getPet', { petId: 99 });
    expect(missing.isError).toBe(true);
    expect(missing.content[0]!.text).toMatch(/^HTTP 404 Not Found: .*no such pet/);
  });

  it('refuses arguments that break the input schema before calling the API', async () => {
    const before = seen.paths.length;
    const bad = await call('getPet', { petId: 'one' });
    expect(bad.isError).toBe(true);
    expect(seen.paths.length).toBe(before);
  });

  it('never leaves the route: a path parameter of "." or ".." is refused, anything else is one encoded segment', async () => {
    const before = seen.paths.length;
    for (const name of ['..', '.']) {
      const refused = await call('readFile', { name });
      expect(refused).toMatchObject({ isError: true, content: [{ text: `path parameter "name" may not be ${JSON.stringify(name)}` }] });
    }
    expect(seen.paths.length).toBe(before);
    expect((await call('readFile', { name: '../../etc/passwd' })).structuredContent).toEqual({ name: '../../etc/passwd' });
    expect(seen.paths.at(-1)).toBe('/files/..%2F..%2Fetc%2Fpasswd?key=k-1');
  });

  it('serves a 2026-07-28 client (client 2.x) the same tools', async () => {
    const modern = new ModernClient({ name: 'openapi-modern', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    modern.onerror = () => {};
    await modern.connect(new ModernTransport(new URL(mcp.url)), { timeout: 10_000 });
    try {
      expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const result = (await modern.callTool({ name: 'getPet', arguments: { petId: 1 } })) as Result;
      expect(result.structuredContent).toEqual({ id: 1, name: 'Tom', tag: 'cat' });
    } finally {
      await modern.close();
    }
  });
});
