/**
 * Bounds on what a client can make the server do: the message budget checked before parsing, the
 * argument limits checked before class-transformer, undeclared properties, and the caps on
 * requests in flight and running tasks.
 */
import 'reflect-metadata';
import { IsInt, IsOptional, IsString, ValidateNested } from 'class-validator';
import { Type } from 'class-transformer';
import { connect, quietOptions, rpcErrorOf } from '@mcpx/testing';
import { InMemoryTaskStore, McpServer, Tool, type CallToolResult, type RequestContext } from '../src';
import { DEFAULT_MESSAGE_LIMITS, checkArgumentLimits, decodeMessage, resolveArgumentLimits, resolveMessageLimits, scanMessage } from '../src/transport';

const quiet = quietOptions();
const bytes = (text: string) => Buffer.from(text, 'utf8');
const nested = (levels: number, inner = '1') => '{"a":'.repeat(levels) + inner + '}'.repeat(levels);
const textOf = (result: CallToolResult) => result.content.map((c) => (c as { text: string }).text).join('\n');

describe('the message budget', () => {
  it('passes ordinary messages, whatever their strings hold', () => {
    const text = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: '{{{[[[,,,:::"\\" ünïcødé 🎉', list: [1, 2, { deep: [[[]]] }] } },
    });
    expect(scanMessage(bytes(text))).toBeUndefined();
    expect(decodeMessage(bytes(text))).toMatchObject({ kind: 'request', message: { id: 1, method: 'tools/call' } });
  });

  it('refuses nesting past maxDepth inside params with -32602 and the request id, found even after the excess', () => {
    const before = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":${nested(100_000)}}}`;
    expect(decodeMessage(bytes(before))).toEqual({
      kind: 'invalid',
      error: { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'Invalid params: params.arguments.a.a nests deeper than 64 levels (a limit this server sets)' } },
    });
    const after = `{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":${nested(70)}},"id":"req-9"}`;
    expect(decodeMessage(bytes(after))).toMatchObject({ error: { id: 'req-9', error: { code: -32602 } } });
  });

  it('refuses an excess outside params, or without a usable id, with -32600 and no id', () => {
    const outside = decodeMessage(bytes(`{"jsonrpc":"2.0","id":1,"method":"x","extra":${nested(80)}}`));
    expect(outside).toEqual({
      kind: 'invalid',
      error: { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: the message nests deeper than 64 levels (a limit this server sets)' } },
    });
    const fractionalId = decodeMessage(bytes(`{"jsonrpc":"2.0","id":1.5,"method":"x","params":${nested(80)}}`));
    expect(fractionalId).toMatchObject({ kind: 'invalid', error: { error: { code: -32600 } } });
    expect('id' in (fractionalId as { error: object }).error).toBe(false);
    const notification = decodeMessage(bytes(`{"jsonrpc":"2.0","method":"notifications/x","params":${nested(80)}}`));
    expect(notification).toMatchObject({ kind: 'invalid', error: { error: { code: -32600 } } });
  });

  it('refuses an object with more keys than maxObjectKeys, and a message with more values than maxValues', () => {
    const keys = Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [`k${i}`, i]));
    const wide = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'x', arguments: { extra: keys } } });
    expect(decodeMessage(bytes(wide))).toMatchObject({
      error: { id: 3, error: { code: -32602, message: 'Invalid params: params.arguments.extra has an object with more than 10000 keys (a limit this server sets)' } },
    });
    const exactly = JSON.stringify({ id: 3, params: { extra: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i])) } });
    expect(scanMessage(bytes(exactly))).toBeUndefined();

    const many = JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { arguments: { list: new Array(100_001).fill(0) } } });
    expect(decodeMessage(bytes(many))).toMatchObject({ error: { id: 4, error: { code: -32602, message: expect.stringContaining('holds more than 100000 values') } } });
  });

  it('takes its limits from messageLimits, checked when the server is built', () => {
    const limits = resolveMessageLimits({ maxDepth: 3 });
    expect(limits).toEqual({ ...DEFAULT_MESSAGE_LIMITS, maxDepth: 3 });
    expect(scanMessage(bytes('{"params":{"a":{"b":1}}}'), limits)).toBeUndefined();
    expect(scanMessage(bytes('{"id":2,"params":{"a":{"b":[1]}}}'), limits)).toEqual({ message: 'params.a.b nests deeper than 3 levels', inParams: true, id: 2 });
    expect(() => resolveMessageLimits({ maxValues: 0 })).toThrow('messageLimits.maxValues must be a positive integer, got 0');
  });

  it('still answers a parse error for text that is within the budget but not JSON', () => {
    expect(decodeMessage(bytes('{"jsonrpc":"2.0",'))).toMatchObject({ kind: 'invalid', error: { error: { code: -32700 } } });
  });
});

describe('argument limits', () => {
  const defaults = resolveArgumentLimits(undefined);

  it('names the limit passed and where', () => {
    expect(checkArgumentLimits({ a: { b: [{ c: 'x'.repeat(11) }] } }, { ...defaults, maxStringLength: 10 })).toEqual({
      path: 'a.b[0].c',
      message: 'string of 11 characters is longer than the limit of 10',
    });
    expect(checkArgumentLimits({ list: [1, 2, 3] }, { ...defaults, maxArrayLength: 2 })).toEqual({
      path: 'list',
      message: 'array of 3 items is longer than the limit of 2',
    });
    expect(checkArgumentLimits({ a: { b: { c: {} } } }, { ...defaults, maxDepth: 3 })).toEqual({ path: 'a.b.c', message: 'nesting deeper than the limit of 3 levels' });
    expect(checkArgumentLimits({ a: 1, b: { c: 1, d: 1 } }, { ...defaults, maxKeys: 3 })).toEqual({
      path: 'b',
      message: 'the arguments hold more than 3 keys and items in all (the limit)',
    });
    expect(checkArgumentLimits({ a: 1, b: { c: 1 } }, { ...defaults, maxKeys: 3 })).toBeUndefined();
  });

  it('tells flat arguments (scalars only) by the same limits, with the same words', () => {
    expect(checkArgumentLimits({ text: 'x'.repeat(10), n: 1, ok: true, none: null }, { ...defaults, maxStringLength: 10 })).toBeUndefined();
    expect(checkArgumentLimits({ n: 1, text: 'x'.repeat(11) }, { ...defaults, maxStringLength: 10 })).toEqual({
      path: 'text',
      message: 'string of 11 characters is longer than the limit of 10',
    });
    expect(checkArgumentLimits({ a: 1, b: 2, c: 3 }, { ...defaults, maxKeys: 3 })).toBeUndefined();
    expect(checkArgumentLimits({ a: 1, b: 2, c: 3, d: 4 }, { ...defaults, maxKeys: 3 })).toEqual({
      path: '',
      message: 'the arguments hold more than 3 keys and items in all (the limit)',
    });
    expect(checkArgumentLimits({}, defaults)).toBeUndefined();
  });

  it('stops at the first excess', () => {
    const extra: Record<string, number> = {};
    for (let i = 0; i < 20_000; i++) extra[`k${i}`] = i;
    expect(checkArgumentLimits({ text: 'hi', extra }, defaults)).toEqual({
      path: 'extra',
      message: 'the arguments hold more than 5000 keys and items in all (the limit)',
    });
  });

  it('refuses bad limits with the option named', () => {
    expect(() => resolveArgumentLimits({ maxDepth: 1.5 })).toThrow('argumentLimits.maxDepth must be a positive integer, got 1.5');
    expect(() => resolveArgumentLimits({ unknownProperties: 'ignore' as never })).toThrow('argumentLimits.unknownProperties must be "refuse" or "drop"');
  });
});

class Line {
  @IsString() sku!: string;
  @IsInt() qty!: number;
}

class EchoInput {
  @IsString() text!: string;
  @IsOptional() @ValidateNested({ each: true }) @Type(() => Line) lines?: Line[];
}

class Guarded extends McpServer {
  calls: unknown[] = [];
  constructed = 0;

  @Tool()
  echo(input: EchoInput) {
    this.calls.push(input);
    return JSON.stringify(input);
  }

  @Tool({ limits: { maxStringLength: 5, unknownProperties: 'drop' } })
  short(input: EchoInput) {
    this.calls.push(input);
    return JSON.stringify(input);
  }

  @Tool({ inputSchema: { type: 'object', properties: { q: { type: 'string' } } } })
  raw(input: Record<string, unknown>) {
    this.calls.push(input);
    return 'raw';
  }
}

describe('tools/call with hostile arguments', () => {
  it('answers 200,000 extra keys with a tool error naming the limit, without running the tool', async () => {
    const server = new Guarded();
    const client = await connect(server, quiet);
    const extra: Record<string, number> = {};
    for (let i = 0; i < 200_000; i++) extra[`k${i}`] = i;
    const result = await client.callTool('echo', { text: 'hi', extra });
    expect(result).toEqual({
      content: [{ type: 'text', text: 'Invalid arguments:\n- extra: the arguments hold more than 5000 keys and items in all (the limit)' }],
      isError: true,
    });
    expect(server.calls).toEqual([]);
    // The server goes on serving.
    expect(textOf(await client.callTool('echo', { text: 'after' }))).toBe('{"text":"after"}');
  });

  it('answers deep nesting like any other invalid argument, never with an internal error', async () => {
    const server = new Guarded();
    const client = await connect(server, quiet);
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 1000; i++) deep = { a: deep };
    const result = await client.callTool('echo', { text: 'x', deep });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(`Invalid arguments:\n- deep${'.a'.repeat(31)}: nesting deeper than the limit of 32 levels`);
    expect(server.calls).toEqual([]);
  });

  it('refuses undeclared properties at any depth by default, with the other issues', async () => {
    const server = new Guarded();
    const client = await connect(server, quiet);
    const result = await client.callTool('echo', { text: 3, lines: [{ sku: 'a', qty: 1, colour: 'red' }], extra: true });
    expect(result.isError).toBe(true);
    expect(textOf(result).split('\n').sort()).toEqual(
      ['Invalid arguments:', '- extra: property extra should not exist', '- lines[0].colour: property colour should not exist', '- text: text must be a string'].sort(),
    );
    expect(server.calls).toEqual([]);
  });

  it('drops undeclared properties where the tool says so, and applies its own limits over the server’s', async () => {
    const server = new Guarded();
    const client = await connect(server, quiet);
    expect(textOf(await client.callTool('short', { text: 'hey', lines: [{ sku: 'a', qty: 2, colour: 'red' }], extra: { big: true } }))).toBe('{"text":"hey","lines":[{"sku":"a","qty":2}]}');
    expect(textOf(await client.callTool('short', { text: 'longer' }))).toBe('Invalid arguments:\n- text: string of 6 characters is longer than the limit of 5');
  });

  it('lists at most 50 issues in one message, and says how many more there were', async () => {
    const client = await connect(new Guarded(), quiet);
    const lines = Array.from({ length: 200 }, () => ({ sku: 1, qty: 'x' }));
    const message = textOf(await client.callTool('echo', { text: 'x', lines }));
    const listed = message.split('\n').slice(1);
    expect(listed).toHaveLength(51);
    expect(listed[0]).toBe('- lines[0].sku: sku must be a string');
    expect(listed[50]).toBe('- … and 350 more');
  });

  it('takes server-wide limits from argumentLimits', async () => {
    const client = await connect(new Guarded(), { ...quiet, argumentLimits: { maxArrayLength: 2 } });
    const lines = [1, 2, 3].map((qty) => ({ sku: 's', qty }));
    expect(textOf(await client.callTool('echo', { text: 'x', lines }))).toBe('Invalid arguments:\n- lines: array of 3 items is longer than the limit of 2');
    // A tool's own limits start from the server's.
    expect(textOf(await client.callTool('short', { text: 'x', lines }))).toBe('Invalid arguments:\n- lines: array of 3 items is longer than the limit of 2');
  });

  it('bounds raw-schema tools too', async () => {
    const server = new Guarded();
    const client = await connect(server, { ...quiet, argumentLimits: { maxKeys: 2 } });
    expect((await client.callTool('raw', { q: 'a', b: 1, c: 2 })).isError).toBe(true);
    expect(server.calls).toEqual([]);
  });

  it('fails at startup on a tool with a bad limit, naming it', async () => {
    class Bad {
      @Tool({ limits: { maxKeys: -1 } })
      t(_input: void) {
        return '';
      }
    }
    await expect(connect(new Bad(), quiet)).rejects.toThrow('Bad.t: limits.maxKeys must be a positive integer, got -1');
  });
});

class Holder extends McpServer {
  private releases: (() => void)[] = [];
  started = 0;

  @Tool({ taskSupport: 'optional' })
  async hold(_input: void, ctx: RequestContext) {
    this.started++;
    await new Promise<void>((resolve) => {
      this.releases.push(resolve);
      ctx.signal.addEventListener('abort', () => resolve());
    });
    return 'released';
  }

  releaseAll(): void {
    for (const release of this.releases.splice(0)) release();
  }
}

describe('caps on what one client holds', () => {
  it('refuses a request over maxRequestsInFlight with -32004, and serves the others', async () => {
    const server = new Holder();
    const client = await connect(server, { ...quiet, maxRequestsInFlight: 3 });
    const held = [client.callTool('hold'), client.callTool('hold'), client.callTool('hold')];
    await waitUntil(() => server.started === 3);
    const refused = await rpcErrorOf(client.callTool('hold'));
    expect(refused).toMatchObject({
      code: -32004,
      message: 'Too many requests in flight: this session already has 3 requests running (maxRequestsInFlight); wait for some to finish',
      data: { limit: 'maxRequestsInFlight', max: 3 },
    });
    server.releaseAll();
    for (const result of await Promise.all(held)) expect(textOf(result)).toBe('released');
    expect(await client.request('ping', {})).toEqual({});
  });

  it('refuses a task over maxTasksPerPrincipal with -32004 until one ends', async () => {
    const server = new Holder();
    const client = await connect(server, { ...quiet, maxTasksPerPrincipal: 2 });
    const created = [];
    for (let i = 0; i < 2; i++) created.push(await client.request('tools/call', { name: 'hold', task: {} }));
    const refused = await rpcErrorOf(client.request('tools/call', { name: 'hold', task: {} }));
    expect(refused).toMatchObject({ code: -32004, data: { limit: 'maxTasksPerPrincipal', max: 2 } });
    expect(refused.message).toMatch(/^Too many tasks: 2 of this caller's tasks are still running/);
    // Plain calls are not tasks, and still run.
    const plain = client.callTool('hold');
    await waitUntil(() => server.started === 3);
    // Cancelling one task frees its place.
    const taskId = (created[0] as { task: { taskId: string } }).task.taskId;
    await client.request('tasks/cancel', { taskId });
    expect(await client.request('tools/call', { name: 'hold', task: {} })).toMatchObject({ task: { status: 'working' } });
    server.releaseAll();
    expect(textOf(await plain)).toBe('released');
  });

  it('holds the task cap when the store answers slowly and calls arrive together', async () => {
    // A store that takes its time (a remote one): both calls are past the cap check before either is stored.
    class SlowStore extends InMemoryTaskStore {
      // eslint-disable-next-line @typescript-eslint/no-misused-promises -- TaskStore.create may return a Promise: a remote store's does
      override async create(record: Parameters<InMemoryTaskStore['create']>[0]): Promise<void> {
        await new Promise((resolve) => setTimeout(resolve, 5));
        super.create(record);
      }
    }
    const client = await connect(new Holder(), { ...quiet, maxTasksPerPrincipal: 1, taskStore: new SlowStore() });
    const answers = await Promise.allSettled([client.request('tools/call', { name: 'hold', task: {} }), client.request('tools/call', { name: 'hold', task: {} })]);
    expect(answers.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
    const refused = answers.find((a) => a.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: -32004, data: { limit: 'maxTasksPerPrincipal', max: 1 } });
  });

  it('refuses bad caps when the server is built', async () => {
    await expect(connect(new Holder(), { ...quiet, maxRequestsInFlight: 0 })).rejects.toThrow('maxRequestsInFlight must be a positive integer, got 0');
    await expect(connect(new Holder(), { ...quiet, maxTasksPerPrincipal: 2.5 })).rejects.toThrow('maxTasksPerPrincipal must be a positive integer, got 2.5');
  });
});

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}
