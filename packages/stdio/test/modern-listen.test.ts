/**
 * subscriptions/listen over stdio, end to end: a real server process (listen-fixture-server.ts)
 * spoken to line by line, so the wire itself is checked (acknowledgment first, every notification
 * tagged with its subscription id, no response to a cancelled subscription, a complete result for
 * each open one when the server stops), and by the official 2026-07-28 client.
 */
import { LinePeer, fixtureServer, type Message } from './line-peer';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

/** Spawning compiles the fixture and the packages it imports from source: slow on a busy machine. */
const SPAWN_TIMEOUT_MS = 90_000;
const SUB = 'io.modelcontextprotocol/subscriptionId';
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
const ACK = 'notifications/subscriptions/acknowledged';
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'listen-wire-test', version: '1.0.0' },
};

/** The fixture server, with what these tests ask of it. */
class WirePeer extends LinePeer {
  constructor() {
    super('listen-fixture-server.ts');
  }

  /** The `nth` notification of `method` on the subscription (the first by default). */
  notification(method: string, subscriptionId: number | string, nth = 1): Promise<Message> {
    const isOne = (m: Message) => m.method === method && m.params?._meta?.[SUB] === subscriptionId;
    return this.next((m) => isOne(m) && this.received.filter(isOne).length >= nth);
  }

  async call(id: number, name: string, args: Record<string, unknown> = {}): Promise<string> {
    this.send({ id, method: 'tools/call', params: { name, arguments: args, _meta: META } });
    const response = await this.response(id);
    if (!response.result) throw new Error(`tools/call ${name} failed: ${JSON.stringify(response.error)}; stderr: ${this.stderr}`);
    return response.result.content[0].text as string;
  }
}

const peers: WirePeer[] = [];
afterEach(() => {
  for (const peer of peers.splice(0)) peer.kill();
});

function startPeer(): WirePeer {
  const peer = new WirePeer();
  peers.push(peer);
  return peer;
}

describe('subscriptions/listen over stdio', () => {
  it(
    'acknowledges first, tags what it delivers, and ends a cancelled stream without a response',
    async () => {
      const peer = startPeer();
      peer.send({
        id: 1,
        method: 'subscriptions/listen',
        params: { _meta: META, notifications: { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['mem://config', 'mem://nope'] } },
      });
      const ack = await peer.notification(ACK, 1);
      expect(peer.received[0]).toBe(ack);
      // No prompts on this server, and no such resource: both are left out.
      expect(ack.params).toEqual({ notifications: { toolsListChanged: true, resourceSubscriptions: ['mem://config'] }, _meta: { [SUB]: 1 } });

      expect(await peer.call(2, 'grow', { name: 'first' })).toBe('added first');
      expect(await peer.notification('notifications/tools/list_changed', 1)).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: { [SUB]: 1 } },
      });
      await peer.call(3, 'touch', { uri: 'mem://config' });
      expect(await peer.notification('notifications/resources/updated', 1)).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: 'mem://config', _meta: { [SUB]: 1 } },
      });

      // A second stream on the same pipe, with a string id: each notification names its own subscription.
      peer.send({ id: 'second', method: 'subscriptions/listen', params: { _meta: META, notifications: { toolsListChanged: true } } });
      await peer.notification(ACK, 'second');
      expect(await peer.call(4, 'listening')).toBe('2');
      await peer.call(5, 'grow', { name: 'again' });
      await Promise.all([peer.notification('notifications/tools/list_changed', 'second'), peer.notification('notifications/tools/list_changed', 1, 2)]);

      // The client cancels the first: it is dropped at once (the server holds one stream), and never answered.
      peer.send({ method: 'notifications/cancelled', params: { requestId: 1, reason: 'done' } });
      expect(await peer.call(6, 'listening')).toBe('1');
      await peer.call(7, 'touch', { uri: 'mem://config' });
      await peer.call(8, 'listening');

      // The input ends: the server answers the stream still open with its complete result, then exits.
      peer.endInput();
      const closing = await peer.response('second');
      expect(closing.result).toEqual({ resultType: 'complete', _meta: { [SUB]: 'second', [SERVER_INFO]: { name: 'listen-fixture', version: '1.0.0' } } });
      expect(await peer.exited).toBe(0);

      expect(peer.received.filter((m) => m.id === 1)).toEqual([]);
      expect(peer.received.filter((m) => m.method === 'notifications/resources/updated')).toHaveLength(1);
      // Nothing on a stream but its own acknowledgment and what it opted in to.
      for (const m of peer.received.filter((m) => m.method !== undefined)) {
        expect([ACK, 'notifications/tools/list_changed', 'notifications/resources/updated']).toContain(m.method);
        expect(m.params._meta[SUB]).toBeDefined();
      }
    },
    SPAWN_TIMEOUT_MS,
  );

  it(
    'refuses a malformed filter with -32602 and acknowledges nothing',
    async () => {
      const peer = startPeer();
      peer.send({ id: 1, method: 'subscriptions/listen', params: { _meta: META, notifications: { resourceSubscriptions: [42] } } });
      const response = await peer.response(1);
      expect(response.error).toMatchObject({ code: -32602, message: expect.stringContaining('"notifications.resourceSubscriptions[0]" must be a string') });
      expect(peer.received).toEqual([response]);
    },
    SPAWN_TIMEOUT_MS,
  );

  it(
    'serves the official 2026-07-28 client: listen, notifications, close, and a graceful end on shutdown',
    async () => {
      const transport = new StdioClientTransport({ ...fixtureServer('listen-fixture-server.ts'), stderr: 'pipe' });
      const client = new Client({ name: 'listen-sdk-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      const toolChanges: unknown[] = [];
      const updates: string[] = [];
      let toolChanged!: () => void;
      let updated!: () => void;
      client.setNotificationHandler('notifications/tools/list_changed', (n) => {
        toolChanges.push(n);
        toolChanged?.();
      });
      client.setNotificationHandler('notifications/resources/updated', (n) => {
        updates.push(n.params.uri);
        updated?.();
      });
      let stderr = '';
      transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      await client.connect(transport);
      try {
        const subscription = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['mem://items/9', 'mem://gone'] });
        expect(subscription.honoredFilter).toEqual({ toolsListChanged: true, resourceSubscriptions: ['mem://items/9'] });

        const changed = new Promise<void>((resolve) => (toolChanged = resolve));
        await client.callTool({ name: 'grow', arguments: { name: 'sdk' } });
        await changed;
        const touched = new Promise<void>((resolve) => (updated = resolve));
        await client.callTool({ name: 'touch', arguments: { uri: 'mem://items/9' } });
        await touched;
        expect(updates).toEqual(['mem://items/9']);

        await subscription.close();
        expect(await subscription.closed).toBe('local');
        const count = await client.callTool({ name: 'listening', arguments: {} });
        expect(count.content).toEqual([{ type: 'text', text: '0' }]);

        // The server stops (SIGTERM): the open subscription ends with its complete result, which the client sees as graceful.
        const open = await client.listen({ toolsListChanged: true });
        process.kill(transport.pid!, 'SIGTERM');
        expect(await open.closed).toBe('graceful');
      } catch (err) {
        if (err instanceof Error) err.message += `\nserver stderr:\n${stderr}`;
        throw err;
      } finally {
        await client.close();
      }
    },
    SPAWN_TIMEOUT_MS,
  );
});
