import 'reflect-metadata';
import { McpServer, Server, Tool } from '@mcpx/core';
import type { McpHttpServer } from '@mcpx/http';
import { openSse, request, startServer, waitFor, type SseReader } from './http-kit';
import { modernBody, modernHeaders, MODERN } from './modern-kit';

/**
 * subscriptions/listen over Streamable HTTP (2026-07-28): its response is a stream that stays
 * open, carrying the notifications the client opted in to, until the client closes it or the
 * server ends it with a response.
 */

@Server({ name: 'listen-fixture', version: '1.0.0' })
class Fixture extends McpServer {
  @Tool({ description: 'Answers pong' })
  ping() {
    return 'pong';
  }
}

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

function listen(url: string, id: string): Promise<SseReader> {
  const body = modernBody(id, 'subscriptions/listen', { notifications: { toolsListChanged: true } });
  return openSse(url, { method: 'POST', headers: modernHeaders('subscriptions/listen'), body });
}

describe('subscriptions/listen over HTTP', () => {
  let server: McpHttpServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('acknowledges at once, delivers list changes tagged with its id, and outlives sseMaxConnectionMs with heartbeats', async () => {
    // A polling close would cut the stream after 200 ms: a 2026-07-28 stream cannot be resumed, so it must not apply.
    const maxConnectionMs = 200;
    server = await startServer(new Fixture(), { sseHeartbeatMs: 50, sseMaxConnectionMs: maxConnectionMs });
    const stream = await listen(server.url, 'listen-1');
    expect(stream.res.headers['x-accel-buffering']).toBe('no');
    expect(stream.res.headers['mcp-session-id']).toBeUndefined();

    const ack = await stream.nextEvent();
    expect(ack?.id).toBeUndefined();
    expect(ack?.message).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { toolsListChanged: true }, _meta: { [SUBSCRIPTION_ID]: 'listen-1' } },
    });

    server.engine.registry.addTool({ name: 'added', description: 'Added while listening', handler: () => 'added' });
    const changed = await stream.nextEvent();
    expect(changed?.message).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [SUBSCRIPTION_ID]: 'listen-1' } } });

    // Heartbeats keep coming well past the polling limit, and the stream stays open.
    const since = Date.now();
    let heartbeats = 0;
    while (Date.now() - since < 3 * maxConnectionMs) {
      const block = await stream.next();
      expect(block).toBeDefined();
      if (block!.comments.length > 0) heartbeats++;
    }
    expect(heartbeats).toBeGreaterThan(0);
    expect(stream.ended).toBe(false);
    stream.abort();
  });

  it('ends the subscription when the client closes the stream', async () => {
    server = await startServer(new Fixture());
    const stream = await listen(server.url, 'listen-2');
    await stream.nextEvent();
    expect(server.engine.subscriptions.size).toBe(1);
    stream.abort();
    const engine = server.engine;
    await waitFor(() => engine.subscriptions.size === 0, 'the subscription to end');
  });

  it('is a stream even when the endpoint answers other requests with JSON, and ends with its response on shutdown', async () => {
    server = await startServer(new Fixture(), { jsonResponse: true });
    const stream = await listen(server.url, 'listen-3');
    expect((await stream.nextEvent())?.message.method).toBe('notifications/subscriptions/acknowledged');
    const closing = server.close();
    const rest = await stream.rest();
    await closing;
    server = undefined;
    const response = rest.find((b) => b.message && !('method' in b.message))?.message;
    expect(response).toMatchObject({ jsonrpc: '2.0', id: 'listen-3', result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: 'listen-3' } } });
    expect(stream.ended).toBe(true);
  });

  it('accepts the notifications/cancelled a client sends on closing, with 202, leaving the stream to its close', async () => {
    server = await startServer(new Fixture());
    const stream = await listen(server.url, 'listen-4');
    await stream.nextEvent();
    // The client's teardown notice: meaningless over HTTP (closing the stream is what cancels), accepted all the same.
    const res = await request(server.url, {
      method: 'POST',
      headers: { ...modernHeaders('notifications/cancelled'), 'mcp-method': undefined },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'listen-4', _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } } }),
    });
    expect(res.status).toBe(202);
    stream.abort();
  });
});
