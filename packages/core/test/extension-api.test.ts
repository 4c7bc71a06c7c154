/**
 * The protocol extension API, as an application outside core uses it (the in-process test client,
 * both eras): what is refused at startup, eras, results that are not objects, several extensions
 * and their order, setup's server (offered, broadcast), capabilities merged with the server's own,
 * and a settings function asked again after registry changes.
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { connect, memoryLogger, quietOptions, rpcErrorOf } from '@mcpx/testing';
import { DefinitionError, McpError, Server, Tool, createEngine, type ExtensionServer, type McpExtension, type Middleware } from '../src';

const MODERN = { protocolVersion: '2026-07-28' } as const;

@Server({ name: 'plain-host', version: '1.0.0' })
class Host {
  @Tool({ description: 'Says hi' })
  hi() {
    return 'hi';
  }
}

/** A fresh server object each time: an engine is made once per object. */
const host = () => new Host();

const ext = (over: Partial<McpExtension> = {}): McpExtension => ({ id: 'com.example/ext', ...over });

describe('what an extension is refused for at startup', () => {
  const build = (extensions: McpExtension[]) => () => createEngine(host(), { ...quietOptions(), extensions });

  it.each(['audit', 'com.example/', '/audit', 'Com.Example/audit', 'com example/audit', 42])('an id that is not vendor-prefix/name: %p', (id) => {
    expect(build([ext({ id: id as string })])).toThrow(DefinitionError);
    expect(build([ext({ id: id as string })])).toThrow(/must read vendor-prefix\/name/);
  });

  it('the same id twice', () => {
    expect(build([ext(), ext()])).toThrow(new DefinitionError('extension "com.example/ext" is given twice'));
  });

  it("a method the core already has, or another extension's", () => {
    const handler = () => ({});
    expect(build([ext({ methods: [{ name: 'tools/list', handler }] })])).toThrow(/extension "com.example\/ext": method tools\/list already exists in the legacy era/);
    // server/discover is the 2026-07-28 era's own.
    expect(build([ext({ eras: ['modern'], methods: [{ name: 'server/discover', handler }] })])).toThrow(/method server\/discover already exists in the modern era/);
    expect(build([ext({ methods: [{ name: 'example/x', handler }] }), ext({ id: 'org.other/ext', methods: [{ name: 'example/x', handler }] })])).toThrow(
      /extension "org.other\/ext": method example\/x already exists/,
    );
  });

  it('a method without a name or a handler, a notification two extensions handle, middleware that is not functions', () => {
    expect(build([ext({ methods: [{ name: 'example/x' } as never] })])).toThrow(/each method needs a name and a handler/);
    const notification = { name: 'notifications/example/x', handler: () => {} };
    expect(build([ext({ notifications: [notification] }), ext({ id: 'org.other/ext', notifications: [notification] })])).toThrow(
      /extension "org.other\/ext": notification notifications\/example\/x is handled by another extension too/,
    );
    expect(build([ext({ middleware: [null as unknown as Middleware] })])).toThrow(new TypeError('extension "com.example/ext": middleware[0] is null, not a function'));
  });
});

describe('an extension offered in one era only', () => {
  const modernOnly = () => ext({ eras: ['modern'], settings: { only: 'modern' }, methods: [{ name: 'example/modern', handler: () => ({ served: true }) }] });

  it('is declared and served in that era', async () => {
    const client = await connect(host(), { ...quietOptions(), ...MODERN, extensions: [modernOnly()] });
    expect((await client.discover()).capabilities.extensions).toEqual({ 'com.example/ext': { only: 'modern' } });
    expect(await client.request('example/modern')).toMatchObject({ served: true });
  });

  it('is neither declared nor served in the other (-32601)', async () => {
    const client = await connect(host(), { ...quietOptions(), extensions: [modernOnly()] });
    expect(client.initializeResult!.capabilities).not.toHaveProperty('experimental');
    const error = await rpcErrorOf(client.request('example/modern'));
    expect(error.code).toBe(-32601);
  });
});

describe.each([
  ['2025-11-25', {}],
  ['2026-07-28', MODERN],
] as const)("an extension method's answers (%s)", (_name, era) => {
  const methods: McpExtension['methods'] = [
    { name: 'example/nothing', handler: () => undefined },
    { name: 'example/string', handler: () => 'just a string' },
    { name: 'example/array', handler: () => [1, 2] },
    {
      name: 'example/refuse',
      handler: () => {
        throw new McpError(-32070, 'refused by the extension', { why: 'test' });
      },
    },
    {
      name: 'example/crash',
      handler: () => {
        throw new Error('extension internals');
      },
    },
  ];

  it('undefined is an empty result', async () => {
    const client = await connect(host(), { ...quietOptions(), ...era, extensions: [ext({ methods })] });
    const result = await client.request('example/nothing');
    // 2026-07-28 results carry resultType (and _meta); nothing of the extension's own.
    const { resultType: _resultType, _meta, ...own } = result as Record<string, unknown>;
    expect(own).toEqual({});
  });

  it('a value that is not an object is -32603 naming the extension; an McpError is itself; anything else -32603 without its message', async () => {
    const client = await connect(host(), { ...quietOptions(), ...era, extensions: [ext({ methods })] });
    const string = await rpcErrorOf(client.request('example/string'));
    expect({ code: string.code, message: string.message }).toEqual({ code: -32603, message: 'extension "com.example/ext" answered example/string with string, not a result object' });
    const array = await rpcErrorOf(client.request('example/array'));
    expect(array.code).toBe(-32603);
    expect(array.message).toMatch(/answered example\/array with object, not a result object/);
    const refused = await rpcErrorOf(client.request('example/refuse'));
    expect({ code: refused.code, message: refused.message, data: refused.data }).toEqual({ code: -32070, message: 'refused by the extension', data: { why: 'test' } });
    const crash = await rpcErrorOf(client.request('example/crash'));
    expect({ code: crash.code, message: crash.message }).toEqual({ code: -32603, message: 'Internal error while handling example/crash' });
  });
});

describe('several extensions', () => {
  const seen: string[] = [];
  const marking =
    (name: string): Middleware =>
    async (ctx, next) => {
      seen.push(`${name} ${ctx.method}`);
      return next();
    };

  @Server({
    name: 'two-extensions',
    version: '1.0.0',
    middleware: [marking('@Server')],
    extensions: [ext({ id: 'org.decorated/b', middleware: [marking('b')], settings: { from: 'decorator' } })],
  })
  class TwoExtensions {
    @Tool({ description: 'Says hi' })
    hi() {
      seen.push('handler');
      return 'hi';
    }
  }

  const options = () => ({
    ...quietOptions(),
    middleware: [marking('options')],
    extensions: [ext({ id: 'com.options/a', middleware: [marking('a1'), marking('a2')], settings: { from: 'options' } })],
    capabilities: { experimental: { 'com.own/flag': { on: true } } },
  });

  it("run their middleware after the server's: options' extensions before @Server's, each in its own order", async () => {
    const client = await connect(new TwoExtensions(), options());
    seen.length = 0;
    await client.callTool('hi');
    expect(seen).toEqual(['options tools/call', '@Server tools/call', 'a1 tools/call', 'a2 tools/call', 'b tools/call', 'handler']);
  });

  it("are declared beside the server's own experimental capabilities (2025-11-25), and alone under extensions (2026-07-28)", async () => {
    const legacy = await connect(new TwoExtensions(), options());
    expect(legacy.initializeResult!.capabilities.experimental).toEqual({
      'com.options/a': { from: 'options' },
      'org.decorated/b': { from: 'decorator' },
      'com.own/flag': { on: true },
    });
    const modern = await connect(new TwoExtensions(), { ...options(), ...MODERN });
    const capabilities = (await modern.discover()).capabilities;
    expect(capabilities.extensions).toEqual({ 'com.options/a': { from: 'options' }, 'org.decorated/b': { from: 'decorator' } });
    expect(capabilities.experimental).toEqual({ 'com.own/flag': { on: true } });
  });
});

describe("setup's server", () => {
  class NewsParams {
    @IsString()
    headline!: string;
  }

  it('tells whether an extension is offered, and broadcasts to initialized 2025-11-25 sessions', async () => {
    let server!: ExtensionServer;
    const engine = createEngine(host(), {
      ...quietOptions(),
      extensions: [ext({ setup: (s) => void (server = s) }), ext({ id: 'com.example/off', settings: () => undefined })],
    });
    expect(server.registry).toBe(engine.registry);
    expect(server.offered('com.example/ext')).toBe(true);
    expect(server.offered('com.example/off')).toBe(false);
    expect(server.offered('com.example/unknown')).toBe(false);

    const client = await connect(engine);
    const news = client.nextNotification('notifications/example/news');
    server.broadcast('notifications/example/news', { headline: 'extensions work' });
    expect((await news).params).toEqual({ headline: 'extensions work' });
  });

  it('hands a notification to its handler only while the extension is offered, and logs a handler that fails', async () => {
    const { logger, lines } = memoryLogger('warn');
    const heard: unknown[] = [];
    let open = false;
    const engine = createEngine(host(), {
      logger,
      extensions: [
        ext({
          settings: (s) => (open || s.registry.tools.has('open') ? {} : undefined),
          notifications: [
            {
              name: 'notifications/example/news',
              params: NewsParams,
              handler: (params) => {
                if (params.headline === 'fail') throw new Error('handler failed');
                heard.push(params.headline);
              },
            },
          ],
        }),
      ],
    });
    const client = await connect(engine);
    client.notify('notifications/example/news', { headline: 'while closed' });
    await client.ping();
    // Settings are asked again after a registry change, not on every request.
    open = true;
    client.notify('notifications/example/news', { headline: 'still closed: settings not asked again yet' });
    await client.ping();
    engine.registry.addTool({ name: 'open', description: 'Opens', handler: () => 'opened' });
    client.notify('notifications/example/news', { headline: 'open' });
    client.notify('notifications/example/news', { headline: 'fail' });
    client.notify('notifications/example/news', { headline: 7 });
    await client.ping();
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual(['open']);
    const failures = lines.filter((l) => l.msg === 'extension notification failed');
    expect(failures.map((l) => [l.method, l.extension, l.err.message])).toEqual([
      ['notifications/example/news', 'com.example/ext', 'handler failed'],
      ['notifications/example/news', 'com.example/ext', expect.stringMatching(/Invalid notifications\/example\/news params/)],
    ]);
  });
});

describe('a settings function and the capabilities derived from it', () => {
  const gated = () => createEngine(host(), { ...quietOptions(), extensions: [ext({ settings: (s) => (s.registry.tools.has('unlock') ? { unlocked: true } : undefined) })] });
  /** One tool more: the kinds of entries the server has stay the same. */
  const unlock = (engine: ReturnType<typeof gated>) => engine.registry.addTool({ name: 'unlock', description: 'Unlocks', handler: () => 'unlocked' });

  it('is asked again after a registry change: 2025-11-25 sessions and 2026-07-28 clients are told of the change', () => {
    const engine = gated();
    expect(engine.capabilities()).not.toHaveProperty('experimental');
    expect(engine.modernCapabilities()).not.toHaveProperty('extensions');
    unlock(engine);
    expect(engine.capabilities().experimental).toEqual({ 'com.example/ext': { unlocked: true } });
    expect(engine.modernCapabilities().extensions).toEqual({ 'com.example/ext': { unlocked: true } });
  });

  // Sessions without unsolicited messages (stateless HTTP) share capabilities kept between registry
  // changes: a change must still reach them.
  it('is asked again after a registry change for sessions without unsolicited messages (stateless HTTP) too', () => {
    const engine = gated();
    expect(engine.capabilities({ unsolicited: false })).not.toHaveProperty('experimental');
    unlock(engine);
    expect(engine.capabilities({ unsolicited: false }).experimental).toEqual({ 'com.example/ext': { unlocked: true } });
  });
});
