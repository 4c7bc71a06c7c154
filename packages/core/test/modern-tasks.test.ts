/**
 * The tasks extension of 2026-07-28 (io.modelcontextprotocol/tasks, SEP-2663), driven through
 * engine.modern.handle: negotiation (server/discover, per-request declaration, -32021 and
 * -32601), when a tools/call becomes a task, tasks/get with the result or error inlined,
 * tasks/update feeding the input a task waits on, tasks/cancel, ownership by principal, the cap
 * on running tasks, and that 2025-11-25 sessions do not see these tasks.
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { connect, memoryLogger, quietOptions, rpcErrorOf } from '@mcpx/testing';
import { Field, InputRequired, McpError, Server, Tool, UrlElicitationRequiredError, createEngine, type Principal, type RequestContext } from '../src';
import { ManualClock } from '../src/exports/stores';
import type { JsonRpcMessage, JsonRpcResponse, McpEngine } from '../src/transport';

const TASKS = 'io.modelcontextprotocol/tasks';
const WITH_TASKS = { extensions: { [TASKS]: {} } };
const WITH_TASKS_AND_ELICITATION = { elicitation: {}, extensions: { [TASKS]: {} } };

class Deferred<T = void> {
  resolve!: (value: T) => void;
  readonly promise = new Promise<T>((resolve) => (this.resolve = resolve));
}

class Job {
  @Field()
  @IsString()
  label!: string;
}

const nameSchema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;
const nameOf = (answer: { content?: object }) => (answer.content as { name?: string } | undefined)?.name;

@Server({ name: 'jobs', version: '1.0.0' })
class Jobs {
  private readonly gates = new Map<string, Deferred>();
  /** Labels of the jobs whose signal fired. */
  readonly aborted: string[] = [];

  /** Lets the job waiting on `label` go on. */
  open(label: string): void {
    this.gate(label).resolve();
  }

  private gate(label: string): Deferred {
    let gate = this.gates.get(label);
    if (!gate) this.gates.set(label, (gate = new Deferred()));
    return gate;
  }

  /** Waits until the test opens `label`, or the call is aborted. */
  private wait(label: string, ctx: RequestContext): Promise<void> {
    return new Promise((resolve, reject) => {
      void this.gate(label).promise.then(resolve);
      ctx.signal.addEventListener(
        'abort',
        () => {
          this.aborted.push(label);
          reject(ctx.signal.reason);
        },
        { once: true },
      );
    });
  }

  @Tool()
  greet() {
    return 'Hello!';
  }

  @Tool({ taskSupport: 'optional' })
  instant(input: Job) {
    return `instant ${input.label}`;
  }

  @Tool({ taskSupport: 'optional' })
  async slow(input: Job, ctx: RequestContext) {
    await this.wait(input.label, ctx);
    return `done ${input.label}`;
  }

  @Tool({ taskSupport: 'required' })
  async required_job(input: Job, ctx: RequestContext) {
    await this.wait(input.label, ctx);
    return `required ${input.label}`;
  }

  @Tool({ taskSupport: 'optional' })
  async tool_error(input: Job, ctx: RequestContext) {
    await this.wait(input.label, ctx);
    throw new Error('the job broke');
  }

  @Tool({ taskSupport: 'optional' })
  async protocol_error(input: Job, ctx: RequestContext) {
    await this.wait(input.label, ctx);
    throw new McpError(-32603, 'The backend is down');
  }

  @Tool({ taskSupport: 'optional' })
  async confirm(input: Job, ctx: RequestContext) {
    await this.wait(input.label, ctx);
    const answer = await ctx.elicit(`Delete ${input.label}?`, nameSchema);
    return `${answer.action}: ${JSON.stringify(answer.content)}`;
  }

  @Tool({ taskSupport: 'optional' })
  async two_questions(input: Job, ctx: RequestContext) {
    await this.wait(input.label, ctx);
    const [first, second] = await Promise.all([ctx.elicit('First?', nameSchema), ctx.elicit('Second?', nameSchema)]);
    return `${nameOf(first)} and ${nameOf(second)}`;
  }

  /** Asks before doing anything (multi round-trip, before any task), then works as a task. */
  @Tool({ taskSupport: 'required' })
  async ask_then_work(input: Job, ctx: RequestContext) {
    const answer = await ctx.elicit('Your name?', nameSchema);
    await this.wait(input.label, ctx);
    return `Hello, ${nameOf(answer)}!`;
  }

  /** The lower-level form: throws InputRequired once running as a task, and runs again with the answers. */
  @Tool({ taskSupport: 'optional' })
  async lower_level(input: Job, ctx: RequestContext) {
    await this.wait(input.label, ctx);
    if (!ctx.inputResponses) {
      throw new InputRequired({
        inputRequests: { sure: { method: 'elicitation/create', params: { mode: 'form', message: 'Sure?', requestedSchema: nameSchema } } },
        state: { step: 2 },
      });
    }
    return `answers ${JSON.stringify(ctx.inputResponses)} state ${JSON.stringify(ctx.requestState)}`;
  }

  /** Needs the user to visit a URL first (the 2025 error), then runs again. */
  @Tool({ taskSupport: 'optional' })
  async sign_in(input: Job, ctx: RequestContext) {
    await this.wait(input.label, ctx);
    if (!ctx.inputResponses) throw new UrlElicitationRequiredError([{ mode: 'url', message: 'Sign in first', url: 'https://example.com/sign-in', elicitationId: 'e-1' }]);
    return `signed in: ${JSON.stringify(ctx.inputResponses)}`;
  }
}

@Server({ name: 'plain', version: '1.0.0' })
class Plain {
  @Tool()
  greet() {
    return 'Hello!';
  }
}

type Result = Record<string, any>;

let nextId = 1;

/** One modern request, answered by the engine. */
async function call(engine: McpEngine, method: string, params: Record<string, unknown> = {}, capabilities: object = WITH_TASKS, principal?: Principal): Promise<JsonRpcResponse> {
  const request = {
    jsonrpc: '2.0' as const,
    id: nextId++,
    method,
    params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': capabilities } },
  };
  const sent: JsonRpcMessage[] = [];
  const response = await engine.modern.handle(request, { send: (message) => sent.push(message) }, { principal });
  if (!response) throw new Error(`${method} got no response`);
  return response;
}

async function resultOf(engine: McpEngine, method: string, params: Record<string, unknown> = {}, capabilities: object = WITH_TASKS, principal?: Principal): Promise<Result> {
  const response = await call(engine, method, params, capabilities, principal);
  if ('error' in response) throw new Error(`${method} failed: ${JSON.stringify(response.error)}`);
  return response.result as Result;
}

async function errorOf(engine: McpEngine, method: string, params: Record<string, unknown> = {}, capabilities: object = WITH_TASKS, principal?: Principal) {
  const response = await call(engine, method, params, capabilities, principal);
  if (!('error' in response)) throw new Error(`${method} succeeded: ${JSON.stringify(response.result)}`);
  return response.error;
}

/** Polls tasks/get until the task's status is `status` (a bound on waiting, not a speed). */
async function pollUntil(engine: McpEngine, taskId: string, status: string, capabilities: object = WITH_TASKS, principal?: Principal): Promise<Result> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const task = await resultOf(engine, 'tasks/get', { taskId }, capabilities, principal);
    if (task.status === status) return task;
    if (Date.now() > deadline) throw new Error(`task ${taskId} is still ${task.status}, not ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Waits (a bound, not a speed) until `predicate` holds. */
async function until(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

const ENVELOPE = ['taskId', 'status', 'result', 'error', 'inputRequests', 'ttlMs', 'requestState'];
const textOf = (result: Result) => (result.content as { text: string }[]).map((c) => c.text).join('\n');

let jobs: Jobs;
let engine: McpEngine;

beforeEach(() => {
  jobs = new Jobs();
  engine = createEngine(jobs, quietOptions());
});

afterEach(() => engine.close());

describe('negotiation', () => {
  it('server/discover offers the extension when a tool can run as a task, and no 2025 tasks capability', async () => {
    const discovered = await resultOf(engine, 'server/discover');
    expect(discovered.capabilities.extensions).toEqual({ [TASKS]: {} });
    expect(discovered.capabilities.tasks).toBeUndefined();

    const plain = createEngine(new Plain(), quietOptions());
    try {
      expect((await resultOf(plain, 'server/discover')).capabilities.extensions).toBeUndefined();
      // Where it is not offered, its methods do not exist.
      expect((await errorOf(plain, 'tasks/get', { taskId: 'x' })).code).toBe(-32601);
    } finally {
      plain.close();
    }
  });

  it('a client that does not declare it gets plain results, and -32021 where only a task will do', async () => {
    const instant = await resultOf(engine, 'tools/call', { name: 'instant', arguments: { label: 'a' } }, {});
    expect(instant).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'instant a' }] });

    // An optional task tool runs synchronously, however long it takes.
    const pending = resultOf(engine, 'tools/call', { name: 'slow', arguments: { label: 'sync' } }, {});
    await new Promise((resolve) => setTimeout(resolve, 5));
    jobs.open('sync');
    const slow = await pending;
    expect(slow.resultType).toBe('complete');
    expect(slow.taskId).toBeUndefined();
    expect(textOf(slow)).toBe('done sync');

    const required = await errorOf(engine, 'tools/call', { name: 'required_job', arguments: { label: 'r' } }, {});
    expect(required.code).toBe(-32021);
    expect(required.data).toEqual({ requiredCapabilities: { extensions: { [TASKS]: {} } } });
    expect(required.message).toContain('required_job');

    for (const [method, params] of [
      ['tasks/get', { taskId: 'x' }],
      ['tasks/update', { taskId: 'x', inputResponses: {} }],
      ['tasks/cancel', { taskId: 'x' }],
    ] as const) {
      const error = await errorOf(engine, method, params, {});
      expect(error.code).toBe(-32021);
      expect(error.data).toEqual({ requiredCapabilities: { extensions: { [TASKS]: {} } } });
    }
  });

  it('tasks/result and tasks/list are 2025-11-25 methods: here they do not exist', async () => {
    expect((await errorOf(engine, 'tasks/result', { taskId: 'x' })).code).toBe(-32601);
    expect((await errorOf(engine, 'tasks/list')).code).toBe(-32601);
  });

  it('ignores the 2025 `task` param: a tool without task support is not made a task', async () => {
    const result = await resultOf(engine, 'tools/call', { name: 'greet', arguments: {}, task: { ttl: 60_000 } });
    expect(result).toMatchObject({ resultType: 'complete', content: [{ text: 'Hello!' }] });
    expect(result.taskId).toBeUndefined();
  });
});

describe('tools/call from a client that declares the extension', () => {
  it('answers a call that finishes at once with its result', async () => {
    const result = await resultOf(engine, 'tools/call', { name: 'instant', arguments: { label: 'now' } });
    expect(result).toMatchObject({ resultType: 'complete', content: [{ text: 'instant now' }] });
  });

  it('makes a longer call a task: a flat CreateTaskResult, found by tasks/get at once, with the result inlined when done', async () => {
    const created = await resultOf(engine, 'tools/call', { name: 'slow', arguments: { label: 'one' } });
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 3_600_000, pollIntervalMs: 1000 });
    expect(created.taskId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Date(created.createdAt).toISOString()).toBe(created.createdAt);
    expect(created.lastUpdatedAt).toBe(created.createdAt);
    for (const absent of ['task', 'ttl', 'pollInterval', 'requestState', 'result', 'error', 'inputRequests', 'content']) expect(created).not.toHaveProperty(absent);

    const working = await resultOf(engine, 'tasks/get', { taskId: created.taskId });
    expect(working).toMatchObject({ resultType: 'complete', taskId: created.taskId, status: 'working', ttlMs: 3_600_000, pollIntervalMs: 1000 });
    expect(working).not.toHaveProperty('result');

    jobs.open('one');
    const done = await pollUntil(engine, created.taskId, 'completed');
    expect(done.result).toEqual({ content: [{ type: 'text', text: 'done one' }] });
    expect(done).not.toHaveProperty('error');
    expect(done).not.toHaveProperty('inputRequests');
  });

  it('makes a call of a required task tool a task too', async () => {
    const created = await resultOf(engine, 'tools/call', { name: 'required_job', arguments: { label: 'req' } });
    expect(created.resultType).toBe('task');
    jobs.open('req');
    expect((await pollUntil(engine, created.taskId, 'completed')).result.content[0].text).toBe('required req');
  });

  it('reports a tool error as completed with isError, and a JSON-RPC error as failed with the error inlined', async () => {
    const toolError = await resultOf(engine, 'tools/call', { name: 'tool_error', arguments: { label: 'te' } });
    jobs.open('te');
    const completed = await pollUntil(engine, toolError.taskId, 'completed');
    expect(completed.result).toMatchObject({ isError: true, content: [{ text: 'the job broke' }] });

    const protocolError = await resultOf(engine, 'tools/call', { name: 'protocol_error', arguments: { label: 'pe' } });
    jobs.open('pe');
    const failed = await pollUntil(engine, protocolError.taskId, 'failed');
    expect(failed.error).toEqual({ code: -32603, message: 'The backend is down' });
    expect(failed.statusMessage).toBe('The backend is down');
    expect(failed).not.toHaveProperty('result');
  });
});

describe('input a task waits on', () => {
  it('shows an elicitation as an input request on tasks/get and goes on with the answer tasks/update brings', async () => {
    const created = await resultOf(engine, 'tools/call', { name: 'confirm', arguments: { label: 'file.txt' } }, WITH_TASKS_AND_ELICITATION);
    expect(created.resultType).toBe('task');
    jobs.open('file.txt');
    const waiting = await pollUntil(engine, created.taskId, 'input_required', WITH_TASKS_AND_ELICITATION);
    expect(waiting.inputRequests).toEqual({
      'elicit-1': { method: 'elicitation/create', params: { mode: 'form', message: 'Delete file.txt?', requestedSchema: nameSchema } },
    });
    // Polling again shows the same request again.
    expect((await resultOf(engine, 'tasks/get', { taskId: created.taskId })).inputRequests).toEqual(waiting.inputRequests);

    // Keys that are not open are ignored.
    const ignored = await resultOf(engine, 'tasks/update', { taskId: created.taskId, inputResponses: { 'unknown-key': { ignored: true } } });
    expect(ignored).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    expect((await resultOf(engine, 'tasks/get', { taskId: created.taskId })).status).toBe('input_required');

    const ack = await resultOf(engine, 'tasks/update', { taskId: created.taskId, inputResponses: { 'elicit-1': { action: 'accept', content: { name: 'Luca' } } } });
    expect(ack.resultType).toBe('complete');
    for (const field of ENVELOPE) expect(ack).not.toHaveProperty(field);

    const done = await pollUntil(engine, created.taskId, 'completed');
    expect(done.result.content[0].text).toBe('accept: {"name":"Luca"}');
  });

  it('keeps the task input_required until every open request is answered, showing only those still open', async () => {
    const created = await resultOf(engine, 'tools/call', { name: 'two_questions', arguments: { label: 'two' } }, WITH_TASKS_AND_ELICITATION);
    jobs.open('two');
    let waiting = await pollUntil(engine, created.taskId, 'input_required');
    const deadline = Date.now() + 10_000;
    while (Object.keys(waiting.inputRequests).length < 2 && Date.now() < deadline) waiting = await resultOf(engine, 'tasks/get', { taskId: created.taskId });
    expect(Object.keys(waiting.inputRequests)).toEqual(['elicit-1', 'elicit-2']);

    await resultOf(engine, 'tasks/update', { taskId: created.taskId, inputResponses: { 'elicit-1': { action: 'accept', content: { name: 'Ada' } } } });
    const partly = await resultOf(engine, 'tasks/get', { taskId: created.taskId });
    expect(partly.status).toBe('input_required');
    expect(Object.keys(partly.inputRequests)).toEqual(['elicit-2']);

    // Answering a key twice changes nothing.
    await resultOf(engine, 'tasks/update', { taskId: created.taskId, inputResponses: { 'elicit-1': { action: 'accept', content: { name: 'Again' } } } });
    await resultOf(engine, 'tasks/update', { taskId: created.taskId, inputResponses: { 'elicit-2': { action: 'accept', content: { name: 'Grace' } } } });
    expect((await pollUntil(engine, created.taskId, 'completed')).result.content[0].text).toBe('Ada and Grace');
  });

  it('refuses an answer that is not an object for an open request', async () => {
    const created = await resultOf(engine, 'tools/call', { name: 'confirm', arguments: { label: 'bad' } }, WITH_TASKS_AND_ELICITATION);
    jobs.open('bad');
    await pollUntil(engine, created.taskId, 'input_required');
    const error = await errorOf(engine, 'tasks/update', { taskId: created.taskId, inputResponses: { 'elicit-1': 'yes' } });
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('inputResponses["elicit-1"] must be an object');
    expect((await errorOf(engine, 'tasks/update', { taskId: created.taskId })).message).toContain('"inputResponses" must be an object');
    await resultOf(engine, 'tasks/cancel', { taskId: created.taskId });
  });

  it('resolves input asked before any work by multi round-trip requests, then makes the retry a task', async () => {
    const first = await resultOf(engine, 'tools/call', { name: 'ask_then_work', arguments: { label: 'mrtr' } }, WITH_TASKS_AND_ELICITATION);
    expect(first.resultType).toBe('input_required');
    expect(first).not.toHaveProperty('taskId');
    const [key] = Object.keys(first.inputRequests);

    const retry = await resultOf(
      engine,
      'tools/call',
      { name: 'ask_then_work', arguments: { label: 'mrtr' }, inputResponses: { [key!]: { action: 'accept', content: { name: 'Alice' } } }, requestState: first.requestState },
      WITH_TASKS_AND_ELICITATION,
    );
    expect(retry.resultType).toBe('task');
    expect(retry).not.toHaveProperty('requestState');
    expect(retry).not.toHaveProperty('inputRequests');
    jobs.open('mrtr');
    expect((await pollUntil(engine, retry.taskId, 'completed')).result.content[0].text).toBe('Hello, Alice!');
  });

  it('runs a tool that throws InputRequired inside a task again with the answers and its state', async () => {
    const created = await resultOf(engine, 'tools/call', { name: 'lower_level', arguments: { label: 'low' } }, WITH_TASKS_AND_ELICITATION);
    jobs.open('low');
    const waiting = await pollUntil(engine, created.taskId, 'input_required');
    // The task's own key, not the tool's: task keys are never reused within the task.
    expect(waiting.inputRequests).toEqual({ 'elicit-1': { method: 'elicitation/create', params: { mode: 'form', message: 'Sure?', requestedSchema: nameSchema } } });
    await resultOf(engine, 'tasks/update', { taskId: created.taskId, inputResponses: { 'elicit-1': { action: 'decline' } } });
    const done = await pollUntil(engine, created.taskId, 'completed');
    expect(done.result.content[0].text).toBe('answers {"sure":{"action":"decline"}} state {"step":2}');
  });

  it('asks for a URL visit the tool requires as a task input request, then runs the tool again', async () => {
    const withUrl = { elicitation: { form: {}, url: {} }, extensions: { [TASKS]: {} } };
    const created = await resultOf(engine, 'tools/call', { name: 'sign_in', arguments: { label: 'url' } }, withUrl);
    jobs.open('url');
    const waiting = await pollUntil(engine, created.taskId, 'input_required');
    expect(waiting.inputRequests).toEqual({ 'elicit-1': { method: 'elicitation/create', params: { mode: 'url', message: 'Sign in first', url: 'https://example.com/sign-in' } } });
    await resultOf(engine, 'tasks/update', { taskId: created.taskId, inputResponses: { 'elicit-1': { action: 'accept' } } });
    expect((await pollUntil(engine, created.taskId, 'completed')).result.content[0].text).toBe('signed in: {"url-1":{"action":"accept"}}');

    // A client without URL elicitation cannot be asked: the task fails with -32021 naming it.
    const refused = await resultOf(engine, 'tools/call', { name: 'sign_in', arguments: { label: 'no-url' } }, WITH_TASKS_AND_ELICITATION);
    jobs.open('no-url');
    expect((await pollUntil(engine, refused.taskId, 'failed')).error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: { url: {} } } } });
  });

  it('fails the task with -32021 when the work asks for what the creating request did not declare', async () => {
    const created = await resultOf(engine, 'tools/call', { name: 'confirm', arguments: { label: 'nocap' } }, WITH_TASKS);
    jobs.open('nocap');
    const failed = await pollUntil(engine, created.taskId, 'failed');
    expect(failed.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
  });
});

describe('tasks/cancel', () => {
  it('acknowledges, cancels the task and aborts its work; a finished task is acknowledged the same way', async () => {
    const created = await resultOf(engine, 'tools/call', { name: 'slow', arguments: { label: 'stop' } });
    const ack = await resultOf(engine, 'tasks/cancel', { taskId: created.taskId });
    expect(ack.resultType).toBe('complete');
    for (const field of ENVELOPE) expect(ack).not.toHaveProperty(field);
    const cancelled = await resultOf(engine, 'tasks/get', { taskId: created.taskId });
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled).not.toHaveProperty('result');
    expect(jobs.aborted).toEqual(['stop']);
    await until(() => engine.tasks.runningCount === 0, 'the cancelled work to end');

    // Cancelling again, or a completed task, is acknowledged; the task stays as it was.
    expect((await resultOf(engine, 'tasks/cancel', { taskId: created.taskId })).resultType).toBe('complete');
    const finished = await resultOf(engine, 'tools/call', { name: 'slow', arguments: { label: 'fin' } });
    jobs.open('fin');
    await pollUntil(engine, finished.taskId, 'completed');
    expect((await resultOf(engine, 'tasks/cancel', { taskId: finished.taskId })).resultType).toBe('complete');
    expect((await resultOf(engine, 'tasks/get', { taskId: finished.taskId })).status).toBe('completed');
  });

  it('cancels a task waiting on input: the wait ends with the task', async () => {
    const created = await resultOf(engine, 'tools/call', { name: 'confirm', arguments: { label: 'wait' } }, WITH_TASKS_AND_ELICITATION);
    jobs.open('wait');
    await pollUntil(engine, created.taskId, 'input_required');
    await resultOf(engine, 'tasks/cancel', { taskId: created.taskId });
    const cancelled = await resultOf(engine, 'tasks/get', { taskId: created.taskId });
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled).not.toHaveProperty('inputRequests');
  });

  it('answers -32602 for a task id nobody issued, on every tasks method', async () => {
    for (const [method, params] of [
      ['tasks/get', { taskId: 'no-such-task' }],
      ['tasks/update', { taskId: 'no-such-task', inputResponses: {} }],
      ['tasks/cancel', { taskId: 'no-such-task' }],
    ] as const) {
      const error = await errorOf(engine, method, params);
      expect(error.code).toBe(-32602);
      expect(error.message).toContain('Task not found');
    }
    expect((await errorOf(engine, 'tasks/get', {})).message).toContain('"taskId" must be a string');
  });
});

describe('who may reach a task', () => {
  const alice: Principal = { subject: 'alice', scopes: [], claims: { iss: 'https://issuer' } };
  const bob: Principal = { subject: 'bob', scopes: [], claims: { iss: 'https://issuer' } };

  it('a task made with a principal is that principal’s alone', async () => {
    const created = await resultOf(engine, 'tools/call', { name: 'slow', arguments: { label: 'mine' } }, WITH_TASKS, alice);
    expect((await resultOf(engine, 'tasks/get', { taskId: created.taskId }, WITH_TASKS, alice)).status).toBe('working');
    for (const someoneElse of [bob, undefined]) {
      expect((await errorOf(engine, 'tasks/get', { taskId: created.taskId }, WITH_TASKS, someoneElse)).code).toBe(-32602);
      expect((await errorOf(engine, 'tasks/cancel', { taskId: created.taskId }, WITH_TASKS, someoneElse)).code).toBe(-32602);
    }
    await resultOf(engine, 'tasks/cancel', { taskId: created.taskId }, WITH_TASKS, alice);
  });

  it('a 2025-11-25 session does not see a task of the extension', async () => {
    const created = await resultOf(engine, 'tools/call', { name: 'slow', arguments: { label: 'legacy' } });
    const legacy = await connect(engine, quietOptions());
    const error = await rpcErrorOf(legacy.request('tasks/get', { taskId: created.taskId }));
    expect(error.code).toBe(-32602);
    legacy.close();
    await resultOf(engine, 'tasks/cancel', { taskId: created.taskId });
  });

  it('caps the running tasks of one principal (maxTasksPerPrincipal) and frees the place when one ends', async () => {
    const capped = createEngine(new Jobs(), { ...quietOptions(), maxTasksPerPrincipal: 1 });
    try {
      const first = await resultOf(capped, 'tools/call', { name: 'slow', arguments: { label: 'a' } }, WITH_TASKS, alice);
      const refused = await errorOf(capped, 'tools/call', { name: 'slow', arguments: { label: 'b' } }, WITH_TASKS, alice);
      expect(refused.code).toBe(-32004);
      expect(refused.data).toEqual({ limit: 'maxTasksPerPrincipal', max: 1 });
      // Another principal has places of its own.
      const bobs = await resultOf(capped, 'tools/call', { name: 'slow', arguments: { label: 'c' } }, WITH_TASKS, bob);
      await resultOf(capped, 'tasks/cancel', { taskId: first.taskId }, WITH_TASKS, alice);
      // Cancelling is cooperative: the place is free once the work has ended.
      await until(() => capped.tasks.runningCount === 1, "alice's cancelled work to end");
      const again = await resultOf(capped, 'tools/call', { name: 'slow', arguments: { label: 'd' } }, WITH_TASKS, alice);
      expect(again.resultType).toBe('task');
      for (const [id, who] of [
        [again.taskId, alice],
        [bobs.taskId, bob],
      ] as const)
        await resultOf(capped, 'tasks/cancel', { taskId: id }, WITH_TASKS, who);
    } finally {
      capped.close();
    }
  });
});

describe('expiry', () => {
  it('forgets a task once its ttl has passed, and stops its work', async () => {
    const clock = new ManualClock();
    const timed = new Jobs();
    const expiring = createEngine(timed, { ...quietOptions(), tasks: { clock, defaultTtlMs: 60_000 } });
    try {
      const created = await resultOf(expiring, 'tools/call', { name: 'slow', arguments: { label: 'ttl' } });
      expect(created.ttlMs).toBe(60_000);
      clock.advance(59_000);
      expect((await resultOf(expiring, 'tasks/get', { taskId: created.taskId })).status).toBe('working');
      clock.advance(2_000);
      expect((await errorOf(expiring, 'tasks/get', { taskId: created.taskId })).code).toBe(-32602);
      await new Promise((resolve) => setImmediate(resolve));
      expect(timed.aborted).toEqual(['ttl']);
    } finally {
      expiring.close();
    }
  });
});

describe('the request log', () => {
  it('names the task a modern call became, as it does for a 2025 task', async () => {
    const { logger, lines } = memoryLogger('info');
    const logged = createEngine(new Jobs(), { logger });
    const created = await resultOf(logged, 'tools/call', { name: 'slow', arguments: { label: 'logged' } });
    expect(created.resultType).toBe('task');
    const line = lines.find((l) => l.msg === 'mcp request' && l.mcpMethod === 'tools/call');
    expect(line).toMatchObject({ tool: 'slow', taskId: created.taskId, outcome: 'result' });
    await resultOf(logged, 'tasks/cancel', { taskId: created.taskId });
  });
});
