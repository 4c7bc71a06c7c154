/**
 * Middleware and a protocol extension in a real stdio server process (fixtures/pipeline-stdio-server.ts),
 * spawned by the official clients' own stdio transports: sdk 1.x (2025-11-25, a session) and
 * client 2.x (2026-07-28). The process reports the order its middleware ran in through a tool.
 */
import { Client, ProtocolError, type StandardSchemaV1 } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError as LegacyMcpError, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { fixtureServer } from './line-peer';

/** Spawning compiles the fixture and the packages it imports from source: slow on a busy machine. */
const SPAWN_TIMEOUT_MS = 90_000;
const EXTENSION_ID = 'com.example/test';
const SERVER = fixtureServer('pipeline-stdio-server.ts');

const anyResult: StandardSchemaV1<unknown, Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'pipeline-process-test',
    validate: (value) => (value !== null && typeof value === 'object' ? { value: value as Record<string, unknown> } : { issues: [{ message: 'not an object' }] }),
  },
};

/** What a `trace` call answers: the middleware (and handlers) that ran since the last, in order. */
const traced = (result: object) => JSON.parse((result as { content: { text: string }[] }).content[0]!.text) as string[];
/** The trace call's own middleware, which ran before its handler read the record. */
const TRACE_ITSELF = ['options tools/call', 'server tools/call', 'extension tools/call'];

describe('a stdio server process, 2025-11-25 (sdk 1.x spawns it)', () => {
  let client: LegacyClient;

  beforeAll(async () => {
    client = new LegacyClient({ name: 'pipeline-process-legacy', version: '1.0.0' });
    await client.connect(new LegacyStdioTransport({ ...SERVER, stderr: 'pipe' }));
  }, SPAWN_TIMEOUT_MS);
  afterAll(() => client?.close());

  it('declares the extension under experimental, serves its method after the middleware of the options, @Server and the extension', async () => {
    expect(client.getServerCapabilities()?.experimental).toEqual({ [EXTENSION_ID]: { flavour: 'plain', level: 2 } });
    await client.callTool({ name: 'trace', arguments: {} });
    const echoed = await client.request({ method: 'example/echo', params: { text: 'hi', times: 2 } }, ResultSchema);
    expect(echoed).toEqual({ echoed: 'hihi', era: 'legacy', fromMiddleware: 'extension saw example/echo' });
    expect(traced(await client.callTool({ name: 'trace', arguments: {} }))).toEqual(['options example/echo', 'server example/echo', 'extension example/echo', ...TRACE_ITSELF]);
  });

  it('refuses bad params with -32602', async () => {
    const err = await client.request({ method: 'example/echo', params: { text: ['not', 'a', 'string'] } }, ResultSchema).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LegacyMcpError);
    expect((err as LegacyMcpError).code).toBe(-32602);
  });
});

describe('a stdio server process, 2026-07-28 (client 2.x spawns it)', () => {
  let client: Client;

  beforeAll(async () => {
    client = new Client({ name: 'pipeline-process-modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    client.onerror = () => {};
    await client.connect(new StdioClientTransport({ ...SERVER, stderr: 'pipe' }), { timeout: SPAWN_TIMEOUT_MS });
  }, SPAWN_TIMEOUT_MS);
  afterAll(() => client?.close());

  it('declares the extension under extensions, serves its method after the middleware of the options, @Server and the extension', async () => {
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(client.getServerCapabilities()?.extensions).toEqual({ [EXTENSION_ID]: { flavour: 'plain', level: 2 } });
    await client.callTool({ name: 'trace', arguments: {} });
    const echoed = await client.request({ method: 'example/echo', params: { text: 'yo', times: 3 } }, anyResult);
    expect(echoed).toMatchObject({ echoed: 'yoyoyo', era: 'modern', fromMiddleware: 'extension saw example/echo' });
    expect(traced(await client.callTool({ name: 'trace', arguments: {} }))).toEqual(['options example/echo', 'server example/echo', 'extension example/echo', ...TRACE_ITSELF]);
  });

  it('refuses a method that needs the extension declared with -32021', async () => {
    const err = await client.request({ method: 'example/strict', params: {} }, anyResult).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProtocolError);
    expect((err as ProtocolError).code).toBe(-32021);
    expect((err as ProtocolError).data).toEqual({ requiredCapabilities: { extensions: { [EXTENSION_ID]: {} } } });
  });
});
