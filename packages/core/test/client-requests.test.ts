/**
 * The engine side of server-to-client requests (Session.request and the ctx.sample/elicit/roots
 * helpers on top of it), driven in process with @mcpx/testing: id allocation, routing of the
 * client's responses, cancellation when the tool's own request is cancelled, what closing the
 * session does to requests still waiting, the related-task `_meta`, and how a client's error
 * reply or silence reaches the tool.
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { TestClient, connect, memoryLogger, quietOptions, RpcError } from '@mcpx/testing';
import { CancelledError, ClientRequestError, ErrorCode, Field, McpError, McpServer, Tool, createEngine, type RequestContext } from '../src';
import { parseMessage, type JsonRpcMessage } from '../src/transport';

/** Polls every few ms until `predicate` holds; fails with `what` after 10 s (a bound on waiting, not a speed). */
async function until(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

class Deferred<T> {
  resolve!: (value: T) => void;
  readonly promise = new Promise<T>((resolve) => (this.resolve = resolve));
}

/** The server's outgoing requests among `sent`. */
const requestsIn = (sent: JsonRpcMessage[], method?: string) =>
  sent.filter((m): m is JsonRpcMessage & { id: number; method: string; params: Record<string, any> } => 'method' in m && 'id' in m && (!method || m.method === method));

const cancellations = (client: TestClient) => client.notifications.filter((n) => n.method === 'notifications/cancelled').map((n) => n.params);
const reply = (text: string) => ({ role: 'assistant', content: { type: 'text', text }, model: 'm' });
const textOf = (result: { content: { type: string; text?: string }[] }) => result.content.map((c) => c.text).join('\n');

class Prompt {
  @Field()
  @IsString()
  prompt!: string;
}

class Asker extends McpServer {
  /** What ctx.sample() threw, per call, for tools that record it. */
  readonly failures: unknown[] = [];

  @Tool()
  async ask(input: Prompt, ctx: RequestContext) {
    const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: input.prompt } }], maxTokens: 5 });
    return `answer: ${(answer.content as { text: string }).text}`;
  }

  @Tool()
  async ask_twice(_input: void, ctx: RequestContext) {
    const ask = (text: string) => ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens: 5 });
    const [a, b] = await Promise.all([ask('a'), ask('b')]);
    return `a→${(a.content as { text: string }).text} b→${(b.content as { text: string }).text}`;
  }

  @Tool()
  ask_and_record(_input: void, ctx: RequestContext) {
    return this.record(ctx);
  }

  @Tool()
  ask_briefly_and_record(_input: void, ctx: RequestContext) {
    return this.record(ctx, 100);
  }

  private async record(ctx: RequestContext, timeoutMs?: number) {
    try {
      await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'q' } }], maxTokens: 5 }, { timeoutMs });
      return 'answered';
    } catch (err) {
      this.failures.push(err);
      throw err;
    }
  }

  @Tool({ taskSupport: 'optional' })
  async ask_as_task(_input: void, ctx: RequestContext) {
    const answer = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'in a task' } }], maxTokens: 5 });
    return `answer: ${(answer.content as { text: string }).text}`;
  }
}

const SAMPLING = { sampling: {} };

describe('Session.request: ids', () => {
  it('numbers requests 1, 2, 3… per session, distinct while in flight, and routes each answer by its id', async () => {
    const server = new Asker();
    const engine = createEngine(server, quietOptions());
    const first = new TestClient(engine);
    await first.initialize({ capabilities: SAMPLING });
    const sent = first.record();
    // Answer b before a: each answer must still reach the request it names.
    const pending = new Map<string, Deferred<unknown>>();
    first.onRequest('sampling/createMessage', (params) => {
      const text = (params.messages as { content: { text: string } }[])[0]!.content.text;
      const d = new Deferred<unknown>();
      pending.set(text, d);
      return d.promise;
    });
    const twice = first.callTool('ask_twice', {});
    await until(() => pending.size === 2, 'both sampling requests');
    expect(requestsIn(sent, 'sampling/createMessage').map((m) => [m.id, m.params.messages[0].content.text])).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
    const responses = jest.spyOn(first.session, 'handleResponse');
    pending.get('b')!.resolve(reply('B'));
    await until(() => responses.mock.calls.length === 1, "the session to take b's answer");
    expect(responses.mock.calls[0]![0].id).toBe(2);
    pending.get('a')!.resolve(reply('A'));
    expect(textOf(await twice)).toBe('a→A b→B');

    first.onRequest('sampling/createMessage', () => reply('C'));
    expect(textOf(await first.callTool('ask', { prompt: 'c' }))).toBe('answer: C');
    expect(requestsIn(sent).map((m) => m.id)).toEqual([1, 2, 3]);

    // Another session of the same engine counts on its own.
    const second = new TestClient(engine);
    await second.initialize({ capabilities: SAMPLING });
    const sentToSecond = second.record();
    second.onRequest('sampling/createMessage', () => reply('D'));
    expect(textOf(await second.callTool('ask', { prompt: 'd' }))).toBe('answer: D');
    expect(requestsIn(sentToSecond).map((m) => m.id)).toEqual([1]);
    first.close();
    second.close();
  });
});

describe('Session.request: routing the client responses', () => {
  it('ignores a response whose id is unknown, of another type, or already answered', async () => {
    const { logger, lines } = memoryLogger('debug');
    const client = await connect(new Asker(), { logger, capabilities: SAMPLING });
    const sent = client.record();
    const answer = new Deferred<unknown>();
    client.onRequest('sampling/createMessage', () => answer.promise);
    const call = client.callTool('ask', { prompt: 'q' });
    await until(() => requestsIn(sent).length === 1, 'the sampling request');
    const id = requestsIn(sent)[0]!.id;
    expect(id).toBe(1);

    const inject = (message: object) => client.session.receive(parseMessage(JSON.stringify(message)), client.session.outlet);
    await inject({ jsonrpc: '2.0', id: 999, result: reply('stray') });
    await inject({ jsonrpc: '2.0', id: String(id), result: reply('wrong type') }); // "1" is not 1
    await inject({ jsonrpc: '2.0', id: 998, error: { code: -32603, message: 'stray error' } });
    // None of them settled the waiting request, and nothing was sent back for them.
    expect(client.session.requestsInFlight).toBe(1);
    expect(sent).toHaveLength(1);

    answer.resolve(reply('real'));
    expect(textOf(await call)).toBe('answer: real');
    // A second answer to the same id, now settled, changes nothing either.
    await inject({ jsonrpc: '2.0', id, result: reply('late duplicate') });
    const ignored = lines.filter((l) => l.msg === 'response to no pending request; ignored').map((l) => l.id);
    expect(ignored).toEqual([999, String(id), 998, id]);
    client.onRequest('sampling/createMessage', () => reply('next'));
    expect(textOf(await client.callTool('ask', { prompt: 'again' }))).toBe('answer: next');
    client.close();
  });
});

describe('Session.request: cancellation and close', () => {
  it('cancels the pending request (notifications/cancelled) when the client cancels the tools/call', async () => {
    const { logger, lines } = memoryLogger('debug');
    const server = new Asker();
    const client = await connect(server, { logger, capabilities: SAMPLING });
    const sent = client.record();
    const late = new Deferred<unknown>();
    client.onRequest('sampling/createMessage', () => late.promise);
    const controller = new AbortController();
    const call = client.callTool('ask_and_record', {}, { signal: controller.signal });
    await until(() => client.serverRequests.length === 1, 'the sampling request');
    const samplingId = requestsIn(sent)[0]!.id;

    controller.abort('user pressed stop');
    await expect(call).rejects.toThrow('Request aborted by the client');
    await until(() => cancellations(client).length > 0, 'notifications/cancelled');
    expect(cancellations(client)).toEqual([{ requestId: samplingId, reason: 'The server no longer needs this result' }]);
    // The tool's sample() rejected with its signal's reason, unchanged (not a ClientRequestError)...
    await until(() => server.failures.length === 1, 'the tool to see the rejection');
    expect(server.failures[0]).toBeInstanceOf(CancelledError);
    expect(String(server.failures[0])).toMatch(/user pressed stop/);
    // ...and the cancelled tools/call got no response.
    await until(() => client.session.requestsInFlight === 0, 'the tools/call to finish');
    const callId = 2; // initialize was 1
    expect(sent.filter((m) => 'id' in m && m.id === callId && !('method' in m))).toEqual([]);

    // The client answering anyway is ignored.
    late.resolve(reply('too late'));
    await until(() => lines.some((l) => l.msg === 'response to no pending request; ignored' && l.id === samplingId), 'the late answer to be dropped');
    client.close();
  });

  it('closing the session rejects what waits on the client, and sends nothing more', async () => {
    const server = new Asker();
    const client = await connect(server, { ...quietOptions(), capabilities: { ...SAMPLING, roots: {} } });
    const sent = client.record();
    client.onRequest('roots/list', () => new Promise(() => {}));
    client.onRequest('sampling/createMessage', () => new Promise(() => {}));
    const direct = client.session.request('roots/list', {}, client.session.outlet);
    const call = client.callTool('ask_and_record', {});
    call.catch(() => undefined);
    await until(() => client.serverRequests.length === 2, 'both requests to reach the client');
    const before = sent.length;

    let error: unknown;
    direct.then(
      () => (error = 'resolved'),
      (e: unknown) => (error = e),
    );
    client.close();
    await until(() => error !== undefined, 'the waiting request to settle');
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32600, message: expect.stringMatching(/session closed before the client answered/) });
    // The tool's request is rejected too: its signal was aborted by the close.
    await until(() => server.failures.length === 1, "the tool's rejection");
    expect(server.failures[0]).toBeInstanceOf(CancelledError);
    expect(String(server.failures[0])).toMatch(/session closed/);
    await expect(client.session.request('roots/list', {}, client.session.outlet)).rejects.toThrow(/Cannot send roots\/list: the session is closed/);
    // No notifications/cancelled (nor anything else) goes to a closed session.
    await new Promise((r) => setImmediate(r));
    expect(sent.slice(before)).toEqual([]);
  });
});

describe('the client answering with an error, or not at all', () => {
  it('reaches the tool as a ClientRequestError with the client code and data, and the model as a tool error', async () => {
    const server = new Asker();
    const client = await connect(server, { ...quietOptions(), capabilities: SAMPLING });
    client.onRequest('sampling/createMessage', () => {
      throw new RpcError(-1, 'User rejected sampling request', { why: 'busy' });
    });
    const result = await client.callTool('ask_and_record', {});
    expect(result).toEqual({ content: [{ type: 'text', text: 'sampling/createMessage failed with error -1: User rejected sampling request' }], isError: true });
    const failure = server.failures[0] as ClientRequestError;
    expect(failure).toBeInstanceOf(ClientRequestError);
    expect(failure).not.toBeInstanceOf(McpError);
    expect({ method: failure.method, code: failure.code, rpcCode: failure.rpcCode, data: failure.data }).toEqual({
      method: 'sampling/createMessage',
      code: 'MCPX_CLIENT_REQUEST',
      rpcCode: -1,
      data: { why: 'busy' },
    });
    client.close();
  });

  it('a timeout is a tool error naming it, and the client is told to stop', async () => {
    const server = new Asker();
    const client = await connect(server, { ...quietOptions(), capabilities: SAMPLING });
    const sent = client.record();
    client.onRequest('sampling/createMessage', () => new Promise(() => {}));
    const result = await client.callTool('ask_briefly_and_record', {});
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/error -32001: sampling\/createMessage got no answer from the client within 100 ms/);
    expect((server.failures[0] as ClientRequestError).rpcCode).toBe(ErrorCode.RequestTimeout);
    // Sent before the tools/call response, on the same channel.
    expect(cancellations(client)).toEqual([{ requestId: requestsIn(sent)[0]!.id, reason: 'No answer within 100 ms' }]);
    client.close();
  });
});

describe('related-task _meta', () => {
  it('is absent from the requests of a plain tools/call, and names the task when the tool runs as one', async () => {
    const client = await connect(new Asker(), { ...quietOptions(), capabilities: SAMPLING });
    client.onRequest('sampling/createMessage', () => reply('ok'));
    expect(textOf(await client.callTool('ask_as_task', {}))).toBe('answer: ok');
    expect(client.serverRequests).toHaveLength(1);
    expect(client.serverRequests[0]!.params).toEqual({ messages: [{ role: 'user', content: { type: 'text', text: 'in a task' } }], maxTokens: 5 });
    expect('_meta' in client.serverRequests[0]!.params).toBe(false);

    const created = await client.request<{ task: { taskId: string } }>('tools/call', { name: 'ask_as_task', arguments: {}, task: {} });
    await expect(client.request('tasks/result', { taskId: created.task.taskId })).resolves.toMatchObject({ content: [{ text: 'answer: ok' }] });
    expect(client.serverRequests).toHaveLength(2);
    expect(client.serverRequests[1]!.params._meta).toEqual({ 'io.modelcontextprotocol/related-task': { taskId: created.task.taskId } });
    client.close();
  });
});
