/**
 * A rate limit over stdio, in a spawned server process, through the official clients of both eras:
 * of 30 calls to a tool limited to 10 a minute exactly 10 are answered, and the rest get the
 * JSON-RPC error -32004 with the limit's data (stdio has no status or headers).
 */
import { Client, ProtocolError } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError as LegacyMcpError } from '@modelcontextprotocol/sdk/types.js';
import { fixtureServer } from './line-peer';

const SPAWN_TIMEOUT_MS = 90_000;
const SERVER = fixtureServer('rate-limit-stdio-server.ts');

interface Peer {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

describe.each([
  [
    '2025-11-25 (sdk 1.x spawns it)',
    async (): Promise<Peer> => {
      const client = new LegacyClient({ name: 'rate-limit-legacy', version: '1.0.0' });
      await client.connect(new LegacyStdioTransport({ ...SERVER, stderr: 'pipe' }));
      return client as unknown as Peer;
    },
  ],
  [
    '2026-07-28 (client 2.x spawns it)',
    async (): Promise<Peer> => {
      const client = new Client({ name: 'rate-limit-modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      client.onerror = () => {};
      await client.connect(new StdioClientTransport({ ...SERVER, stderr: 'pipe' }), { timeout: SPAWN_TIMEOUT_MS });
      return client as unknown as Peer;
    },
  ],
] as const)('a rate limit over stdio, %s', (_era, start) => {
  let client: Peer;
  beforeAll(async () => {
    client = await start();
  }, SPAWN_TIMEOUT_MS);
  afterAll(() => client?.close());

  it('answers exactly 10 of 30 calls; the other 20 get -32004 naming the limit, its window and the wait', async () => {
    const outcomes: ('ok' | number)[] = [];
    for (let i = 0; i < 30; i++) {
      const answer = await client.callTool({ name: 'work', arguments: {} }).then(
        (result) => {
          expect(result).toMatchObject({ content: [{ type: 'text', text: 'done' }] });
          return 'ok' as const;
        },
        (err: { code: number; data: Record<string, unknown> }) => {
          expect(err instanceof ProtocolError || err instanceof LegacyMcpError).toBe(true);
          expect(err.data).toMatchObject({ limit: 'ten-a-minute', max: 10, windowMs: 60_000 });
          expect(err.data.retryAfterMs).toBeGreaterThan(50_000);
          return err.code;
        },
      );
      outcomes.push(answer);
    }
    expect(outcomes).toEqual([...Array<'ok'>(10).fill('ok'), ...Array<number>(20).fill(-32004)]);
  });
});
