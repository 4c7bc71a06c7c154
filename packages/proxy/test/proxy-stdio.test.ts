/**
 * The gateway over an upstream built with the official SDK v1, started over stdio: its entries
 * listed under the prefix, calls forwarded with progress, _meta and cancellation, reads, templates
 * with completion, prompts, and an upstream that dies: hidden with list_changed, a clear error
 * naming it, started again.
 */
import { join } from 'node:path';
import { connect, quietOptions, rpcErrorOf, type TestClient } from '@mcpx/testing';
import { proxyServer, type Gateway } from '../src';
import type { McpServer } from '@mcpx/core';

jest.setTimeout(30_000);

const UPSTREAM = join(__dirname, 'fixtures', 'sdk1-stdio-server.js');
const config = { mcpServers: { docs: { command: process.execPath, args: [UPSTREAM] } } };

let server: McpServer & { gateway: Gateway };
let client: TestClient;

beforeEach(async () => {
  server = await proxyServer(config, { backoffMs: 50 });
  client = await connect(server, quietOptions());
  await server.gateway.ready();
});

afterEach(async () => {
  client.close();
  await server.gateway.close();
});

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

async function until<T>(what: () => Promise<T | undefined> | T | undefined, label: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await what();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${label}`);
}

describe('a stdio upstream', () => {
  it('lists its entries under the prefix', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'docs_add',
      'docs_ask',
      'docs_cancellations',
      'docs_cancelled_tasks',
      'docs_count',
      'docs_fail',
      'docs_meta',
      'docs_pid',
      'docs_report',
      'docs_summarise',
      'docs_touch',
      'docs_vigil',
      'docs_wait',
    ]);
    expect(tools.find((t) => t.name === 'docs_add')).toMatchObject({
      description: 'Adds two numbers',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
    });
    expect((await client.listResources()).resources).toEqual([expect.objectContaining({ uri: 'docs://docs/readme', name: 'readme', mimeType: 'text/plain' })]);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: 'docs://docs/pages/{name}', name: 'page' })]);
    expect((await client.listPrompts()).prompts).toEqual([expect.objectContaining({ name: 'docs_greet', arguments: [expect.objectContaining({ name: 'who', required: true })] })]);
  });

  it('forwards calls, reads, prompts and completions', async () => {
    expect(textOf(await client.callTool('docs_add', { a: 2, b: 3 }))).toBe('5');
    expect(await client.callTool('docs_fail')).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining('upstream says no') }] });
    expect((await client.readResource('docs://docs/readme')).contents).toEqual([{ uri: 'docs://readme', mimeType: 'text/plain', text: 'Read me' }]);
    expect((await client.readResource('docs://docs/pages/intro')).contents[0]).toMatchObject({ text: 'Page intro' });
    expect((await client.getPrompt('docs_greet', { who: 'Ada' })).messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Say hello to Ada' } }]);
    expect((await client.complete({ type: 'ref/resource', uri: 'docs://docs/pages/{name}' }, { name: 'name', value: 'in' })).completion.values).toEqual(['intro', 'install']);
  });

  it('validates arguments against the upstream schema before forwarding', async () => {
    const result = await client.callTool('docs_add', { a: 'two', b: 3 });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('Invalid arguments:\n- a: a must be number'); // mcpx's check, not the upstream's
  });

  it('passes progress back and _meta on', async () => {
    const result = await client.request('tools/call', { name: 'docs_count', arguments: { n: 3 }, _meta: { progressToken: 'p1' } });
    expect(textOf(result as { content: unknown[] })).toBe('counted to 3');
    const seen = client.notifications.filter((m) => m.method === 'notifications/progress').map((m) => m.params);
    expect(seen).toEqual([
      { progressToken: 'p1', progress: 1, total: 3, message: 'at 1' },
      { progressToken: 'p1', progress: 2, total: 3, message: 'at 2' },
      { progressToken: 'p1', progress: 3, total: 3, message: 'at 3' },
    ]);
    // The application's keys go on; the keys MCP reserves describe this hop and stay here.
    const sent = { 'com.example/trace': 'abc', 'io.modelcontextprotocol/clientInfo': { name: 'x' }, 'dev.mcp/y': 1 };
    const meta = JSON.parse(textOf((await client.request('tools/call', { name: 'docs_meta', arguments: {}, _meta: sent })) as { content: unknown[] }));
    expect(meta).toEqual({ 'com.example/trace': 'abc' });
  });

  it('passes a cancellation on to the upstream', async () => {
    const controller = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const call = client.callTool('docs_wait', {}, { signal: controller.signal, onProgress: () => started() });
    await running; // the upstream runs it: its first progress came back through the gateway
    controller.abort('enough');
    await expect(call).rejects.toThrow();
    expect(await until(async () => (textOf(await client.callTool('docs_cancellations')) === '1' ? true : undefined), 'the upstream to see the cancellation')).toBe(true);
  });
});

describe('tasks', () => {
  it('a tool the upstream runs only as a task is listed as one, runs as a task here, and follows the upstream task to its result', async () => {
    const report = (await client.listTools()).tools.find((t) => t.name === 'docs_report');
    expect(report?.execution).toEqual({ taskSupport: 'required' });
    const created = await client.request<{ task: { taskId: string; status: string } }>('tools/call', { name: 'docs_report', arguments: { topic: 'tides' }, task: {} });
    expect(created.task.status).toBe('working');
    expect(await client.request('tasks/result', { taskId: created.task.taskId })).toMatchObject({ content: [{ type: 'text', text: 'report on tides' }] });
    expect((await client.request<{ task?: unknown; status?: string }>('tasks/get', { taskId: created.task.taskId })).status).toBe('completed');
    // Cancelling the task here cancels the upstream's.
    const vigil = await client.request<{ task: { taskId: string } }>('tools/call', { name: 'docs_vigil', arguments: {}, task: {} });
    await client.request('tasks/cancel', { taskId: vigil.task.taskId });
    expect(await until(async () => (textOf(await client.callTool('docs_cancelled_tasks')) === '1' ? true : undefined), 'the upstream task to be cancelled')).toBe(true);
    // Not as a plain call: the upstream's contract holds here too.
    expect((await rpcErrorOf(client.callTool('docs_report', { topic: 'x' }))).message).toMatch(/must be called as a task/);
  });
});

describe("an upstream's notifications", () => {
  it('resource updates reach the clients subscribed to the namespaced URI; log lines reach the caller', async () => {
    await client.subscribe('docs://docs/readme');
    // A URI of a template: read, then subscribed to (the gateway subscribes upstream on the read).
    await client.readResource('docs://docs/pages/intro');
    await client.subscribe('docs://docs/pages/intro');
    await client.setLogLevel('info');
    expect(textOf(await client.callTool('docs_touch'))).toBe('touched');
    await client.nextNotification('notifications/resources/updated');
    const updated = client.notifications.filter((n) => n.method === 'notifications/resources/updated').map((n) => n.params);
    for (let i = 0; i < 400 && updated.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 25));
      updated.splice(0, updated.length, ...client.notifications.filter((n) => n.method === 'notifications/resources/updated').map((n) => n.params));
    }
    expect(updated).toEqual([{ uri: 'docs://docs/readme' }, { uri: 'docs://docs/pages/intro' }]);
    const lines = client.notifications.filter((n) => n.method === 'notifications/message').map((n) => n.params);
    expect(lines).toEqual([{ level: 'info', logger: 'editor', data: 'touched the readme' }]);
  });
});

describe("an upstream's requests to its client", () => {
  it('reach the downstream client of the call, and its answers go back', async () => {
    const asking = await connect(server, { ...quietOptions(), capabilities: { elicitation: {}, sampling: {} } });
    asking.onRequest('elicitation/create', (params) => {
      expect(params).toMatchObject({ message: 'Your name?', requestedSchema: { properties: { name: { type: 'string' } } } });
      return { action: 'accept', content: { name: 'Ada' } };
    });
    asking.onRequest('sampling/createMessage', () => ({ role: 'assistant', content: { type: 'text', text: 'short' }, model: 'test-model' }));
    expect(textOf(await asking.callTool('docs_ask'))).toBe('hello Ada');
    expect(textOf(await asking.callTool('docs_summarise'))).toBe('model said: short');
    asking.close();
  });

  it('reach a 2026-07-28 client as input requests: the round ends, the retry with the answer calls the upstream again', async () => {
    const modern = await connect(server, { ...quietOptions(), protocolVersion: '2026-07-28', capabilities: { elicitation: {}, sampling: {} } });
    const asked: string[] = [];
    modern.onRequest('elicitation/create', (params) => {
      asked.push(String(params.message));
      return { action: 'accept', content: { name: 'Lin' } };
    });
    modern.onRequest('sampling/createMessage', () => ({ role: 'assistant', content: { type: 'text', text: 'brief' }, model: 'test-model' }));
    expect(textOf(await modern.callTool('docs_ask'))).toBe('hello Lin');
    expect(asked).toEqual(['Your name?']);
    expect(textOf(await modern.callTool('docs_summarise'))).toBe('model said: brief');
    modern.close();
  });

  it('fail the upstream call when the downstream client cannot answer them', async () => {
    // This client declared no elicitation: the upstream hears an error and says so in its result.
    const result = await client.callTool('docs_ask');
    expect(result.isError).toBe(true);
  });
});

describe('an upstream that dies', () => {
  it('is hidden with list_changed, answers a clear error naming it, and is started again', async () => {
    client.close();
    await server.gateway.close();
    server = await proxyServer(config, { backoffMs: 3000 });
    client = await connect(server, quietOptions());
    await server.gateway.ready();
    const pid = Number(textOf(await client.callTool('docs_pid')));
    process.kill(pid, 'SIGKILL');
    await client.nextNotification('notifications/tools/list_changed');
    await until(async () => ((await client.listTools()).tools.length === 0 ? true : undefined), 'the tools to go');
    const refused = await rpcErrorOf(client.callTool('docs_add', { a: 1, b: 1 }));
    expect(refused.message).toMatch(/^Tool "docs_add" is unavailable: the upstream server "docs" \(.*node.*\) is down \(its process exited\); try again shortly$/);
    expect((await rpcErrorOf(client.readResource('docs://docs/pages/x'))).message).toMatch(/^Resource docs:\/\/docs\/pages\/x is unavailable/);
    expect((await rpcErrorOf(client.callTool('docs_nothing'))).message).toBe('Unknown tool: docs_nothing');
    const back = await until(async () => ((await client.listTools()).tools.length > 0 ? true : undefined), 'the upstream to come back');
    expect(back).toBe(true);
    const again = Number(textOf(await client.callTool('docs_pid')));
    expect(again).not.toBe(pid);
    expect(textOf(await client.callTool('docs_add', { a: 1, b: 1 }))).toBe('2');
  });
});
