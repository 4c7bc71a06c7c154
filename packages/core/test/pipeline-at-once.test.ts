import 'reflect-metadata';
import { IsString } from 'class-validator';
import pino from 'pino';
import { ErrorCode, Field, McpError, McpServer, Server, Tool, createEngine, type Session } from '../src';
import { parseMessage, type JsonRpcMessage, type JsonRpcRequest, type JsonRpcResponse, type McpEngine } from '../src/transport';

class EchoInput {
  @Field() @IsString() text!: string;
}

@Server({ name: 'at-once', version: '1.0.0' })
class AtOnce extends McpServer {
  @Tool()
  echo(input: EchoInput) {
    return input.text;
  }

  @Tool()
  later() {
    return Promise.resolve('later');
  }

  @Tool()
  thenable() {
    return { then: (resolve: (value: string) => void) => resolve('from a thenable') };
  }

  @Tool()
  fails() {
    throw new Error('broken at once');
  }

  @Tool()
  rejects() {
    return Promise.reject(new Error('broken later'));
  }

  @Tool()
  refuses() {
    throw new McpError(ErrorCode.InvalidParams, 'refused at once');
  }
}

async function initializedSession(engine: McpEngine): Promise<Session> {
  const outlet = { send: (_m: JsonRpcMessage) => undefined };
  const session = engine.createSession(outlet);
  const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
  await session.receive(parseMessage(JSON.stringify(init)), outlet);
  await session.receive(parseMessage(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })), outlet);
  return session;
}

let nextId = 1;
/** Admits and runs one tools/call as a transport does; what `run` gave, unawaited. */
function call(engine: McpEngine, session: Session, name: string, args: Record<string, unknown> = {}): JsonRpcResponse | null | Promise<JsonRpcResponse | null> {
  const request: JsonRpcRequest = { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args } };
  const admission = engine.pipeline.admit(session, { request });
  if (admission instanceof Promise) throw new Error('no rate limit applies here');
  return engine.pipeline.run(session, { request }, { open: true, send: () => undefined }, admission);
}

function textOf(response: JsonRpcResponse | null): { text?: string; isError?: boolean } {
  const result = (response as unknown as { result: { content: { text: string }[]; isError?: boolean } }).result;
  return { text: result.content[0]?.text, isError: result.isError };
}

describe('the pipeline, for a handler that answers at once', () => {
  // One request in flight at most: a call that did not give its place back would refuse the next.
  const engine = createEngine(new AtOnce(), { logger: pino({ level: 'silent' }), maxRequestsInFlight: 1 });
  let session: Session;
  beforeAll(async () => {
    session = await initializedSession(engine);
  });

  it('answers a synchronous tool with checked arguments at once, not with a promise', () => {
    for (let i = 0; i < 3; i++) {
      const ran = call(engine, session, 'echo', { text: `hello ${i}` });
      expect(ran).not.toBeInstanceOf(Promise);
      expect(textOf(ran as JsonRpcResponse)).toEqual({ text: `hello ${i}`, isError: undefined });
    }
  });

  it('answers a throw at once, as a tool error or as the protocol error it asked for', () => {
    const failed = call(engine, session, 'fails');
    expect(failed).not.toBeInstanceOf(Promise);
    expect(textOf(failed as JsonRpcResponse)).toEqual({ text: 'broken at once', isError: true });
    const refused = call(engine, session, 'refuses') as JsonRpcResponse;
    expect(refused).not.toBeInstanceOf(Promise);
    expect('error' in refused && refused.error).toEqual({ code: ErrorCode.InvalidParams, message: 'refused at once' });
  });

  it('answers with a promise whatever is not known at once: a promise, a thenable, a rejection, arguments class-validator must judge', async () => {
    const cases: [string, Record<string, unknown>, { text?: string; isError?: boolean }][] = [
      ['later', {}, { text: 'later', isError: undefined }],
      ['thenable', {}, { text: 'from a thenable', isError: undefined }],
      ['rejects', {}, { text: 'broken later', isError: true }],
      ['echo', { text: 42 }, { text: 'Invalid arguments:\n- text: text must be a string', isError: true }],
    ];
    for (const [name, args, expected] of cases) {
      const ran = call(engine, session, name, args);
      expect(ran).toBeInstanceOf(Promise);
      expect(textOf(await ran)).toEqual(expected);
    }
  });

  it('still refuses unknown properties and arguments over the limits at once', () => {
    const extra = call(engine, session, 'echo', { text: 'hi', more: 1 });
    expect(extra).not.toBeInstanceOf(Promise);
    expect(textOf(extra as JsonRpcResponse).isError).toBe(true);
    expect(textOf(extra as JsonRpcResponse).text).toContain('property more should not exist');
  });

  it('gives its in-flight place back however the call ended', async () => {
    // Every call above held the one place; this one is admitted only if all gave it back.
    expect(textOf((await call(engine, session, 'echo', { text: 'still admitted' })) as JsonRpcResponse).text).toBe('still admitted');
  });
});
