import 'reflect-metadata';
import { IsString } from 'class-validator';
import pino from 'pino';
import { TestClient, connect, rpcErrorOf, memoryLogger } from '@mcpx/testing';
import { ErrorCode, McpError, Prompt, Resource, ResourceTemplate, Server, Tool, createEngine, type Session } from '../src';
import { parseMessage, type JsonRpcMessage, type McpEngine } from '../src/transport';

const quiet = { logger: pino({ level: 'silent' }) };

/** A pino logger writing JSON lines to memory. */

/** A session driven with raw JSON-RPC, recording everything the server writes. */
function rawSession(engine: McpEngine): { session: Session; sent: JsonRpcMessage[]; send: (msg: object) => Promise<void> } {
  const sent: JsonRpcMessage[] = [];
  const outlet = { send: (m: JsonRpcMessage) => sent.push(JSON.parse(JSON.stringify(m))) };
  const session = engine.createSession(outlet);
  return { session, sent, send: (msg) => session.receive(parseMessage(JSON.stringify(msg)), outlet) };
}

const initParams = (over: Record<string, unknown> = {}) => ({
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'raw', version: '1.0.0' },
  ...over,
});

class NameArgs {
  @IsString() name!: string;
}

@Server({
  name: 'full-server',
  version: '2.3.4',
  title: 'Full Server',
  description: 'A server with every identity field',
  icons: [{ src: 'https://example.com/s.svg', mimeType: 'image/svg+xml' }],
  websiteUrl: 'https://example.com',
  instructions: 'Call echo first.',
})
class FullServer {
  @Tool()
  echo(input: NameArgs) {
    return input.name;
  }
  @Resource({ uri: 'mem://boom' })
  boom(): string {
    throw new Error('secret database password is hunter2');
  }
  @Resource({ uri: 'mem://gone' })
  gone(): string {
    throw new McpError(-32002, 'It went away', { uri: 'mem://gone', reason: 'deleted' });
  }
  @Resource({ uri: 'mem://custom' })
  custom(): string {
    throw new McpError(-32099, 'Custom failure');
  }
  @Prompt()
  crash(_args: void): string {
    throw new TypeError('prompt internals exploded');
  }
}

class ToolsOnly {
  @Tool()
  only(_input: void) {
    return 'only';
  }
}

describe('initialize', () => {
  it.each(['2025-11-25', '2025-06-18', '2025-03-26'])('echoes the supported version %s', async (version) => {
    const client = await connect(new ToolsOnly(), { ...quiet, protocolVersion: version });
    expect(client.initializeResult?.protocolVersion).toBe(version);
    expect(client.session.protocolVersion).toBe(version);
  });

  it.each(['2024-11-05', '1.0.0', '2099-01-01'])('answers an unsupported version %s with 2025-11-25', async (version) => {
    const client = await connect(new ToolsOnly(), { ...quiet, protocolVersion: version });
    expect(client.initializeResult?.protocolVersion).toBe('2025-11-25');
  });

  it('returns serverInfo with every identity field and the instructions', async () => {
    const client = await connect(new FullServer(), quiet);
    expect(client.initializeResult).toEqual({
      protocolVersion: '2025-11-25',
      capabilities: expect.any(Object),
      serverInfo: {
        name: 'full-server',
        version: '2.3.4',
        title: 'Full Server',
        description: 'A server with every identity field',
        icons: [{ src: 'https://example.com/s.svg', mimeType: 'image/svg+xml' }],
        websiteUrl: 'https://example.com',
      },
      instructions: 'Call echo first.',
    });
  });

  it('names an undecorated server after its class and omits instructions', async () => {
    const client = await connect(new ToolsOnly(), quiet);
    expect(client.initializeResult?.serverInfo).toEqual({ name: 'ToolsOnly', version: '0.0.0' });
    expect(client.initializeResult).not.toHaveProperty('instructions');
  });

  it('keeps the client info and capabilities on the session', async () => {
    const client = await connect(new ToolsOnly(), { ...quiet, clientInfo: { name: 'me', version: '9' }, capabilities: { roots: {} } });
    expect(client.session.clientInfo).toEqual({ name: 'me', version: '9' });
    expect(client.session.clientCapabilities).toEqual({ roots: {} });
  });
});

describe('capabilities come from the registry', () => {
  it('declares only tools (and logging) for a tools-only server', async () => {
    const client = await connect(new ToolsOnly(), quiet);
    expect(client.initializeResult?.capabilities).toEqual({ logging: {}, tools: { listChanged: true } });
    for (const method of ['prompts/list', 'resources/list', 'resources/templates/list']) {
      const error = await rpcErrorOf(client.request(method));
      expect(error.code).toBe(-32601);
    }
    expect((await rpcErrorOf(client.request('prompts/get', { name: 'x' }))).code).toBe(-32601);
    expect((await rpcErrorOf(client.request('resources/read', { uri: 'mem://x' }))).code).toBe(-32601);
    expect((await rpcErrorOf(client.complete({ type: 'ref/prompt', name: 'x' }, { name: 'a', value: '' }))).code).toBe(-32601);
  });

  it('declares prompts, resources and completions when there are some', async () => {
    const client = await connect(new FullServer(), quiet);
    expect(client.initializeResult?.capabilities).toEqual({
      logging: {},
      completions: {},
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      tools: { listChanged: true },
    });
  });

  it('declares completions for a server with resource templates but no prompts', async () => {
    class TemplatesOnly {
      @ResourceTemplate({ uriTemplate: 'mem://{id}' })
      item({ id }: { id: string }) {
        return id;
      }
    }
    const client = await connect(new TemplatesOnly(), quiet);
    expect(client.initializeResult?.capabilities).toEqual({
      logging: {},
      completions: {},
      resources: { subscribe: true, listChanged: true },
    });
    expect((await rpcErrorOf(client.request('tools/list'))).code).toBe(-32601);
    expect((await rpcErrorOf(client.callTool('x'))).code).toBe(-32601);
  });

  it('declares no completions for fixed resources only', async () => {
    class ResourcesOnly {
      @Resource({ uri: 'mem://a' })
      a() {
        return 'a';
      }
    }
    const client = await connect(new ResourcesOnly(), quiet);
    expect(client.initializeResult?.capabilities).toEqual({ logging: {}, resources: { subscribe: true, listChanged: true } });
  });

  it('merges the capabilities option over the derived ones', async () => {
    const client = await connect(new ToolsOnly(), { ...quiet, capabilities: { experimental: { x: {} }, tools: { listChanged: false } } });
    expect(client.initializeResult?.capabilities).toEqual({ logging: {}, tools: { listChanged: false }, experimental: { x: {} } });
  });
});

describe('lifecycle errors', () => {
  it('refuses requests before initialize but answers ping', async () => {
    const client = new TestClient(createEngine(new FullServer(), quiet));
    expect(await client.ping()).toEqual({});
    for (const method of ['tools/list', 'resources/list', 'prompts/list', 'logging/setLevel']) {
      const error = await rpcErrorOf(client.request(method, method === 'logging/setLevel' ? { level: 'debug' } : undefined));
      expect(error.code).toBe(-32600);
      expect(error.message).toContain('initialize');
    }
    await client.initialize();
    expect((await client.listTools()).tools).toHaveLength(1);
  });

  it('accepts requests between the initialize response and notifications/initialized', async () => {
    const { session, sent, send } = rawSession(createEngine(new ToolsOnly(), quiet));
    await send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: initParams() });
    expect(session.state).toBe('initializing');
    await send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(sent[1]).toMatchObject({ id: 2, result: { tools: [{ name: 'only' }] } });
    await send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(session.state).toBe('ready');
    expect(sent).toHaveLength(2);
  });

  it('refuses a second initialize', async () => {
    const client = await connect(new ToolsOnly(), quiet);
    const error = await rpcErrorOf(client.initialize());
    expect(error.code).toBe(-32600);
    expect(client.session.protocolVersion).toBe('2025-11-25');
  });

  it('answers an unknown method with -32601, before and after initialize', async () => {
    const client = new TestClient(createEngine(new ToolsOnly(), quiet));
    expect((await rpcErrorOf(client.request('tools/frobnicate'))).code).toBe(-32601);
    await client.initialize();
    const error = await rpcErrorOf(client.request('sampling/createMessage'));
    expect(error.code).toBe(-32601);
    expect(error.message).toContain('sampling/createMessage');
  });

  it.each([
    ['clientInfo missing', { clientInfo: undefined }],
    ['clientInfo without a version', { clientInfo: { name: 'x' } }],
    ['clientInfo not an object', { clientInfo: 'me' }],
    ['capabilities missing', { capabilities: undefined }],
    ['protocolVersion missing', { protocolVersion: undefined }],
    ['protocolVersion not a string', { protocolVersion: 20251125 }],
  ])('answers initialize with %s with -32602', async (_what, over) => {
    const { session, sent, send } = rawSession(createEngine(new ToolsOnly(), quiet));
    await send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: initParams(over) });
    expect(sent).toEqual([{ jsonrpc: '2.0', id: 'init', error: { code: -32602, message: expect.any(String) } }]);
    expect(session.state).toBe('new');
    // the session can still initialize properly afterwards
    await send({ jsonrpc: '2.0', id: 2, method: 'initialize', params: initParams() });
    expect(sent[1]).toMatchObject({ id: 2, result: { protocolVersion: '2025-11-25' } });
  });

  it('answers malformed frames with JSON-RPC errors', async () => {
    const { sent, session } = rawSession(createEngine(new ToolsOnly(), quiet));
    const outlet = session.outlet;
    await session.receive(parseMessage('{not json'), outlet);
    await session.receive(parseMessage('[{"jsonrpc":"2.0","id":1,"method":"ping"}]'), outlet);
    await session.receive(parseMessage('{"jsonrpc":"1.0","id":7,"method":"ping"}'), outlet);
    await session.receive(parseMessage('{"jsonrpc":"2.0","id":8,"method":"ping","params":[1]}'), outlet);
    expect(sent.map((m: any) => [m.id, m.error.code])).toEqual([
      [undefined, -32700],
      [undefined, -32600],
      [7, -32600],
      [8, -32602],
    ]);
  });

  it('refuses a request id already in flight', async () => {
    let release!: () => void;
    class Slow {
      @Tool()
      async wait(_input: void) {
        await new Promise<void>((resolve) => (release = resolve));
        return 'done';
      }
    }
    const { sent, send } = rawSession(createEngine(new Slow(), quiet));
    await send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: initParams() });
    const first = send({ jsonrpc: '2.0', id: 'same', method: 'tools/call', params: { name: 'wait' } });
    await new Promise((r) => setImmediate(r));
    await send({ jsonrpc: '2.0', id: 'same', method: 'ping' });
    expect(sent[1]).toMatchObject({ id: 'same', error: { code: -32600 } });
    release();
    await first;
    expect(sent[2]).toMatchObject({ id: 'same', result: { content: [{ type: 'text', text: 'done' }] } });
  });

  it('refuses requests on a closed session', async () => {
    const client = await connect(new ToolsOnly(), quiet);
    const { session } = client;
    const sent: JsonRpcMessage[] = [];
    session.close();
    expect(session.state).toBe('closed');
    await session.receive(parseMessage('{"jsonrpc":"2.0","id":5,"method":"ping"}'), { send: (m) => sent.push(m) });
    expect(sent).toEqual([{ jsonrpc: '2.0', id: 5, error: { code: -32600, message: expect.any(String) } }]);
  });
});

describe('handler errors', () => {
  it('turns a plain Error into -32603 without leaking its text, and logs it', async () => {
    const { logger, lines } = memoryLogger();
    const client = await connect(new FullServer(), { logger });
    const error = await rpcErrorOf(client.readResource('mem://boom'));
    expect(error.code).toBe(ErrorCode.InternalError);
    expect(error.message).not.toContain('hunter2');
    expect(error.message).not.toContain('secret');
    expect(error.message).not.toMatch(/\bat .*\.ts:\d+/);
    expect(error.data).toBeUndefined();
    const logged = lines.find((l) => l.msg === 'request failed');
    expect(logged).toBeDefined();
    expect(logged!.level).toBe(50);
    expect(logged!.method).toBe('resources/read');
    expect(logged!.err.message).toBe('secret database password is hunter2');
    expect(logged!.err.stack).toContain('boom');
    expect(typeof logged!.requestId).toBe('number');
  });

  it('turns an Error thrown by a prompt into -32603 as well', async () => {
    const { logger, lines } = memoryLogger();
    const client = await connect(new FullServer(), { logger });
    const error = await rpcErrorOf(client.getPrompt('crash'));
    expect(error.code).toBe(-32603);
    expect(error.message).not.toContain('exploded');
    expect(lines.some((l) => l.msg === 'request failed' && l.err?.message === 'prompt internals exploded')).toBe(true);
  });

  it('answers an McpError thrown by a resource handler with its code, message and data', async () => {
    const client = await connect(new FullServer(), quiet);
    const gone = await rpcErrorOf(client.readResource('mem://gone'));
    expect(gone).toMatchObject({ code: -32002, message: 'It went away', data: { uri: 'mem://gone', reason: 'deleted' } });
    const custom = await rpcErrorOf(client.readResource('mem://custom'));
    expect(custom.code).toBe(-32099);
    expect(custom.message).toBe('Custom failure');
    expect(custom.data).toBeUndefined();
  });

  it('logs the session initialization with the client name', async () => {
    const { logger, lines } = memoryLogger();
    await connect(new ToolsOnly(), { logger, clientInfo: { name: 'inspector', version: '1.2.3' } });
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'session initialized', client: 'inspector', clientVersion: '1.2.3', protocolVersion: '2025-11-25' }));
  });
});

describe('engine', () => {
  it('builds one engine per object and reuses it', () => {
    const server = new ToolsOnly();
    const engine = createEngine(server, quiet);
    expect(createEngine(server)).toBe(engine);
    expect(createEngine(engine)).toBe(engine);
  });

  it('refuses to build an engine from nothing', () => {
    expect(() => createEngine([])).toThrow(TypeError);
  });

  it('tracks sessions and forgets closed ones', async () => {
    const engine = createEngine(new ToolsOnly(), quiet);
    const a = new TestClient(engine);
    const b = new TestClient(engine);
    expect(engine.sessionCount).toBe(2);
    expect(engine.getSession(a.session.id)).toBe(a.session);
    a.close();
    expect(engine.sessionCount).toBe(1);
    expect(engine.getSession(a.session.id)).toBeUndefined();
    engine.close();
    expect(engine.sessionCount).toBe(0);
    expect(b.session.state).toBe('closed');
  });
});

describe('sessions that cannot receive unsolicited messages', () => {
  it('are offered neither list_changed nor subscriptions, and subscribe answers -32601', async () => {
    const engine = createEngine(new FullServer(), quiet);
    const sent: unknown[] = [];
    const session = engine.createSession({ send: (m) => void sent.push(m) }, 'stateless-1', { unsolicited: false });
    const init = await session.handleRequest(
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } },
      session.outlet,
    );
    const caps = (init as unknown as { result: { capabilities: Record<string, unknown> } }).result.capabilities;
    expect(caps.tools).toEqual({ listChanged: false });
    expect(caps.prompts).toEqual({ listChanged: false });
    expect(caps.resources).toEqual({ subscribe: false, listChanged: false });
    const sub = await session.handleRequest({ jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'x://y' } }, session.outlet);
    expect(sub).toMatchObject({ error: { code: -32601 } });
    // And a stateful session of the same engine still gets both.
    expect(engine.capabilities().resources).toEqual({ subscribe: true, listChanged: true });
  });
});
