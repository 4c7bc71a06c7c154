import 'reflect-metadata';
import { EventEmitter, once } from 'node:events';
import { Client, StreamableHTTPClientTransport, type FetchLike } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer, Server, Tool, type RequestContext } from '@mcpx/core';
import type { McpHttpServer } from '@mcpx/http';
import { startServer, waitFor } from './http-kit';

/**
 * The official 2026-07-28 client against the endpoint: it probes, finds a modern server, and
 * speaks per-request metadata; a 2025-11-25 client on the same endpoint meanwhile keeps its session.
 */

const events = new EventEmitter();

@Server({ name: 'modern-sdk-fixture', version: '1.0.0' })
class Fixture extends McpServer {
  @Tool({ description: 'Reports progress, then answers' })
  steps(_input: void, ctx: RequestContext) {
    ctx.progress(1, 2);
    ctx.progress(2, 2);
    return 'stepped';
  }

  @Tool({
    description: 'Says where, from arguments mirrored into headers',
    inputSchema: {
      type: 'object',
      properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, count: { type: 'integer', 'x-mcp-header': 'Count' } },
      required: ['region'],
    },
  })
  locate(input: { region: string; count?: number }) {
    return `${input.region}/${input.count ?? '-'}`;
  }

  @Tool({ description: 'Runs until its request is cancelled' })
  async waitForCancel(_input: void, ctx: RequestContext) {
    const aborted = new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    events.emit('started');
    await aborted;
    events.emit('aborted');
    return 'never sent';
  }
}

const textOf = (result: { content: unknown }) => (result.content as { type: string; text?: string }[])[0]?.text;

describe('the official 2026-07-28 client over HTTP', () => {
  let server: McpHttpServer;
  let client: Client;
  const sent: { method: string | null; headers: Headers }[] = [];

  beforeAll(async () => {
    server = await startServer(new Fixture());
    const recording: FetchLike = async (input, init) => {
      const headers = new Headers(init?.headers);
      sent.push({ method: headers.get('mcp-method'), headers });
      return fetch(input, init);
    };
    client = new Client({ name: 'sdk2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    client.onerror = () => {};
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { fetch: recording }), { timeout: 10_000 });
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it('negotiates the modern era, with no session', () => {
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(sent.every((s) => s.headers.get('mcp-session-id') === null)).toBe(true);
  });

  it('calls a tool and sees its progress', async () => {
    const progress: number[] = [];
    const result = await client.callTool({ name: 'steps', arguments: {} }, { onprogress: (p) => progress.push(p.progress), timeout: 10_000 });
    expect(textOf(result)).toBe('stepped');
    expect(progress).toEqual([1, 2]);
  });

  it('mirrors x-mcp-header arguments into Mcp-Param-* headers, which the server checks', async () => {
    await client.listTools();
    const result = await client.callTool({ name: 'locate', arguments: { region: 'eu-west', count: 3 } }, { timeout: 10_000 });
    expect(textOf(result)).toBe('eu-west/3');
    const call = sent.filter((s) => s.method === 'tools/call').pop()!;
    expect(call.headers.get('mcp-param-region')).toBe('eu-west');
    expect(call.headers.get('mcp-param-count')).toBe('3');
  });

  it('cancels a call by closing its stream', async () => {
    const started = once(events, 'started');
    const aborted = once(events, 'aborted');
    const controller = new AbortController();
    const call = client.callTool({ name: 'waitForCancel', arguments: {} }, { signal: controller.signal, timeout: 10_000 });
    await started;
    controller.abort('user cancelled');
    await expect(call).rejects.toThrow('user cancelled');
    await aborted;
  });

  it('hears list changes on a subscriptions/listen stream', async () => {
    const changed = new Promise<void>((resolve) => client.setNotificationHandler('notifications/tools/list_changed', () => resolve()));
    const subscription = await client.listen({ toolsListChanged: true }, { timeout: 10_000 });
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
    server.engine.registry.addTool({ name: 'added', description: 'Added while listening', handler: () => 'added' });
    await changed;
    await subscription.close();
    const engine = server.engine;
    await waitFor(() => engine.subscriptions.size === 0, 'the subscription to end once its stream closed');
  });

  it('serves a 2025-11-25 client on the same endpoint meanwhile', async () => {
    const legacy = new LegacyClient({ name: 'sdk1', version: '1.0.0' });
    const transport = new LegacyTransport(new URL(server.url));
    await legacy.connect(transport);
    expect(transport.sessionId).toEqual(expect.any(String));
    const result = await legacy.callTool({ name: 'steps', arguments: {} });
    expect(textOf(result as { content: unknown })).toBe('stepped');
    await transport.terminateSession();
    await legacy.close();
  });
});
