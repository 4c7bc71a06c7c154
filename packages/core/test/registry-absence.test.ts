/**
 * What a server that fills its registry later (a gateway) needs of core: kinds offered before any
 * entry exists, and a reason told for a name that is missing for a while.
 */
import 'reflect-metadata';
import { McpServer, Server, createEngine } from '../src';
import { connect, quietOptions, rpcErrorOf } from '@mcpx/testing';

@Server({ name: 'later', version: '1.0.0' })
class Later extends McpServer {}

describe('registry.offer', () => {
  it('declares tools, prompts and resources while none exists, and lists them empty', async () => {
    const server = new Later();
    createEngine(server, quietOptions());
    const plain = await connect(new Later(), quietOptions());
    expect(plain.initializeResult?.capabilities.tools).toBeUndefined();
    plain.close();
    for (const kind of ['tools', 'prompts', 'resources'] as const) server.registry.offer(kind);
    const client = await connect(server, quietOptions());
    expect(client.initializeResult?.capabilities).toMatchObject({
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { listChanged: true, subscribe: true },
      completions: {},
    });
    expect((await client.listTools()).tools).toEqual([]);
    server.registry.addTool({ name: 'late', inputSchema: { type: 'object' }, handler: () => 'here' });
    await client.nextNotification('notifications/tools/list_changed');
    expect((await client.callTool('late')).content).toEqual([{ type: 'text', text: 'here' }]);
    client.close();
  });
});

describe('registry.explainAbsence', () => {
  it("tells a missing tool's, prompt's or resource's reason instead of 'Unknown', and only for what it knows", async () => {
    const server = new Later();
    createEngine(server, quietOptions());
    for (const kind of ['tools', 'prompts', 'resources'] as const) server.registry.offer(kind);
    const stop = server.registry.explainAbsence((kind, key) => (key.includes('gone') ? `${kind} ${key} is away for now` : undefined));
    const client = await connect(server, quietOptions());
    expect(await rpcErrorOf(client.callTool('gone_tool'))).toMatchObject({ code: -32602, message: 'tool gone_tool is away for now' });
    expect(await rpcErrorOf(client.getPrompt('gone_prompt'))).toMatchObject({ code: -32602, message: 'prompt gone_prompt is away for now' });
    expect(await rpcErrorOf(client.readResource('x://gone'))).toMatchObject({ code: -32002, message: 'resource x://gone is away for now', data: { uri: 'x://gone' } });
    expect((await rpcErrorOf(client.callTool('other'))).message).toBe('Unknown tool: other');
    stop();
    expect((await rpcErrorOf(client.callTool('gone_tool'))).message).toBe('Unknown tool: gone_tool');
    client.close();
  });
});
