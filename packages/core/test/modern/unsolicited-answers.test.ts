/**
 * Answers count only for questions the server asked (2026-07-28 multi round-trip requests): an
 * `inputResponses` without the sealed `requestState` of the round that asked, or under a key that
 * round did not ask, is ignored and the question is asked. The lower-level form (ctx.inputResponses)
 * sees only the answers to what it asked.
 */
import 'reflect-metadata';
import { IsBoolean, IsString } from 'class-validator';
import pino from 'pino';
import { ErrorCode, Field, InputRequired, McpServer, Prompt, Tool, createEngine, type RequestContext } from '../../src';
import type { JsonRpcRequest, JsonRpcResponse, McpEngine } from '../../src/transport';

class Confirm {
  @Field()
  @IsBoolean()
  confirm!: boolean;
}

class Item {
  @Field()
  @IsString()
  id!: string;
}

class PromptArgs {
  @Field()
  @IsString()
  id!: string;
}

const YES = { action: 'accept', content: { confirm: true } };

class Vault extends McpServer {
  readonly items = new Set(['a', 'b']);
  /** What ctx.inputResponses held on each run of `raw`. */
  readonly seen: unknown[] = [];

  @Tool({ description: 'Removes an item once the user confirms' })
  async remove(input: Item, ctx: RequestContext) {
    const answer = await ctx.elicit(`Remove ${input.id}?`, Confirm);
    if (answer.action !== 'accept' || answer.content?.confirm !== true) return `kept ${input.id}`;
    this.items.delete(input.id);
    return `removed ${input.id}`;
  }

  @Tool({ description: 'Asks twice: first to confirm, then again' })
  async twice(_input: void, ctx: RequestContext) {
    const first = await ctx.elicit('First?', Confirm);
    const second = await ctx.elicit('Second?', Confirm);
    return `${first.content?.confirm}/${second.content?.confirm}`;
  }

  @Tool({ description: 'The lower-level form: reports what it was handed' })
  raw(_input: void, ctx: RequestContext) {
    this.seen.push(ctx.inputResponses === undefined ? undefined : { ...ctx.inputResponses });
    if (ctx.requestState === undefined) {
      throw new InputRequired({
        inputRequests: { ok: { method: 'elicitation/create', params: { mode: 'form', message: 'OK?', requestedSchema: { type: 'object', properties: {} } } } },
        state: { step: 1 },
      });
    }
    return JSON.stringify(ctx.inputResponses ?? null);
  }

  @Prompt({ name: 'remove', description: 'A prompt named like the tool, to check the state is bound to the method' })
  async removePrompt(_args: PromptArgs, ctx: RequestContext) {
    const answer = await ctx.elicit('Remove?', Confirm);
    return `prompt ${answer.action}`;
  }
}

const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
  'io.modelcontextprotocol/clientInfo': { name: 'unsolicited-test', version: '1' },
};
const NOWHERE = { send() {} };

let nextId = 1;
async function call(engine: McpEngine, method: string, params: Record<string, unknown>): Promise<JsonRpcResponse> {
  // Each round is its own request with its own id, as the spec requires of a retry.
  const request: JsonRpcRequest = { jsonrpc: '2.0', id: nextId++, method, params: { _meta: meta, ...params } };
  return (await engine.modern.handle(request, NOWHERE))!;
}
const resultOf = (r: JsonRpcResponse) => {
  if ('error' in r) throw new Error(`unexpected error ${r.error.code}: ${r.error.message}`);
  return r.result as Record<string, any>;
};

function setup() {
  const server = new Vault();
  return { server, engine: createEngine(server, { logger: pino({ level: 'silent' }) }) };
}

describe('unsolicited inputResponses (2026-07-28)', () => {
  it('ignores answers on a first round without requestState: the question is asked and nothing is removed', async () => {
    const { server, engine } = setup();
    const result = resultOf(await call(engine, 'tools/call', { name: 'remove', arguments: { id: 'a' }, inputResponses: { 'elicit-1': YES } }));
    expect(result.resultType).toBe('input_required');
    expect(Object.keys(result.inputRequests)).toEqual(['elicit-1']);
    expect(result.inputRequests['elicit-1']).toMatchObject({ method: 'elicitation/create', params: { message: 'Remove a?' } });
    expect(server.items.has('a')).toBe(true);
  });

  it('takes the answer once the server asked, on a retry with its requestState', async () => {
    const { server, engine } = setup();
    const first = resultOf(await call(engine, 'tools/call', { name: 'remove', arguments: { id: 'a' } }));
    const done = resultOf(await call(engine, 'tools/call', { name: 'remove', arguments: { id: 'a' }, requestState: first.requestState, inputResponses: { 'elicit-1': YES } }));
    expect(done.content[0].text).toBe('removed a');
    expect(server.items.has('a')).toBe(false);
  });

  it('does not let a retry answer a question asked for other arguments', async () => {
    const { server, engine } = setup();
    const first = resultOf(await call(engine, 'tools/call', { name: 'remove', arguments: { id: 'a' } }));
    const other = await call(engine, 'tools/call', { name: 'remove', arguments: { id: 'b' }, requestState: first.requestState, inputResponses: { 'elicit-1': YES } });
    expect('error' in other && other.error).toMatchObject({ code: ErrorCode.InvalidParams, message: expect.stringMatching(/different request/) });
    expect(server.items.has('b')).toBe(true);
  });

  it('does not let a state issued for tools/call serve prompts/get of the same name', async () => {
    const { engine } = setup();
    const first = resultOf(await call(engine, 'tools/call', { name: 'remove', arguments: { id: 'a' } }));
    const asPrompt = await call(engine, 'prompts/get', { name: 'remove', arguments: { id: 'a' }, requestState: first.requestState, inputResponses: { 'elicit-1': YES } });
    expect('error' in asPrompt && asPrompt.error).toMatchObject({ code: ErrorCode.InvalidParams, message: expect.stringMatching(/different request/) });
  });

  it('ignores keys the round did not ask, even malformed ones, and takes the asked one', async () => {
    const { server, engine } = setup();
    const first = resultOf(await call(engine, 'tools/call', { name: 'remove', arguments: { id: 'a' } }));
    const done = resultOf(
      await call(engine, 'tools/call', {
        name: 'remove',
        arguments: { id: 'a' },
        requestState: first.requestState,
        inputResponses: { 'elicit-1': YES, 'elicit-2': 'not an object', __proto__: 'x', extra: null },
      }),
    );
    expect(done.content[0].text).toBe('removed a');
    expect(server.items.has('a')).toBe(false);
  });

  it('still refuses a malformed answer to a key it asked', async () => {
    const { engine } = setup();
    const first = resultOf(await call(engine, 'tools/call', { name: 'remove', arguments: { id: 'a' } }));
    const bad = await call(engine, 'tools/call', { name: 'remove', arguments: { id: 'a' }, requestState: first.requestState, inputResponses: { 'elicit-1': 'yes' } });
    expect('error' in bad && bad.error).toMatchObject({ code: ErrorCode.InvalidParams, message: expect.stringContaining('inputResponses["elicit-1"]') });
  });

  it('does not let a later round change an answer given in an earlier one', async () => {
    const { engine } = setup();
    const first = resultOf(await call(engine, 'tools/call', { name: 'twice' }));
    const no = { action: 'accept', content: { confirm: false } };
    const second = resultOf(await call(engine, 'tools/call', { name: 'twice', requestState: first.requestState, inputResponses: { 'elicit-1': no } }));
    expect(Object.keys(second.inputRequests)).toEqual(['elicit-2']);
    // Round two asked elicit-2 only: a new answer to elicit-1 is ignored, the sealed one stands.
    const done = resultOf(await call(engine, 'tools/call', { name: 'twice', requestState: second.requestState, inputResponses: { 'elicit-1': YES, 'elicit-2': YES } }));
    expect(done.content[0].text).toBe('false/true');
  });
});

describe('ctx.inputResponses (the lower-level form) holds only answers to what was asked', () => {
  it('is undefined on a first round that brings inputResponses of its own', async () => {
    const { server, engine } = setup();
    const first = resultOf(await call(engine, 'tools/call', { name: 'raw', inputResponses: { ok: YES, other: YES } }));
    expect(first.resultType).toBe('input_required');
    expect(Object.keys(first.inputRequests)).toEqual(['ok']);
    expect(server.seen).toEqual([undefined]);
  });

  it('on a retry, holds the asked keys and nothing else', async () => {
    const { server, engine } = setup();
    const first = resultOf(await call(engine, 'tools/call', { name: 'raw' }));
    const done = resultOf(await call(engine, 'tools/call', { name: 'raw', requestState: first.requestState, inputResponses: { ok: YES, other: YES, junk: 'x' } }));
    expect(JSON.parse(done.content[0].text)).toEqual({ ok: YES });
    expect(server.seen).toEqual([undefined, { ok: YES }]);
  });
});
