import { PassThrough } from 'node:stream';
import { StdioRelay } from '../src/dev-stdio';

/**
 * The relay between a stdio client and the server processes of `mcpx dev`, driven line by line:
 * what each side receives, in order. (dev.test.ts runs it end to end with the official client.)
 */

type Message = Record<string, any>;

/** Collects the JSON lines written to a stream; `next()` resolves with the next one. */
function lines(stream: PassThrough): { next(): Promise<Message>; all: Message[] } {
  const all: Message[] = [];
  const waiting: ((m: Message) => void)[] = [];
  let buffer = '';
  let read = 0;
  stream.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      all.push(JSON.parse(buffer.slice(0, newline)) as Message);
      buffer = buffer.slice(newline + 1);
      waiting.shift()?.(all[read++]!);
    }
  });
  return {
    all,
    next: () => (read < all.length ? Promise.resolve(all[read++]!) : new Promise((resolve) => waiting.push(resolve))),
  };
}

function setup() {
  const client = { input: new PassThrough(), output: new PassThrough() };
  const relay = new StdioRelay(client.output);
  relay.listen(client.input, () => {});
  const toClient = lines(client.output);
  const send = (message: Message) => client.input.write(`${JSON.stringify(message)}\n`);
  /** A stand-in server process: what the relay writes to it, and a way to answer. */
  const server = () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    relay.attach(stdin, stdout);
    return { got: lines(stdin), say: (message: Message) => stdout.write(`${JSON.stringify(message)}\n`) };
  };
  return { relay, toClient, send, server };
}

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } };
const CAPABILITIES = { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } };

describe('the mcpx dev stdio relay', () => {
  it('holds messages until a process is up, then passes both ways', async () => {
    const { send, server, toClient } = setup();
    send(INITIALIZE);
    const first = server();
    expect(await first.got.next()).toEqual(INITIALIZE);
    first.say({ jsonrpc: '2.0', id: 1, result: { capabilities: CAPABILITIES } });
    expect(await toClient.next()).toEqual({ jsonrpc: '2.0', id: 1, result: { capabilities: CAPABILITIES } });
  });

  it('replays the session to the next process, keeps its answers, then says the lists changed', async () => {
    const { relay, send, server, toClient } = setup();
    const first = server();
    send(INITIALIZE);
    await first.got.next();
    first.say({ jsonrpc: '2.0', id: 1, result: { capabilities: CAPABILITIES } });
    await toClient.next();
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'logging/setLevel', params: { level: 'debug' } });
    send({ jsonrpc: '2.0', id: 3, method: 'resources/subscribe', params: { uri: 'a://1' } });
    send({ jsonrpc: '2.0', id: 4, method: 'resources/subscribe', params: { uri: 'a://2' } });
    send({ jsonrpc: '2.0', id: 5, method: 'resources/unsubscribe', params: { uri: 'a://1' } });
    for (let i = 0; i < 5; i++) await first.got.next();
    for (const id of [2, 3, 4, 5]) first.say({ jsonrpc: '2.0', id, result: {} });
    for (const id of [2, 3, 4, 5]) expect(await toClient.next()).toEqual({ jsonrpc: '2.0', id, result: {} });

    relay.hold();
    send({ jsonrpc: '2.0', id: 6, method: 'tools/list' }); // waits for the next process
    relay.detach('gone', false);
    const second = server();
    const replayed = await second.got.next();
    expect(replayed).toMatchObject({ method: 'initialize', params: INITIALIZE.params });
    expect(replayed.id).not.toBe(1);
    second.say({ jsonrpc: '2.0', id: replayed.id, result: { capabilities: CAPABILITIES } });
    expect(await second.got.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const level = await second.got.next();
    expect(level).toMatchObject({ method: 'logging/setLevel', params: { level: 'debug' } });
    const subscribe = await second.got.next();
    expect(subscribe).toMatchObject({ method: 'resources/subscribe', params: { uri: 'a://2' } });
    expect(await second.got.next()).toEqual({ jsonrpc: '2.0', id: 6, method: 'tools/list' });
    second.say({ jsonrpc: '2.0', id: level.id, result: {} });
    second.say({ jsonrpc: '2.0', id: subscribe.id, result: {} });
    second.say({ jsonrpc: '2.0', id: 6, result: { tools: [] } });

    // The client hears list_changed for what the server announces, then its own answer, and none of the replay's.
    expect(await toClient.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    expect(await toClient.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/list_changed' });
    expect(await toClient.next()).toEqual({ jsonrpc: '2.0', id: 6, result: { tools: [] } });
    expect(toClient.all).toHaveLength(8);
  });

  it('fails the requests a process leaves unanswered, and every request while none can start', async () => {
    const { relay, send, server, toClient } = setup();
    const first = server();
    send({ jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'slow' } });
    await first.got.next();
    relay.hold();
    relay.detach('reloaded before answering', false);
    expect(await toClient.next()).toEqual({ jsonrpc: '2.0', id: 'a', error: { code: -32603, message: 'reloaded before answering' } });

    send({ jsonrpc: '2.0', id: 'b', method: 'tools/list' }); // queued: a process may be coming
    relay.detach('failed to start', true);
    expect(await toClient.next()).toEqual({ jsonrpc: '2.0', id: 'b', error: { code: -32603, message: 'failed to start' } });
    send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'b' } }); // dropped
    send({ jsonrpc: '2.0', id: 'c', method: 'ping' });
    expect(await toClient.next()).toEqual({ jsonrpc: '2.0', id: 'c', error: { code: -32603, message: 'failed to start' } });
  });

  it("passes the server's requests to the client and only answers to the process that asked", async () => {
    const { relay, send, server, toClient } = setup();
    const first = server();
    first.say({ jsonrpc: '2.0', id: 7, method: 'roots/list' });
    expect(await toClient.next()).toEqual({ jsonrpc: '2.0', id: 7, method: 'roots/list' });
    relay.hold();
    relay.detach('gone', false);
    const second = server();
    // The answer to the old process's question reaches no one; the next message does reach the new process.
    send({ jsonrpc: '2.0', id: 7, result: { roots: [] } });
    send({ jsonrpc: '2.0', id: 8, method: 'ping' });
    expect(await second.got.next()).toEqual({ jsonrpc: '2.0', id: 8, method: 'ping' });
  });
});
