/**
 * Progress over stdio in 2026-07-28 (a spawned server): the server writes no requests to stdout in
 * that era (no `ping`, which the era no longer has), and every progress notification of a call
 * still reaches the client before its result, with the raw wire and with the official client 2.x.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { LinePeer, fixtureServer, type Message } from './line-peer';

/** Spawning compiles the fixture and the packages it imports from source: slow on a busy machine. */
const SPAWN_TIMEOUT_MS = 90_000;

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'progress-wire-test', version: '1.0.0' },
};

describe('2026-07-28 progress over stdio', () => {
  it(
    'writes every progress notification before the result, and no request (no ping) at all',
    async () => {
      const peer = new LinePeer('stdio-fixture-server.ts');
      try {
        for (let call = 1; call <= 5; call++) {
          const token = `progress-${call}`;
          const response = await peer.request('tools/call', { name: 'burst', arguments: { count: 4 }, _meta: { ...MODERN_META, progressToken: token } }, call);
          expect(response.result.content[0].text).toBe('sent 4');
          const mine = peer.received.filter((m: Message) => (m.id === call && m.method === undefined) || m.params?.progressToken === token);
          // The response is written last, after its four progress notifications.
          expect(mine.map((m) => (m.method === 'notifications/progress' ? m.params.progress : 'result'))).toEqual([1, 2, 3, 4, 'result']);
        }
        // Nothing the server wrote is a request: every message with a method is a notification.
        const requests = peer.received.filter((m: Message) => m.method !== undefined && m.id !== undefined);
        expect(requests).toEqual([]);
        expect(peer.received.some((m: Message) => m.method === 'ping')).toBe(false);
      } finally {
        peer.kill();
      }
    },
    SPAWN_TIMEOUT_MS,
  );

  it(
    'gives the official 2026-07-28 client every progress notification of each call',
    async () => {
      const transport = new StdioClientTransport({ ...fixtureServer('stdio-fixture-server.ts'), stderr: 'pipe' });
      const client = new Client({ name: 'progress-sdk-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await client.connect(transport);
      try {
        for (let call = 0; call < 20; call++) {
          const seen: number[] = [];
          const result = await client.callTool({ name: 'burst', arguments: { count: 3 } }, { onprogress: (p) => void seen.push(p.progress), timeout: 10_000 });
          expect(result.content).toEqual([{ type: 'text', text: 'sent 3' }]);
          expect(seen).toEqual([1, 2, 3]);
        }
      } finally {
        await client.close();
      }
    },
    SPAWN_TIMEOUT_MS,
  );
});
