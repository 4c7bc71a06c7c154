import 'reflect-metadata';
import { McpServer, Server, Tool, type RequestContext } from '@mcpx/core';
import { openSession, post, postSse, rpc, startServer } from './http-kit';

@Server({ name: 'idle-fixture', version: '1.0.0' })
class IdleFixture extends McpServer {
  @Tool()
  async ask(_input: void, ctx: RequestContext) {
    const answer = await ctx.elicit('Go on?', { type: 'object', properties: { go: { type: 'boolean' } } });
    return answer.action;
  }
}

// What an open session keeps is the bulk of a server's memory under many idle clients: what all
// sessions have alike is held once, and what few use is made on first use.
describe('an idle session', () => {
  it('shares the declared-nothing capabilities object and its network origin with other sessions', async () => {
    const server = await startServer(new IdleFixture());
    try {
      const ids = [await openSession(server.url), await openSession(server.url), await openSession(server.url)];
      const sessions = ids.map((id) => server.endpoint.sessions.get(id)!.session);
      expect(sessions[0]!.clientCapabilities).toEqual({});
      expect(Object.isFrozen(sessions[0]!.clientCapabilities)).toBe(true);
      expect(sessions[1]!.clientCapabilities).toBe(sessions[0]!.clientCapabilities);
      expect(sessions[2]!.clientCapabilities).toBe(sessions[0]!.clientCapabilities);
      // The origin keeps the client's network, not the opening request's headers or port.
      expect(sessions[0]!.origin).toEqual({ transport: 'tcp', httpVersion: '1.1', clientAddress: '127.0.0.1' });
      expect(sessions[1]!.origin).toBe(sessions[0]!.origin);

      // A client that declares capabilities keeps its own object, used to decide what it may be asked.
      const declared = await post(server.url, rpc(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'asks', version: '1.0.0' } }));
      const asking = declared.headers['mcp-session-id'] as string;
      expect(server.endpoint.sessions.get(asking)!.session.clientCapabilities).toEqual({ elicitation: {} });
    } finally {
      await server.close();
    }
  });

  it('still asks its client and gets the answer once it first needs to (the question bookkeeping is made then)', async () => {
    const server = await startServer(new IdleFixture());
    try {
      const init = await post(server.url, rpc(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'asks', version: '1.0.0' } }));
      const id = init.headers['mcp-session-id'] as string;
      await post(server.url, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), id);
      const call = await postSse(server.url, id, rpc(1, 'tools/call', { name: 'ask', arguments: {} }));
      let question: { id: string | number; method: string } | undefined;
      while (!question) {
        const block = await call.nextEvent();
        if (block === undefined) throw new Error('the stream ended before the question');
        if (block.message?.method === 'elicitation/create') question = block.message;
      }
      expect(question.method).toBe('elicitation/create');
      const answered = await post(server.url, JSON.stringify({ jsonrpc: '2.0', id: question.id, result: { action: 'decline' } }), id);
      expect(answered.status).toBe(202);
      let result: unknown;
      while (result === undefined) {
        const block = await call.nextEvent();
        if (block === undefined) throw new Error('the stream ended before the result');
        if (block.message?.id === 1) result = block.message.result;
      }
      expect(result).toMatchObject({ content: [{ type: 'text', text: 'decline' }] });
    } finally {
      await server.close();
    }
  });
});
