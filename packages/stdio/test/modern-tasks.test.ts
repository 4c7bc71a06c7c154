/**
 * The tasks extension (io.modelcontextprotocol/tasks, 2026-07-28) over stdio, end to end: a real
 * server process (fixtures/tasks-fixture-server.ts) spoken to line by line. A task is created,
 * polled, fed the input it waits on and cancelled; it outlives a notifications/cancelled of the
 * call that made it; a 2025-11-25 session on the same stream keeps its own tasks API; and the
 * official 2026-07-28 client, which does not declare the extension, gets plain results.
 * Nothing waits for time to pass: each step waits for the message or status it needs.
 */
import { LinePeer, fixtureServer, type Message } from './line-peer';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

/** Spawning compiles the fixture and the packages it imports from source: slow on a busy machine. */
const SPAWN_TIMEOUT_MS = 90_000;
const TASKS = 'io.modelcontextprotocol/tasks';

function meta(capabilities: object): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    'io.modelcontextprotocol/clientInfo': { name: 'tasks-wire-test', version: '1.0.0' },
  };
}
const DECLARING = meta({ elicitation: {}, extensions: { [TASKS]: {} } });

/** The fixture server, with what these tests ask of it. */
class WirePeer extends LinePeer {
  constructor() {
    super('tasks-fixture-server.ts');
  }

  /** A modern request from a client that declares the extension (and form elicitation); its result, or a thrown error. */
  async modern(method: string, params: Record<string, unknown> = {}, _meta: Record<string, unknown> = DECLARING): Promise<Message> {
    const response = await this.request(method, { ...params, _meta });
    if (!response.result) throw new Error(`${method} failed: ${JSON.stringify(response.error)}; stderr: ${this.stderr}`);
    return response.result;
  }

  /** Polls tasks/get until the task has `status`, at the interval the server suggests. */
  async pollUntil(taskId: string, status: string): Promise<Message> {
    for (;;) {
      const task = await this.modern('tasks/get', { taskId });
      if (task.status === status) return task;
      if (['completed', 'failed', 'cancelled'].includes(task.status)) throw new Error(`task ${taskId} ended ${task.status}, not ${status}: ${JSON.stringify(task)}`);
      await new Promise((resolve) => setTimeout(resolve, Math.min(task.pollIntervalMs ?? 10, 10)));
    }
  }
}

const peers: WirePeer[] = [];
afterAll(() => {
  for (const peer of peers.splice(0)) peer.kill();
});

/** One server process for the wire tests (spawning one costs ~0.3 s). */
let shared: WirePeer | undefined;
function peer(): WirePeer {
  if (!shared) peers.push((shared = new WirePeer()));
  return shared;
}

describe('the tasks extension over stdio', () => {
  it(
    'is offered in server/discover',
    async () => {
      const discovered = await peer().modern('server/discover');
      expect(discovered.capabilities.extensions).toEqual({ [TASKS]: {} });
      expect(discovered.capabilities.tasks).toBeUndefined();
    },
    SPAWN_TIMEOUT_MS,
  );

  it(
    'creates a task, polls it to completion with the result inlined, and it outlives a cancel of its call',
    async () => {
      const wire = peer();
      const created = await wire.modern('tools/call', { name: 'slow_compute', arguments: { label: 'one' } }, { ...DECLARING });
      expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: expect.any(Number), pollIntervalMs: expect.any(Number) });
      const createdMessage = wire.received.find((m) => m.result?.taskId === created.taskId)!;
      // notifications/cancelled is not how a task is cancelled: the task goes on.
      wire.send({ method: 'notifications/cancelled', params: { requestId: createdMessage.id, reason: 'changed my mind' } });
      expect((await wire.modern('tasks/get', { taskId: created.taskId })).status).toBe('working');

      await wire.modern('tools/call', { name: 'release', arguments: { label: 'one' } });
      const done = await wire.pollUntil(created.taskId, 'completed');
      expect(done).toMatchObject({ resultType: 'complete', taskId: created.taskId, result: { content: [{ type: 'text', text: 'computed one' }] } });
      expect(done.result._meta?.['io.modelcontextprotocol/related-task']).toBeUndefined();
    },
    SPAWN_TIMEOUT_MS,
  );

  it(
    'surfaces an elicitation as an input request and goes on with the answer from tasks/update',
    async () => {
      const wire = peer();
      const created = await wire.modern('tools/call', { name: 'confirm_delete', arguments: { label: 'report.pdf' } });
      await wire.modern('tools/call', { name: 'release', arguments: { label: 'report.pdf' } });
      const waiting = await wire.pollUntil(created.taskId, 'input_required');
      const [key, request] = Object.entries(waiting.inputRequests as Record<string, Message>)[0]!;
      expect(request).toMatchObject({ method: 'elicitation/create', params: { mode: 'form', message: 'Delete report.pdf?' } });

      expect(await wire.modern('tasks/update', { taskId: created.taskId, inputResponses: { [key]: { action: 'accept', content: { confirm: true } } } })).toEqual({
        resultType: 'complete',
        _meta: expect.any(Object),
      });
      expect((await wire.pollUntil(created.taskId, 'completed')).result.content[0].text).toBe('deleted report.pdf');
    },
    SPAWN_TIMEOUT_MS,
  );

  it(
    'cancels a running task: acknowledged, then cancelled',
    async () => {
      const wire = peer();
      const created = await wire.modern('tools/call', { name: 'slow_compute', arguments: { label: 'never' } });
      expect(await wire.modern('tasks/cancel', { taskId: created.taskId })).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
      expect((await wire.modern('tasks/get', { taskId: created.taskId })).status).toBe('cancelled');
    },
    SPAWN_TIMEOUT_MS,
  );

  it(
    'refuses the task methods to a request that does not declare the extension, and -32601s the 2025 ones',
    async () => {
      const wire = peer();
      const undeclared = meta({});
      const get = await wire.request('tasks/get', { taskId: 'whatever', _meta: undeclared });
      expect(get.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } });
      const required = await wire.request('tools/call', { name: 'confirm_delete', arguments: { label: 'x' }, _meta: undeclared });
      expect(required.error.code).toBe(-32021);
      for (const method of ['tasks/result', 'tasks/list']) expect((await wire.request(method, { taskId: 'x', _meta: DECLARING })).error.code).toBe(-32601);
    },
    SPAWN_TIMEOUT_MS,
  );

  it(
    'leaves a 2025-11-25 session on the same stream its own tasks API',
    async () => {
      const wire = peer();
      const init = await wire.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'legacy', version: '1.0.0' } });
      expect(init.result.capabilities.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
      wire.send({ method: 'notifications/initialized' });

      const created = await wire.request('tools/call', { name: 'slow_compute', arguments: { label: 'legacy' }, task: {} });
      expect(created.result.task).toMatchObject({ status: 'working', ttl: expect.any(Number) });
      const pending = wire.request('tasks/result', { taskId: created.result.task.taskId });
      expect((await wire.request('tools/call', { name: 'release', arguments: { label: 'legacy' } })).result.content[0].text).toBe('released legacy');
      expect((await pending).result.content).toEqual([{ type: 'text', text: 'computed legacy' }]);
      // The session's tasks are not the extension's: a modern tasks/get does not find them.
      expect((await wire.request('tasks/get', { taskId: created.result.task.taskId, _meta: DECLARING })).error.code).toBe(-32602);
    },
    SPAWN_TIMEOUT_MS,
  );
});

describe('the official 2026-07-28 client, which does not declare the extension', () => {
  it(
    'gets plain results from a tool that could run as a task, and -32021 from one that must',
    async () => {
      const transport = new StdioClientTransport({ ...fixtureServer('tasks-fixture-server.ts'), stderr: 'pipe' });
      const client = new Client({ name: 'tasks-sdk-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await client.connect(transport);
      try {
        const slow = client.callTool({ name: 'slow_compute', arguments: { label: 'sdk' } });
        await client.callTool({ name: 'release', arguments: { label: 'sdk' } });
        expect((await slow).content).toEqual([{ type: 'text', text: 'computed sdk' }]);
        await expect(client.callTool({ name: 'confirm_delete', arguments: { label: 'sdk' } })).rejects.toMatchObject({ code: -32021 });
      } finally {
        await client.close();
      }
    },
    SPAWN_TIMEOUT_MS,
  );
});
