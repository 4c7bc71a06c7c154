import 'reflect-metadata';
import { IsString } from 'class-validator';
import { McpServer, Tool } from '@mcpx/core';
import { memoryLogger } from '@mcpx/testing';
import { listen, type McpHttpServer } from '@mcpx/http';
import { callTool, openSession, post } from './http-kit';
import { modernPost, sseMessages } from './modern-kit';

class EchoInput {
  @IsString() text!: string;
}

class Echo extends McpServer {
  @Tool()
  echo(input: EchoInput) {
    return input.text;
  }
}

/**
 * The endpoint answers a request at once when the pipeline does, and hands Fastify no promise for
 * it: once the response is an SSE stream (Fastify gave it up), a failure of the pipeline itself is
 * the endpoint's to answer (an internal error, with the request's id) and to log. These break the
 * pipeline on purpose, both ways it can fail.
 */
describe('a pipeline that fails under an SSE answer', () => {
  let server: McpHttpServer;
  let lines: Record<string, any>[];
  let realRun: McpHttpServer['engine']['pipeline']['run'];

  beforeAll(async () => {
    const memory = memoryLogger('warn');
    lines = memory.lines;
    server = await listen(new Echo(), { port: 0, host: '127.0.0.1', logger: memory.logger });
    realRun = server.engine.pipeline.run;
  });
  afterEach(() => {
    server.engine.pipeline.run = realRun;
    lines.length = 0;
  });
  afterAll(() => server.close());

  const breakRun = (how: 'throws' | 'rejects') => {
    server.engine.pipeline.run = () => {
      if (how === 'throws') throw new Error('pipeline broke at once');
      return Promise.reject(new Error('pipeline broke later'));
    };
  };
  const failures = () => lines.filter((l) => l.msg === 'mcp endpoint failed').map((l) => l.err?.message);

  it.each(['throws', 'rejects'] as const)('2025-11-25: when it %s, the request gets -32603 with its id, the failure is logged once, and the server goes on', async (how) => {
    const session = await openSession(server.url);
    breakRun(how);
    const broken = await post(server.url, callTool(7, 'echo', { text: 'lost' }), session);
    expect(broken.status).toBe(200);
    expect(broken.headers['content-type']).toBe('text/event-stream');
    const data = broken.body
      .split('\n')
      .filter((line) => line.startsWith('data: ') && line.length > 6)
      .map((line) => JSON.parse(line.slice(6)));
    expect(data).toEqual([{ jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'Internal error while handling tools/call' } }]);
    expect(failures()).toEqual([how === 'throws' ? 'pipeline broke at once' : 'pipeline broke later']);
    server.engine.pipeline.run = realRun;
    const next = await post(server.url, callTool(8, 'echo', { text: 'back' }), session);
    expect(next.body).toContain('"text":"back"');
  });

  it.each(['throws', 'rejects'] as const)('2026-07-28: when it %s, the request gets -32603 with its id, the failure is logged once, and the server goes on', async (how) => {
    breakRun(how);
    const broken = await modernPost(server.url, 9, 'tools/call', { name: 'echo', arguments: { text: 'lost' } });
    expect(broken.status).toBe(200);
    expect(sseMessages(broken.body)).toEqual([{ jsonrpc: '2.0', id: 9, error: { code: -32603, message: 'Internal error while handling tools/call' } }]);
    expect(failures()).toEqual([how === 'throws' ? 'pipeline broke at once' : 'pipeline broke later']);
    server.engine.pipeline.run = realRun;
    const next = await modernPost(server.url, 10, 'tools/call', { name: 'echo', arguments: { text: 'back' } });
    expect(sseMessages(next.body)[0].result.content[0].text).toBe('back');
  });
});
