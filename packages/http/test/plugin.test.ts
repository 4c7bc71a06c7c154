import 'reflect-metadata';
import Fastify from 'fastify';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Field, Server, Tool } from '@mcpx/core';
import { mcpx, type McpEndpointHandle } from '@mcpx/http';
import { memoryLogger } from '@mcpx/testing';
import { IsString } from 'class-validator';

class EchoInput {
  @Field({ description: 'What to echo' })
  @IsString()
  text!: string;
}

@Server({ name: 'mounted', version: '1.0.0' })
class Mounted {
  @Tool({ description: 'Echoes its input' })
  echo(input: EchoInput) {
    return input.text;
  }
}

const memory = memoryLogger('info');
const makeApp = () => Fastify({ loggerInstance: memory.logger });

describe('the mcpx Fastify plugin inside an existing app', () => {
  let app: ReturnType<typeof makeApp>;
  let base: string;
  let handle: McpEndpointHandle;
  let sessionId: string | undefined;
  const { lines } = memory;

  beforeAll(async () => {
    app = makeApp();
    // The host app's own routes, with Fastify's default JSON parsing.
    app.post('/hello', async (request) => ({ got: request.body }));
    await app.register(mcpx, { server: new Mounted(), prefix: '/api/v1', path: '/mcp', onEndpoint: (h) => (handle = h) });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });

  afterAll(async () => {
    await app.close();
  });

  it('serves MCP at the mounted path to the official client', async () => {
    const client = new Client({ name: 'plugin-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/api/v1/mcp`));
    await client.connect(transport);
    expect(client.getServerVersion()).toEqual({ name: 'mounted', version: '1.0.0' });
    expect(transport.sessionId).toMatch(/^[\x21-\x7e]+$/);
    sessionId = transport.sessionId;
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(result.content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(handle.sessions.size).toBe(1);
    await transport.terminateSession();
    await client.close();
    expect(handle.sessions.size).toBe(0);
  });

  it('leaves the host app alone: its JSON routes still parse bodies, and nothing is served at the bare path', async () => {
    const hello = await fetch(`${base}/hello`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(await hello.json()).toEqual({ got: { a: 1 } });
    const bare = await fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(bare.status).toBe(404);
  });

  it("logs through the app's logger: one info line per MCP request, naming the session by the start of the id the client holds", async () => {
    const call = lines.filter((l) => l.msg === 'mcp request' && l.mcpMethod === 'tools/call');
    expect(call).toEqual([expect.objectContaining({ tool: 'echo', outcome: 'result', session: sessionId!.slice(0, 8), remoteAddress: '127.0.0.1' })]);
    // The line goes through the request's own logger: Fastify's request id ties it to the app's other lines.
    expect(call[0]!.reqId).toEqual(expect.any(String));
    expect(typeof call[0]!.durationMs).toBe('number');
    // The HTTP exchange that carried it is a debug line (this logger is at info): the request is logged once.
    expect(lines.filter((l) => l.msg === 'http request' && l.mcpMethod === 'tools/call')).toEqual([]);
    // The DELETE never reached the engine: its HTTP line is the one at info.
    expect(lines.filter((l) => l.msg === 'http request' && l.method === 'DELETE')).toEqual([
      expect.objectContaining({ url: '/api/v1/mcp', session: sessionId!.slice(0, 8), status: 200, remoteAddress: '127.0.0.1' }),
    ]);
    expect(lines.some((l) => l.msg === 'session initialized' && l.session === sessionId!.slice(0, 8))).toBe(true);
    // The whole id is a credential: no line carries it.
    expect(lines.filter((l) => JSON.stringify(l).includes(sessionId!))).toEqual([]);
  });
});
