import 'reflect-metadata';
import { McpServer, Server, Tool } from '@mcpx/core';
import type { McpHttpServer } from '@mcpx/http';
import { openSse, startServer, waitFor, type SseReader } from './http-kit';
import { modernBody, modernHeaders, modernPost, refusalOf, responseOf } from './modern-kit';

/**
 * Open 2026-07-28 listen streams are bounded on their own (maxListenStreams per caller), not as
 * requests in flight: a client holding more listeners than maxRequestsInFlight still gets its
 * other requests served.
 */

@Server({ name: 'listen-bound', version: '1.0.0' })
class Fixture extends McpServer {
  @Tool({ description: 'Answers pong' })
  ping() {
    return 'pong';
  }
}

function listen(url: string, id: string): Promise<SseReader> {
  const body = modernBody(id, 'subscriptions/listen', { notifications: { toolsListChanged: true } });
  return openSse(url, { method: 'POST', headers: modernHeaders('subscriptions/listen'), body });
}

describe('2026-07-28: listen streams have their own bound', () => {
  let server: McpHttpServer;
  const streams: SseReader[] = [];

  beforeAll(async () => {
    server = await startServer(new Fixture(), { maxRequestsInFlight: 2, maxListenStreams: 4 });
  });
  afterAll(async () => {
    for (const stream of streams) stream.abort();
    await server.close();
  });

  it('serves a tools/call while more listen streams than maxRequestsInFlight are open, and refuses listeners beyond maxListenStreams', async () => {
    for (let i = 0; i < 4; i++) {
      const stream = await listen(server.url, `listen-${i}`);
      streams.push(stream);
      const ack = await stream.nextEvent();
      expect(ack?.message.method).toBe('notifications/subscriptions/acknowledged');
    }

    const call = await modernPost(server.url, 10, 'tools/call', { name: 'ping', arguments: {} });
    expect(call.status).toBe(200);
    expect(responseOf(call, 10).result.content[0].text).toBe('pong');

    const refusals = jest.spyOn(server.engine.telemetry, 'refused');
    const refused = await modernPost(server.url, 'listen-5', 'subscriptions/listen', { notifications: { toolsListChanged: true } });
    expect(refused.headers['retry-after']).toBe('1');
    const error = refusalOf(refused, 429, 'listen-5');
    expect(error.code).toBe(-32004);
    expect(error.data).toEqual({ limit: 'maxListenStreams', max: 4 });
    expect(error.message).not.toMatch(/session/);
    // Counted under its own limit in mcpx.refusal.count.
    await waitFor(() => refusals.mock.calls.length > 0, 'the refusal to be counted');
    expect(refusals).toHaveBeenCalledWith('limit', { status: 429, limit: 'maxListenStreams' });
    refusals.mockRestore();

    // A listener closed frees its place.
    streams.shift()!.abort();
    let again: SseReader | undefined;
    for (let attempt = 0; attempt < 200 && !again; attempt++) {
      // The server sees the close a moment later: until then the place is still taken (429).
      again = await listen(server.url, `listen-again-${attempt}`).catch(() => new Promise<undefined>((r) => setTimeout(() => r(undefined), 10)));
    }
    expect(again).toBeDefined();
    streams.push(again!);
  });
});
