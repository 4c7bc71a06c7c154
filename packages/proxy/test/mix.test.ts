/**
 * The programmatic form: a decorated server of its own tools that serves an upstream's too, without
 * a prefix; a name the server already has is never taken over by an upstream entry.
 */
import 'reflect-metadata';
import { join } from 'node:path';
import { McpServer, Server, Tool } from '@mcpx/core';
import { connect, memoryLogger, quietOptions, rpcErrorOf } from '@mcpx/testing';
import { addUpstreams, parseProxyConfig, type Gateway } from '../src';

jest.setTimeout(30_000);

const UPSTREAM = join(__dirname, 'fixtures', 'sdk1-stdio-server.js');

@Server({ name: 'mixed', version: '1.0.0' })
class Mixed extends McpServer {
  gateway!: Gateway;

  override onServerInit(): void {
    this.gateway = addUpstreams(this, parseProxyConfig({ mcpServers: { docs: { command: process.execPath, args: [UPSTREAM], prefix: false } } }));
  }

  @Tool({ description: 'Its own tool' })
  hello(_input: void) {
    return 'hello from mixed';
  }

  /** The upstream has an "add" too: this one stays. */
  @Tool({ description: 'Its own add, which concatenates' })
  add(_input: void) {
    return 'own add';
  }
}

it('serves its own tools and the upstream ones side by side, keeping its own on a name clash', async () => {
  const log = memoryLogger('warn');
  const server = new Mixed();
  const client = await connect(server, { logger: log.logger });
  await server.gateway.ready();
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['hello', 'add', 'count', 'pid', 'ask']));
    expect(names.filter((n) => n === 'add')).toHaveLength(1);
    expect((await client.callTool('add')).content).toEqual([{ type: 'text', text: 'own add' }]);
    expect((await client.callTool('hello')).content).toEqual([{ type: 'text', text: 'hello from mixed' }]);
    expect((await client.readResource('docs://readme')).contents[0]).toMatchObject({ text: 'Read me' });
    expect(log.lines.find((l) => l.tools === 'add')).toMatchObject({ upstream: 'docs', msg: expect.stringContaining('left out tool "add" of upstream "docs"') });
  } finally {
    client.close();
    await server.gateway.close();
  }
});

it("applies the server's middleware and rate limits to proxied entries as to its own", async () => {
  const seen: string[] = [];
  @Server({
    name: 'guarded',
    version: '1.0.0',
    middleware: [
      async (ctx, next) => {
        if (ctx.toolName) seen.push(ctx.toolName);
        return next();
      },
    ],
    rateLimit: { limit: 3, windowMs: 60_000, by: 'global' },
  })
  class Guarded extends McpServer {
    gateway!: Gateway;
    override onServerInit(): void {
      this.gateway = addUpstreams(this, parseProxyConfig({ mcpServers: { docs: { command: process.execPath, args: [UPSTREAM] } } }));
    }
  }
  const server = new Guarded();
  const client = await connect(server, quietOptions());
  await server.gateway.ready();
  try {
    expect((await client.callTool('docs_add', { a: 1, b: 1 })).content).toEqual([{ type: 'text', text: '2' }]);
    expect((await client.callTool('docs_pid')).isError).toBeFalsy();
    expect(seen).toEqual(['docs_add', 'docs_pid']);
    // The limit counts every request (initialize and lists included): the proxied call past it is refused here, not upstream.
    let refused: { code: number } | undefined;
    for (let i = 0; i < 5 && !refused; i++) refused = await rpcErrorOf(client.callTool('docs_add', { a: 1, b: 1 })).catch(() => undefined);
    expect(refused?.code).toBe(-32004);
  } finally {
    client.close();
    await server.gateway.close();
  }
});
