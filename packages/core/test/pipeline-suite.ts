/**
 * The middleware and extension tests every transport runs in both eras, against the servers of
 * pipeline-fixture.ts, through the official clients: `@modelcontextprotocol/sdk` 1.x (2025-11-25,
 * a session) and `@modelcontextprotocol/client` 2.x (2026-07-28, sessionless requests with
 * `_meta`). A transport's test file connects the clients its own way and calls middlewareSuite()
 * and extensionSuite(). Not a test file itself.
 */
import { Client, type StandardSchemaV1, type Transport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport as LegacyTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import pino from 'pino';
import { createEngine } from '../src';
import type { McpEngine } from '../src/transport';
import { Bare, EXTENSION_ID, Extended, QUOTA_CODE, SHARED_TOOLS, decoratedExtension, newExtensionProbe, probe, record, testExtension } from './pipeline-fixture';

export type Answer = { content?: unknown; isError?: boolean };

export const textOf = (result: Answer) =>
  ((result.content ?? []) as { type: string; text?: string }[])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');

/** What both clients are driven through, so one set of tests runs in both eras. */
export interface Peer {
  era: 'legacy' | 'modern';
  /** The name the client gives in clientInfo. */
  name: string;
  callTool(name: string, args?: Record<string, unknown>): Promise<Answer>;
  listTools(): Promise<string[]>;
  listPrompts(): Promise<string[]>;
  getPrompt(name: string): Promise<unknown>;
  /** Any request, an extension's included: its result. */
  request(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Sends a notification. */
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  /** What the server declared: the initialize result's (2025-11-25) or server/discover's (2026-07-28). */
  serverCapabilities(): Record<string, any>;
  /** The 2025-11-25 session's id, as the transport knows it. */
  sessionId(): string | undefined;
  /** How many elicitation requests reached the client's handler. */
  elicitations: number;
  close(): Promise<void>;
}

/** Any result object (a Standard Schema, which client 2.x takes for methods outside the spec). */
const anyResult: StandardSchemaV1<unknown, Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'pipeline-suite',
    validate: (value) =>
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? { value: value as Record<string, unknown> }
        : { issues: [{ message: `not an object: ${JSON.stringify(value)}` }] },
  },
};

/** A 2025-11-25 client that can show forms and accepts every question. */
export async function legacyPeer(
  transport: LegacyTransport,
  name: string,
  options: { close?: () => Promise<void>; sessionId?: () => string | undefined } = {},
): Promise<Peer & { client: LegacyClient }> {
  const { close } = options;
  const client = new LegacyClient({ name, version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  const peer = {
    client,
    era: 'legacy' as const,
    name,
    elicitations: 0,
    callTool: (tool: string, args: Record<string, unknown> = {}) => client.callTool({ name: tool, arguments: args }) as Promise<Answer>,
    listTools: async () => (await client.listTools()).tools.map((t) => t.name),
    listPrompts: async () => (await client.listPrompts()).prompts.map((p) => p.name),
    getPrompt: (prompt: string) => client.getPrompt({ name: prompt }),
    request: (method: string, params?: Record<string, unknown>) => client.request({ method, params }, ResultSchema) as Promise<Record<string, unknown>>,
    notify: (method: string, params?: Record<string, unknown>) => client.notification({ method, params }),
    serverCapabilities: () => client.getServerCapabilities() as Record<string, any>,
    sessionId: options.sessionId ?? (() => (transport as { sessionId?: string }).sessionId),
    close: async () => {
      await close?.();
      await client.close();
    },
  };
  client.setRequestHandler(ElicitRequestSchema, () => {
    peer.elicitations++;
    return { action: 'accept', content: { confirm: true } };
  });
  await client.connect(transport);
  return peer;
}

/** A 2026-07-28 client (pinned) that can show forms and accepts every question; it performs input_required retries itself. */
export async function modernPeer(transport: Transport, name: string, capabilities: Record<string, unknown> = {}): Promise<Peer & { client: Client }> {
  const client = new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {} }, ...capabilities } });
  client.onerror = () => {};
  const peer = {
    client,
    era: 'modern' as const,
    name,
    elicitations: 0,
    callTool: (tool: string, args: Record<string, unknown> = {}) => client.callTool({ name: tool, arguments: args }, { timeout: 10_000 }) as Promise<Answer>,
    listTools: async () => (await client.listTools()).tools.map((t) => t.name),
    listPrompts: async () => (await client.listPrompts()).prompts.map((p) => p.name),
    getPrompt: (prompt: string) => client.getPrompt({ name: prompt }),
    request: (method: string, params?: Record<string, unknown>) => client.request({ method, params }, anyResult, { timeout: 10_000 }),
    notify: (method: string, params?: Record<string, unknown>) => client.notification({ method, params }),
    serverCapabilities: () => client.getServerCapabilities() as Record<string, any>,
    sessionId: () => undefined,
    close: () => client.close(),
  };
  client.setRequestHandler('elicitation/create', async () => {
    peer.elicitations++;
    return { action: 'accept', content: { confirm: true } };
  });
  await client.connect(transport, { timeout: 10_000 });
  if (client.getNegotiatedProtocolVersion() !== '2026-07-28') throw new Error(`negotiated ${client.getNegotiatedProtocolVersion()}, not 2026-07-28`);
  return peer;
}

/** The JSON-RPC error a call was answered with (McpError of 1.x, ProtocolError of 2.x: both carry code and data). */
export async function rpcError(call: Promise<unknown>): Promise<{ code: number; message: string; data?: unknown }> {
  const err = await call.then(
    (result) => {
      throw new Error(`expected a JSON-RPC error, got ${JSON.stringify(result)}`);
    },
    (e: unknown) => e,
  );
  if (!(err instanceof Error) || typeof (err as { code?: unknown }).code !== 'number') throw err;
  const { code, data } = err as Error & { code: number; data?: unknown };
  return { code, message: err.message, data };
}

/**
 * The tests, for peers `connect(tenant)` gives: each calls as user@<tenant> with `{ tenant }`
 * claims, against a server whose options add `record('options')` before the shop's own middleware.
 */
export function middlewareSuite(connect: (tenant: string) => Promise<Peer>): void {
  let acme: Peer;
  let globex: Peer;

  beforeAll(async () => {
    acme = await connect('acme');
    globex = await connect('globex');
  });
  afterAll(async () => {
    await acme?.close();
    await globex?.close();
  });
  beforeEach(() => probe.reset());

  /** What ran for one method, in order (a client may send other requests around a call). */
  const ranFor = (method: string) => probe.seen.filter((s) => s.endsWith(` ${method}`) || s.startsWith('handler '));

  it('runs the options middleware, then @Server, then the class, then the method, then the handler', async () => {
    const result = await acme.callTool('ordered');
    expect(textOf(result)).toBe('ordered');
    expect(ranFor('tools/call')).toEqual(['options tools/call', 'server tools/call', 'class tools/call', 'method tools/call', 'handler ordered']);
  });

  it("runs a method's middleware for that tool only, and no entry middleware around lists", async () => {
    expect(textOf(await acme.callTool('plain'))).toBe('plain');
    expect(ranFor('tools/call')).toEqual(['options tools/call', 'server tools/call', 'class tools/call', 'handler plain']);

    probe.reset();
    await acme.listTools();
    await acme.listPrompts();
    expect(probe.seen.filter((s) => s.endsWith('/list'))).toEqual(['options tools/list', 'server tools/list', 'options prompts/list', 'server prompts/list']);
    expect(probe.seen.filter((s) => s.startsWith('class ') || s.startsWith('method '))).toEqual([]);
  });

  it('answers from a middleware without running the handler (a cached value)', async () => {
    // A plain value becomes text content, as a handler's would; a result object is answered as it is.
    expect(await acme.callTool('price', { sku: 'gold' })).toMatchObject({ content: [{ type: 'text', text: 'cached gold: 1900' }] });
    expect(await acme.callTool('price', { sku: 'silver' })).toMatchObject({ content: [{ type: 'text', text: 'cached silver: 24' }] });
    expect(probe.priceRuns).toBe(0);
    expect(textOf(await acme.callTool('price', { sku: 'bronze' }))).toBe('computed bronze');
    expect(probe.priceRuns).toBe(1);
  });

  it('hands the handler the params a middleware rewrote', async () => {
    const result = await acme.callTool('shout', { word: 'hello' });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('heard HELLO');
  });

  it("rewrites list results for the caller's tenant (tools/list and prompts/list)", async () => {
    expect(await acme.listTools()).toEqual([...SHARED_TOOLS, 'acme_invoices']);
    expect(await globex.listTools()).toEqual([...SHARED_TOOLS, 'globex_invoices']);
    expect(await acme.listPrompts()).toEqual(['brittle', 'acme_brief', 'summary']);
    expect(await globex.listPrompts()).toEqual(['brittle', 'globex_brief', 'summary']);
  });

  it("answers a middleware's McpError as a JSON-RPC error with its code and data; the handler does not run", async () => {
    const error = await rpcError(acme.callTool('limited'));
    expect(error.code).toBe(QUOTA_CODE);
    expect(error.message).toMatch(/quota exceeded/);
    expect(error.data).toEqual({ retryAfterSeconds: 30 });
    expect(probe.seen).toEqual(['options tools/call', 'server tools/call', 'class tools/call']);
  });

  it("answers a middleware's plain throw in tools/call as an isError result with its message", async () => {
    const result = await acme.callTool('fragile');
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: 'middleware broke' }]);
    expect(probe.seen).toEqual(['options tools/call', 'server tools/call', 'class tools/call']);
  });

  it("answers a middleware's plain throw in prompts/get with -32603, its message kept from the client", async () => {
    const error = await rpcError(acme.getPrompt('brittle'));
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(/Internal error while handling prompts\/get/);
    expect(error.message).not.toMatch(/middleware broke/);
    expect(probe.seen).toEqual(['options prompts/get', 'server prompts/get', 'class prompts/get']);
  });

  it('passes a value from a middleware to the handler through ctx.state', async () => {
    expect(textOf(await acme.callTool('whoami'))).toBe(`${acme.era}/whoami/user@acme/${acme.name}`);
    expect(textOf(await globex.callTool('whoami'))).toBe(`${globex.era}/whoami/user@globex/${globex.name}`);
  });

  it('wraps an elicitation: once around the whole exchange in 2025-11-25, once per round in 2026-07-28', async () => {
    const before = acme.elicitations;
    const result = await acme.callTool('confirmOrder');
    expect(textOf(result)).toBe('order accept confirm=true');
    expect(acme.elicitations - before).toBe(1);
    // 2025-11-25: one request, the question going out on its stream and the answer coming back
    // within it. 2026-07-28: two requests, the first answered input_required, the retry bringing the answer.
    const rounds = acme.era === 'legacy' ? 1 : 2;
    expect({ middleware: probe.confirmMiddlewareRuns, handler: probe.confirmRuns }).toEqual({ middleware: rounds, handler: rounds });
    expect(probe.seen.filter((s) => s.startsWith('confirm-middleware'))).toEqual(Array(rounds).fill(`confirm-middleware ${acme.era}`));
  });

  it("asks the client even through a middleware that turns every failure into a result (2026-07-28's question is not a failure to catch)", async () => {
    const before = acme.elicitations;
    const result = await acme.callTool('guardedOrder');
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('guarded order accept');
    expect(acme.elicitations - before).toBe(1);
  });
}

/** How a transport's test connects the official clients to an engine it serves. */
export interface Rig {
  /** A 2025-11-25 client on `engine`. */
  legacy(engine: McpEngine): Promise<Peer>;
  /** A 2026-07-28 client on `engine`, declaring `capabilities` besides form elicitation. */
  modern(engine: McpEngine, capabilities?: Record<string, unknown>): Promise<Peer>;
  /** Stops what the rig started (servers, streams). */
  close(): Promise<void>;
}

const quiet = () => ({ logger: pino({ level: 'silent' }) });

/**
 * The extension tests, in both eras: the test extension of pipeline-fixture.ts given through
 * `@Server` (Extended) and through the `extensions` option (Bare, offered only once a tool named
 * `unlock` exists), served to the official clients the rig connects.
 */
export function extensionSuite(rig: Rig): void {
  let engine: McpEngine;
  let legacy: Peer;
  let modern: Peer;

  beforeAll(async () => {
    engine = createEngine(new Extended(), { ...quiet(), middleware: [record('options')] });
    legacy = await rig.legacy(engine);
    modern = await rig.modern(engine);
  });
  afterAll(async () => {
    await legacy?.close();
    await modern?.close();
    await rig.close();
  });
  beforeEach(() => probe.reset());

  it('ran its setup once, when the server was built', () => {
    expect(decoratedExtension.setups).toBe(1);
  });

  it('is declared under capabilities.experimental to 2025-11-25 sessions, and capabilities.extensions to 2026-07-28 clients', () => {
    expect(legacy.serverCapabilities().experimental).toEqual({ [EXTENSION_ID]: { flavour: 'plain', level: 2 } });
    expect(legacy.serverCapabilities()).not.toHaveProperty('extensions');
    expect(modern.serverCapabilities().extensions).toEqual({ [EXTENSION_ID]: { flavour: 'plain', level: 2 } });
    expect(modern.serverCapabilities()).not.toHaveProperty('experimental');
  });

  it.each(['legacy', 'modern'] as const)('serves its method to a %s client, after the middleware of the options, @Server and then its own', async (era) => {
    const peer = era === 'legacy' ? legacy : modern;
    const result = await peer.request('example/echo', { text: 'ab', times: 3 });
    expect(result).toMatchObject({ echoed: 'ababab', era, fromMiddleware: 'extension saw example/echo' });
    expect(probe.seen).toEqual(['options example/echo', 'server example/echo', 'extension example/echo']);

    // Its middleware is server-wide: it runs around the core's methods too, after the server's.
    probe.reset();
    expect(textOf(await peer.callTool('hello'))).toBe('hello');
    expect(probe.seen.filter((s) => s.endsWith(' tools/call') || s.startsWith('handler '))).toEqual(['options tools/call', 'server tools/call', 'extension tools/call', 'handler hello']);
  });

  it.each(['legacy', 'modern'] as const)('refuses params its class rejects with -32602 (%s), naming the field', async (era) => {
    const peer = era === 'legacy' ? legacy : modern;
    const wrongType = await rpcError(peer.request('example/echo', { text: 5 }));
    expect(wrongType.code).toBe(-32602);
    expect(wrongType.message).toMatch(/Invalid example\/echo params/);
    expect(wrongType.message).toMatch(/text/);
    const tooMany = await rpcError(peer.request('example/echo', { text: 'a', times: 9 }));
    expect(tooMany.code).toBe(-32602);
    expect(tooMany.message).toMatch(/times/);
    const missing = await rpcError(peer.request('example/echo', {}));
    expect(missing.code).toBe(-32602);
    expect(missing.message).toMatch(/text/);
  });

  it('answers a method that needs the client to declare the extension: -32021 to a 2026-07-28 client that does not, served to one that does', async () => {
    const refused = await rpcError(modern.request('example/strict'));
    expect(refused.code).toBe(-32021);
    expect(refused.message).toMatch(/com\.example\/test/);
    expect(refused.data).toEqual({ requiredCapabilities: { extensions: { [EXTENSION_ID]: {} } } });

    const declaring = await rig.modern(engine, { extensions: { [EXTENSION_ID]: {} } });
    try {
      expect(await declaring.request('example/strict')).toMatchObject({ strict: 'served', era: 'modern' });
    } finally {
      await declaring.close();
    }
    // 2025-11-25 has no such declaration: the method is served in a session.
    expect(await legacy.request('example/strict')).toMatchObject({ strict: 'served', era: 'legacy' });
  });

  it("hands a 2025-11-25 client's notification to its handler, with the session; params its class rejects never reach it", async () => {
    const pings = decoratedExtension.pings;
    pings.length = 0;
    await legacy.notify('notifications/example/ping', { note: 42 });
    await legacy.notify('notifications/example/ping', { note: 'hello' });
    // Notifications are handled in order, each checked before its handler: a request after them settles both.
    await legacy.request('example/echo', { text: 'x' });
    await waitUntil(() => pings.length > 0, 'the ping to reach the extension');
    expect(pings).toEqual([{ note: 'hello', sessionId: legacy.sessionId(), subject: undefined }]);
    expect(typeof legacy.sessionId()).toBe('string');
  });

  describe('offered only while its settings function says so', () => {
    let gated: McpEngine;
    const gatedProbe = newExtensionProbe();

    beforeAll(() => {
      gated = createEngine(new Bare(), { ...quiet(), extensions: [testExtension(gatedProbe, (server) => server.registry.tools.has('unlock'))] });
    });

    it('is neither declared nor served while not offered (-32601), and both once it is', async () => {
      const before = [await rig.legacy(gated), await rig.modern(gated)];
      try {
        expect(before[0]!.serverCapabilities()).not.toHaveProperty('experimental');
        expect(before[1]!.serverCapabilities()).not.toHaveProperty('extensions');
        for (const peer of before) {
          const error = await rpcError(peer.request('example/echo', { text: 'a' }));
          expect(error.code).toBe(-32601);
          expect(error.message).toMatch(/example\/echo/);
        }
        // A registry change asks the settings function again: the clients already connected are served now.
        gated.registry.addTool({ name: 'unlock', description: 'Unlocks the extension', handler: () => 'unlocked' });
        for (const peer of before) expect(await peer.request('example/echo', { text: 'a' })).toMatchObject({ echoed: 'a', era: peer.era });
      } finally {
        for (const peer of before) await peer.close();
      }
      // Clients that connect now are told of it.
      const after = [await rig.legacy(gated), await rig.modern(gated)];
      try {
        expect(after[0]!.serverCapabilities().experimental).toEqual({ [EXTENSION_ID]: { flavour: 'gated' } });
        expect(after[1]!.serverCapabilities().extensions).toEqual({ [EXTENSION_ID]: { flavour: 'gated' } });
      } finally {
        for (const peer of after) await peer.close();
      }
      expect(gatedProbe.setups).toBe(1);
    });
  });
}

async function waitUntil(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
