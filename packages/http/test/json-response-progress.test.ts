import 'reflect-metadata';
import { McpServer, Server, Tool, type RequestContext } from '@mcpx/core';
import type { McpHttpServer } from '@mcpx/http';
import { callTool, getSse, jsonOf, openSession, post, startServer } from './http-kit';

/**
 * With jsonResponse, a session's request has no stream of its own: its progress is dropped, not
 * sent on the session's GET stream (which should carry only messages unrelated to running requests).
 */

@Server({ name: 'json-progress', version: '1.0.0' })
class Fixture extends McpServer {
  @Tool({ description: 'Reports progress twice, then answers' })
  async steps(_input: void, ctx: RequestContext) {
    ctx.progress(1, 2);
    ctx.progress(2, 2);
    return 'done';
  }
}

describe('jsonResponse: progress of a running request', () => {
  let server: McpHttpServer;
  beforeAll(async () => {
    server = await startServer(new Fixture(), { jsonResponse: true });
  });
  afterAll(() => server.close());

  it('is not sent on the GET stream, which still carries what no request asked for', async () => {
    const session = await openSession(server.url);
    const stream = await getSse(server.url, session);
    try {
      const answer = await post(server.url, callTool(1, 'steps'), session);
      expect(answer.status).toBe(200);
      expect(jsonOf(answer).result.content).toEqual([{ type: 'text', text: 'done' }]);

      // Something unrelated to any request, after the call: the first event on the stream must be it.
      server.engine.registry.addTool({ name: 'added', description: 'Added later', handler: () => 'added' });
      let first = await stream.nextEvent();
      while (first && first.message === undefined) first = await stream.nextEvent(); // a priming event carries no message
      expect(first?.message.method).toBe('notifications/tools/list_changed');
      expect(stream.events.some((e) => e.message?.method === 'notifications/progress')).toBe(false);
    } finally {
      stream.abort();
    }
  });
});
