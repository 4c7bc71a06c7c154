/**
 * One decorated class, tested the same way under both protocol eras with the in-process client:
 * a 2025-11-25 session (initialize, requests to the client on the call's stream) and a
 * 2026-07-28 client (per-request _meta, input requests answered by retrying).
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { Field, McpServer, Prompt, Resource, Tool, type RequestContext } from '@mcpx/core';
import { connect, quietOptions, rpcErrorOf } from '../src';

class City {
  @Field({ description: 'A city' })
  @IsString()
  city!: string;
}

class Weather extends McpServer {
  @Tool({ description: 'Asks which city, then reports its weather' })
  async forecast(_input: void, ctx: RequestContext) {
    ctx.log.info('forecast asked', { era: ctx.env.era });
    ctx.progress(1, 2);
    const answer = await ctx.elicit('Which city?', City);
    if (answer.action !== 'accept') return 'no city';
    return `Sunny in ${answer.content!.city} (${ctx.env.era}, ${ctx.protocolVersion})`;
  }

  @Resource({ uri: 'weather://stations', mimeType: 'application/json' })
  stations() {
    return { stations: ['north', 'south'] };
  }

  @Prompt({ description: 'A forecast prompt' })
  brief() {
    return 'Give a short forecast';
  }
}

describe.each(['2025-11-25', '2026-07-28'])('the same server, protocol %s', (protocolVersion) => {
  const modern = protocolVersion === '2026-07-28';

  it('calls a tool that asks the user, with its log and progress', async () => {
    const client = await connect(new Weather(), { ...quietOptions(), protocolVersion, capabilities: { elicitation: {} } });
    client.onRequest('elicitation/create', (params) => {
      expect(params.message).toBe('Which city?');
      return { action: 'accept', content: { city: 'Lyon' } };
    });
    await client.setLogLevel('info');
    const progress: number[] = [];
    const result = await client.callTool('forecast', {}, { onProgress: (p) => progress.push(p.progress) });
    expect(result.content[0]).toEqual({ type: 'text', text: `Sunny in Lyon (${modern ? 'modern' : 'legacy'}, ${protocolVersion})` });
    expect(client.serverRequests.map((r) => r.method)).toEqual(['elicitation/create']);
    expect(progress.length).toBeGreaterThan(0);
    const logs = client.notifications.filter((n) => n.method === 'notifications/message');
    expect(logs.length).toBeGreaterThan(0);
    expect(logs[0]!.params).toMatchObject({ level: 'info', data: { message: 'forecast asked' } });
    client.close();
  });

  it('reads resources and prompts; an unknown resource is -32602 in 2026 and -32002 before', async () => {
    const client = await connect(new Weather(), { ...quietOptions(), protocolVersion });
    const read = await client.readResource('weather://stations');
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual({ stations: ['north', 'south'] });
    const prompt = await client.getPrompt('brief');
    expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'Give a short forecast' });
    const missing = await rpcErrorOf(client.readResource('weather://nowhere'));
    expect(missing.code).toBe(modern ? -32602 : -32002);
    if (modern) expect((read as unknown as Record<string, unknown>).resultType).toBe('complete');
    client.close();
  });

  it('sends no log notifications without a level', async () => {
    const client = await connect(new Weather(), { ...quietOptions(), protocolVersion, capabilities: { elicitation: {} } });
    client.onRequest('elicitation/create', () => ({ action: 'decline' }));
    expect((await client.callTool('forecast', {})).content[0]).toEqual({ type: 'text', text: 'no city' });
    expect(client.notifications.filter((n) => n.method === 'notifications/message')).toEqual([]);
    client.close();
  });
});

it('2026-07-28: server/discover lists both eras and what the server offers', async () => {
  const client = await connect(new Weather(), { ...quietOptions(), protocolVersion: '2026-07-28' });
  const discovered = await client.discover();
  expect(discovered.supportedVersions).toEqual(expect.arrayContaining(['2026-07-28', '2025-11-25']));
  expect(discovered.capabilities).toMatchObject({ tools: {}, resources: {}, prompts: {} });
  expect(discovered._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({ name: expect.any(String), version: expect.any(String) });
  expect(discovered).toMatchObject({ resultType: 'complete', ttlMs: expect.any(Number), cacheScope: expect.stringMatching(/^(public|private)$/) });
  expect((await rpcErrorOf(client.ping())).code).toBe(-32601);
  client.close();
});
