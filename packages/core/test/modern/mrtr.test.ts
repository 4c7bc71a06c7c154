/**
 * Multi round-trip requests (2026-07-28): a handler's ctx.elicit/sample/roots become input
 * requests, the client's retry brings the answers, and the handler runs again until it completes.
 * The requestState that carries earlier answers is sealed and bound to the principal, the request
 * and an expiry. The same handler serves a legacy session through requests on the call's stream.
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import pino from 'pino';
import { connect, quietOptions } from '@mcpx/testing';
import { ErrorCode, Field, InputRequired, McpServer, Prompt, Tool, createEngine, type RequestContext } from '../../src';
import type { JsonRpcRequest, JsonRpcResponse, McpEngine } from '../../src/transport';

class Name {
  @Field()
  @IsString()
  name!: string;
}

class Greeter extends McpServer {
  /** How many times each tool's code before its first question ran: the model is re-run, so it must be safe to repeat. */
  readonly runs: Record<string, number> = {};

  @Tool({ description: 'Asks for a name, then a colour, then a model reply' })
  async greet(_input: void, ctx: RequestContext) {
    this.runs.greet = (this.runs.greet ?? 0) + 1;
    const name = await ctx.elicit('Your name?', Name);
    if (name.action !== 'accept') return `no name (${name.action})`;
    const colour = await ctx.elicit('Favourite colour?', { type: 'object', properties: { colour: { type: 'string' } }, required: ['colour'] });
    const reply = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: `greet ${name.content!.name}` } }], maxTokens: 10 });
    return `${(reply.content as { text: string }).text}, ${name.content!.name} who likes ${(colour.content as { colour: string }).colour}`;
  }

  @Tool({ description: 'Asks two things at once' })
  async both(_input: void, ctx: RequestContext) {
    const [a, b] = await Promise.all([ctx.elicit('a?', Name), ctx.roots()]);
    return `${a.action}:${b.length}`;
  }

  @Tool({ description: 'Holds its own state between rounds (the lower-level form)' })
  counter(_input: void, ctx: RequestContext) {
    const state = ctx.requestState as { step: number } | undefined;
    const answer = ctx.inputResponses?.confirm as { action?: string; content?: { ok?: boolean } } | undefined;
    if (!state) {
      throw new InputRequired({
        inputRequests: {
          confirm: { method: 'elicitation/create', params: { mode: 'form', message: 'Go on?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } } },
        },
        state: { step: 1 },
      });
    }
    return `step ${state.step}, answer ${answer?.action}`;
  }

  @Prompt({ description: 'A prompt that asks for a topic' })
  async topic(_args: void, ctx: RequestContext) {
    const topic = await ctx.elicit('Topic?', { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] });
    return `Write about ${(topic.content as { topic: string }).topic}`;
  }
}

const CAPS = { elicitation: {}, sampling: {}, roots: {} };
const meta = (caps: Record<string, unknown> = CAPS) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': caps,
  'io.modelcontextprotocol/clientInfo': { name: 'mrtr-test', version: '1' },
});
const silent = { logger: pino({ level: 'silent' }) };
const NOWHERE = { send() {} };

let nextId = 1;
async function call(engine: McpEngine, method: string, params: Record<string, unknown>, principal?: { subject: string; scopes: string[] }): Promise<JsonRpcResponse> {
  const request: JsonRpcRequest = { jsonrpc: '2.0', id: nextId++, method, params };
  const response = await engine.modern.handle(request, NOWHERE, { principal: principal as never });
  return response!;
}
const resultOf = (r: JsonRpcResponse) => {
  if ('error' in r) throw new Error(`unexpected error ${r.error.code}: ${r.error.message}`);
  return r.result as Record<string, any>;
};
const errorOf = (r: JsonRpcResponse) => {
  if (!('error' in r)) throw new Error(`expected an error, got ${JSON.stringify(r.result)}`);
  return r.error;
};

describe('MRTR: ctx.elicit/sample/roots under 2026-07-28', () => {
  it('asks one question per round, carries earlier answers in requestState, and completes when all are in', async () => {
    const server = new Greeter();
    const engine = createEngine(server, silent);
    const base = { name: 'greet', arguments: {}, _meta: meta() };

    const first = resultOf(await call(engine, 'tools/call', base));
    expect(first.resultType).toBe('input_required');
    expect(Object.keys(first.inputRequests)).toEqual(['elicit-1']);
    expect(first.inputRequests['elicit-1']).toMatchObject({ method: 'elicitation/create', params: { mode: 'form', message: 'Your name?' } });
    expect(first.inputRequests['elicit-1'].params.requestedSchema.properties.name).toBeDefined();
    expect(typeof first.requestState).toBe('string');
    expect(first.ttlMs).toBeUndefined(); // interim results carry no caching hints

    const second = resultOf(await call(engine, 'tools/call', { ...base, requestState: first.requestState, inputResponses: { 'elicit-1': { action: 'accept', content: { name: 'Ada' } } } }));
    expect(Object.keys(second.inputRequests)).toEqual(['elicit-2']);

    const third = resultOf(
      await call(engine, 'tools/call', { ...base, requestState: second.requestState, inputResponses: { 'elicit-2': { action: 'accept', content: { colour: 'teal' } } } }),
    );
    expect(Object.keys(third.inputRequests)).toEqual(['sample-3']);
    expect(third.inputRequests['sample-3'].method).toBe('sampling/createMessage');

    const done = resultOf(
      await call(engine, 'tools/call', {
        ...base,
        requestState: third.requestState,
        inputResponses: { 'sample-3': { role: 'assistant', content: { type: 'text', text: 'Hello' }, model: 'm' } },
      }),
    );
    expect(done.resultType).toBe('complete');
    expect(done.content[0].text).toBe('Hello, Ada who likes teal');
    expect(done._meta['io.modelcontextprotocol/serverInfo'].name).toBeDefined();
    expect(server.runs.greet).toBe(4);
  });

  it('asks parallel questions in one round', async () => {
    const engine = createEngine(new Greeter(), silent);
    const first = resultOf(await call(engine, 'tools/call', { name: 'both', _meta: meta() }));
    expect(Object.keys(first.inputRequests).sort()).toEqual(['elicit-1', 'roots-2']);
    const done = resultOf(
      await call(engine, 'tools/call', {
        name: 'both',
        _meta: meta(),
        requestState: first.requestState,
        inputResponses: { 'elicit-1': { action: 'decline' }, 'roots-2': { roots: [{ uri: 'file:///a' }, { uri: 'file:///b' }] } },
      }),
    );
    expect(done.content[0].text).toBe('decline:2');
  });

  it('asks again for an answer the retry left out, and ignores answers to keys it did not ask', async () => {
    const engine = createEngine(new Greeter(), silent);
    const first = resultOf(await call(engine, 'tools/call', { name: 'greet', _meta: meta() }));
    const again = resultOf(
      await call(engine, 'tools/call', { name: 'greet', _meta: meta(), requestState: first.requestState, inputResponses: { 'elicit-9': { action: 'accept', content: { name: 'x' } } } }),
    );
    expect(again.resultType).toBe('input_required');
    expect(Object.keys(again.inputRequests)).toEqual(['elicit-1']);
  });

  it('carries only the answers the handler used into the next state: junk keys are dropped, so the state stays small', async () => {
    const engine = createEngine(new Greeter(), silent);
    const junk = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`junk-${i}`, { action: 'accept', content: { name: 'x'.repeat(50) } }]));
    const first = resultOf(await call(engine, 'tools/call', { name: 'greet', _meta: meta() }));
    const round = resultOf(
      await call(engine, 'tools/call', {
        name: 'greet',
        _meta: meta(),
        requestState: first.requestState,
        inputResponses: { ...junk, 'elicit-1': { action: 'accept', content: { name: 'Ada' } } },
      }),
    );
    expect(Object.keys(round.inputRequests)).toEqual(['elicit-2']);
    expect(round.requestState.length).toBeLessThan(1000);
  });

  it('works for prompts/get too', async () => {
    const engine = createEngine(new Greeter(), silent);
    const first = resultOf(await call(engine, 'prompts/get', { name: 'topic', _meta: meta() }));
    expect(first.inputRequests['elicit-1'].params.message).toBe('Topic?');
    const done = resultOf(
      await call(engine, 'prompts/get', { name: 'topic', _meta: meta(), requestState: first.requestState, inputResponses: { 'elicit-1': { action: 'accept', content: { topic: 'owls' } } } }),
    );
    expect(done.messages[0].content.text).toBe('Write about owls');
  });

  it('never asks what the request did not declare: -32021 naming the capability', async () => {
    const engine = createEngine(new Greeter(), silent);
    const error = errorOf(await call(engine, 'tools/call', { name: 'greet', _meta: meta({ sampling: {} }) }));
    expect(error.code).toBe(ErrorCode.MissingRequiredClientCapability);
    expect(error.data).toEqual({ requiredCapabilities: { elicitation: {} } });
  });
});

describe('MRTR: requestState is sealed and bound', () => {
  async function firstRound(engine: McpEngine, principal?: { subject: string; scopes: string[] }) {
    return resultOf(await call(engine, 'tools/call', { name: 'greet', arguments: {}, _meta: meta() }, principal));
  }
  const answer = { 'elicit-1': { action: 'accept', content: { name: 'Eve' } } };

  it('refuses an altered state with -32602', async () => {
    const engine = createEngine(new Greeter(), silent);
    const { requestState } = await firstRound(engine);
    const bytes = Buffer.from(requestState, 'base64url');
    bytes[bytes.length - 1] ^= 1;
    const error = errorOf(await call(engine, 'tools/call', { name: 'greet', _meta: meta(), requestState: bytes.toString('base64url'), inputResponses: answer }));
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toMatch(/requestState failed verification/);
  });

  it('refuses a state made by another server key, and accepts one from an instance sharing the key', async () => {
    const a = createEngine(new Greeter(), { ...silent, requestStateKey: 'shared secret' });
    const b = createEngine(new Greeter(), { ...silent, requestStateKey: 'shared secret' });
    const other = createEngine(new Greeter(), { ...silent, requestStateKey: 'another secret' });
    const { requestState } = await firstRound(a);
    const onB = resultOf(await call(b, 'tools/call', { name: 'greet', arguments: {}, _meta: meta(), requestState, inputResponses: answer }));
    expect(onB.inputRequests['elicit-2']).toBeDefined();
    const onOther = errorOf(await call(other, 'tools/call', { name: 'greet', arguments: {}, _meta: meta(), requestState, inputResponses: answer }));
    expect(onOther.message).toMatch(/not issued by this server/);
  });

  it('refuses a state presented by another principal, or for another request', async () => {
    const engine = createEngine(new Greeter(), silent);
    const alice = { subject: 'alice', scopes: [] };
    const { requestState } = await firstRound(engine, alice);
    const byBob = errorOf(await call(engine, 'tools/call', { name: 'greet', arguments: {}, _meta: meta(), requestState, inputResponses: answer }, { subject: 'bob', scopes: [] }));
    expect(byBob.message).toMatch(/another principal/);
    const otherTool = errorOf(await call(engine, 'tools/call', { name: 'both', _meta: meta(), requestState, inputResponses: answer }, alice));
    expect(otherTool.message).toMatch(/different request/);
    const otherArgs = errorOf(await call(engine, 'tools/call', { name: 'greet', arguments: { extra: 1 }, _meta: meta(), requestState, inputResponses: answer }, alice));
    expect(otherArgs.message).toMatch(/different request/);
  });

  it('refuses an expired state', async () => {
    const engine = createEngine(new Greeter(), { ...silent, requestStateTtlMs: 60_000 });
    const { requestState } = await firstRound(engine);
    const now = Date.now();
    const spy = jest.spyOn(Date, 'now').mockReturnValue(now + 61_000);
    try {
      const error = errorOf(await call(engine, 'tools/call', { name: 'greet', arguments: {}, _meta: meta(), requestState, inputResponses: answer }));
      expect(error.message).toMatch(/expired/);
    } finally {
      spy.mockRestore();
    }
  });

  it('refuses malformed inputResponses and requestState with -32602', async () => {
    const engine = createEngine(new Greeter(), silent);
    expect(errorOf(await call(engine, 'tools/call', { name: 'greet', _meta: meta(), requestState: 42 })).code).toBe(ErrorCode.InvalidParams);
    expect(errorOf(await call(engine, 'tools/call', { name: 'greet', _meta: meta(), inputResponses: [] })).code).toBe(ErrorCode.InvalidParams);
    // An answer is shape-checked once it answers a question asked (with the round's requestState).
    const { requestState } = resultOf(await call(engine, 'tools/call', { name: 'greet', _meta: meta() }));
    expect(errorOf(await call(engine, 'tools/call', { name: 'greet', _meta: meta(), requestState, inputResponses: { 'elicit-1': 'yes' } })).message).toMatch(/inputResponses\["elicit-1"\]/);
  });
});

describe('InputRequired: the lower-level form, in both eras', () => {
  it('modern: the handler gets its own state and the answers back on the retry', async () => {
    const engine = createEngine(new Greeter(), silent);
    const first = resultOf(await call(engine, 'tools/call', { name: 'counter', _meta: meta() }));
    expect(first.inputRequests.confirm.method).toBe('elicitation/create');
    const done = resultOf(
      await call(engine, 'tools/call', { name: 'counter', _meta: meta(), requestState: first.requestState, inputResponses: { confirm: { action: 'accept', content: { ok: true } } } }),
    );
    expect(done.content[0].text).toBe('step 1, answer accept');
  });

  it('legacy: the server asks the client on the call and runs the handler again', async () => {
    const client = await connect(new Greeter(), { ...quietOptions(), capabilities: { elicitation: {} } });
    client.onRequest('elicitation/create', (params) => {
      expect(params.message).toBe('Go on?');
      return { action: 'accept', content: { ok: true } };
    });
    const result = (await client.callTool('counter', {})) as { content: { text: string }[] };
    expect(result.content[0]!.text).toBe('step 1, answer accept');
    client.close();
  });

  it('legacy: a client without the capability is told, as a tool error', async () => {
    const client = await connect(new Greeter(), { ...quietOptions(), capabilities: {} });
    const result = (await client.callTool('counter', {})) as { isError?: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(/elicitation/);
    client.close();
  });
});
