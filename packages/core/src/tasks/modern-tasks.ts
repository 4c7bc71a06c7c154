/**
 * The tasks extension of protocol 2026-07-28 (`io.modelcontextprotocol/tasks`, SEP-2663), whole:
 * a tools/call from a client that declared the extension may become a task (callAsTask), which
 * the client polls with tasks/get (getDetailed), feeds with tasks/update (update) and stops with
 * tasks/cancel (cancelAsTask). There are no sessions: a task belongs to its principal, or to
 * whoever holds its id. A task's questions to its client wait in this process (TaskInputs) and
 * show in its record, whose writes go one after the other. Only the shared TaskRuntime
 * (task-runtime.ts: records, cap, waiters, cluster) lies outside this file and tasks-extension.ts.
 */
import type { Logger } from 'pino';
import { extendLogger } from '../context/logger-lineage';
import type { Principal } from '../auth/principal';
import { ErrorCode, McpError, UrlElicitationRequiredError } from '../protocol/errors';
import type { JsonRpcErrorObject } from '../protocol/jsonrpc';
import type { CallToolResult } from '../protocol/types';
import type { ToolEntry } from '../registry/entry-types';
import { TERMINAL_STATUSES, type TaskRecord } from '../stores/task-store';
import { ClientCapabilityError } from '../context/client-requests';
import { RequestContext } from '../context/request-context';
import { InputNeeded, InputRequired, type InputRequest } from '../protocol/input-required';
import { MAX_INPUT_ROUNDS, checkInputCapability } from '../context/input-rounds';
import { invokeTool } from '../pipeline/invoke-tool';
import { promised } from '../promised';
import { typeOf } from '../context/params';
import { LazyAbort } from '../context/lazy-abort';
import type { ChildSpan } from '../telemetry/telemetry';
import { TaskCallChannel, TaskCallHost, TaskInputs } from './task-call-host';
import { TASKS_EXTENSION, detailedTaskView, modernTaskView, type DetailedTask } from './tasks-extension';
import { holderOf, principalKey, taskSpanOutcome, type RunningTask, type TaskRuntime } from './task-runtime';

/** A task of the extension's work running here: what it waits on, its log, its store writes. */
class ModernRun implements RunningTask {
  /** The task's store writes, one after the other, so none overtakes another. */
  writes: Promise<unknown> = Promise.resolve();
  constructor(
    readonly controller: LazyAbort,
    readonly holder: string,
    readonly inputs: TaskInputs,
    /** The framework's log, with the task id. */
    readonly logger: Logger,
  ) {}
}

export class ModernTasks {
  /** The capability id clients declare (per request) and the server offers (in server/discover). */
  readonly extension = TASKS_EXTENSION;

  constructor(private readonly runtime: TaskRuntime) {}

  /**
   * tools/call of a tool that can run as a task, from a client that declared the extension. The
   * server decides per call, as the extension lets it: the tool starts as an ordinary request, and
   * a call still running once the turn of the event loop it started in is over becomes a task
   * (CreateTaskResult, `resultType: "task"`), its work going on in the background. So a call that
   * finishes at once is answered at once, and one that asks the client for input before doing
   * anything else gets an InputRequiredResult (multi round-trip requests, resolved before any task
   * exists, as the extension advises); its retry, answered, goes on and becomes the task.
   */
  async callAsTask(entry: ToolEntry, args: Record<string, unknown>, ctx: RequestContext): Promise<Record<string, unknown>> {
    const runtime = this.runtime;
    const holder = holderOf(ctx);
    // The call holds its place under the cap from the start, since it may become a task.
    runtime.reserve(holder);
    const host = new TaskCallHost(ctx.host);
    const channel = new TaskCallChannel(ctx.channel);
    const controller = new LazyAbort();
    const work = new RequestContext(host, ctx.env, ctx.requestId, ctx.method, ctx.meta, controller, channel);
    work.adoptState(ctx);
    work.input = ctx.input;
    // Until it becomes a task, the work is the request's: its span, its questions' parent.
    work.trace = ctx.trace;
    // Until the call is a task, cancelling the request cancels the work; after, only tasks/cancel does.
    const requestSignal = ctx.signal;
    const onRequestAbort = () => controller.abort(requestSignal.reason);
    requestSignal.addEventListener('abort', onRequestAbort, { once: true });
    if (requestSignal.aborted) onRequestAbort();
    const first = promised(() => invokeTool(entry, args, work));
    const settled = await Promise.race([first.then(isSettled, isSettled), nextTurn().then(() => false)]);
    requestSignal.removeEventListener('abort', onRequestAbort);
    if (settled || ctx.aborted) {
      try {
        return (await first) as unknown as Record<string, unknown>;
      } finally {
        work.done = true;
        runtime.release(holder);
      }
    }

    const record = runtime.newRecord(modernOwner(ctx.principal), Math.min(runtime.defaultTtlMs, runtime.maxTtlMs));
    const taskId = record.taskId;
    const logger = extendLogger(host.logger, { taskId });
    const inputs = new TaskInputs(() => void this.publishInputs(taskId).catch((err) => logger.error({ err, taskId }, 'could not record the task input requests')));
    // The running task holds the call's place under the cap from now on (forget gives it back).
    const running = new ModernRun(controller, holder, inputs, logger);
    runtime.track(taskId, running);
    // In the store before the client hears of it: a tasks/get right after must find it.
    const created = this.write(running, () => runtime.store.create(record));
    host.becomeTask(inputs, logger);
    channel.detach();
    try {
      await created;
    } catch (err) {
      runtime.stop(taskId, 'it could not be stored');
      throw err;
    }
    logger.info({ tool: entry.definition.name }, 'task started');
    // The work's own span, a child of the call's: the trace goes on after the call is answered.
    const span = ctx.engine.telemetry.startTask(entry.definition.name, taskId, ctx.traceContext);
    work.trace = span;
    void (span ? span.run(() => this.finish(taskId, first, entry, args, work, span)) : this.finish(taskId, first, entry, args, work));
    return { ...modernTaskView(record), resultType: 'task' };
  }

  /** Waits for the work to end (asking the client what an InputRequired asks, and running the tool again), then records how it ended. */
  private async finish(taskId: string, first: Promise<CallToolResult>, entry: ToolEntry, args: Record<string, unknown>, ctx: RequestContext, span?: ChildSpan): Promise<void> {
    let patch: Partial<TaskRecord>;
    try {
      const result = await this.settleInputRounds(first, entry, args, ctx);
      // A tool's own error (isError) is a completed call: `failed` is for JSON-RPC errors only.
      patch = { status: 'completed', outcome: { result: result as unknown as Record<string, unknown> } };
    } catch (err) {
      const error = taskError(err);
      if (error.code === ErrorCode.InternalError && !(err instanceof McpError) && !ctx.aborted) ctx.host.logger.error({ err, taskId }, 'task failed');
      patch = { status: 'failed', statusMessage: error.message, outcome: { error } };
    } finally {
      ctx.done = true;
    }
    span?.end(...taskSpanOutcome(ctx.aborted ? 'cancelled' : patch.status!, patch.outcome, patch.statusMessage));
    try {
      // A cancelled task stays cancelled, whatever the work did after.
      await this.patch(taskId, (current) => (TERMINAL_STATUSES.has(current.status) ? undefined : { ...patch, inputRequests: undefined }));
    } catch (err) {
      ctx.host.logger.error({ err, taskId }, 'could not record how the task ended');
    } finally {
      this.runtime.forget(taskId);
      this.runtime.wake(taskId);
    }
  }

  /**
   * The lower-level form of input (InputRequired, or a URL elicitation the tool requires) inside a
   * task: the requests become the task's own, and once answered the tool runs again with the
   * answers in `ctx.inputResponses`, as a retry would run it.
   */
  private async settleInputRounds(first: Promise<CallToolResult>, entry: ToolEntry, args: Record<string, unknown>, ctx: RequestContext): Promise<CallToolResult> {
    let attempt = first;
    for (let round = 1; ; round++) {
      try {
        return await attempt;
      } catch (err) {
        const lowerLevel = err instanceof InputRequired;
        const url = err instanceof UrlElicitationRequiredError && !!ctx.clientCapabilities.elicitation?.url;
        if ((!lowerLevel && !url) || ctx.aborted) throw err;
        if (round >= MAX_INPUT_ROUNDS) throw new Error(`tools/call asked the client for input ${MAX_INPUT_ROUNDS} times without completing`, { cause: err });
        let requests: [string, InputRequest][];
        if (err instanceof InputRequired) requests = Object.entries(err.input.inputRequests ?? {});
        else {
          requests = (err as UrlElicitationRequiredError).elicitations.map((e, i) => [
            `url-${i + 1}`,
            // 2026-07-28 has no elicitationId: the key ties the answer to the request.
            { method: 'elicitation/create', params: { mode: 'url', message: e.message, url: e.url } },
          ]);
        }
        for (const [, request] of requests) checkInputCapability(ctx.clientCapabilities, request);
        const answers = await Promise.all(requests.map(([, request]) => ctx.host.ask(request.method, request.params, ctx.channel, { signal: ctx.signal })));
        const responses: Record<string, unknown> = {};
        requests.forEach(([key], i) => (responses[key] = answers[i]));
        ctx.input = { responses, state: err instanceof InputRequired ? err.input.state : undefined };
        attempt = promised(() => invokeTool(entry, args, ctx));
      }
    }
  }

  /** tasks/get of the extension: the task with what its status carries (input requests, result or error). */
  async getDetailed(taskId: unknown, principal: Principal | undefined): Promise<DetailedTask> {
    return detailedTaskView(await this.owned(taskId, principal));
  }

  /**
   * tasks/update: answers to the input requests the task shows. The work waits in this process, so
   * the answers go to it directly; ones for keys not open are ignored. Acknowledged once the task's
   * record shows the answered requests gone, so a tasks/get after the ack does not show them again.
   */
  async update(taskId: unknown, responses: Record<string, unknown>, principal: Principal | undefined): Promise<void> {
    const record = await this.owned(taskId, principal);
    const running = this.runningHere(record.taskId);
    if (running) {
      if (running.inputs.answer(responses) > 0) await this.publishInputs(record.taskId);
      return;
    }
    // Its work runs on another instance sharing the store: the answers go there.
    const runner = this.runtime.remoteRunner(record);
    if (runner !== undefined && !TERMINAL_STATUSES.has(record.status)) {
      await this.runtime.cluster!.toRunner(runner, { type: 'taskInput', taskId: record.taskId, responses });
      return;
    }
    // Known, but its work runs elsewhere (a store shared by several instances): the answers cannot reach it from here.
    if (record.status === 'input_required') {
      throw new McpError(
        ErrorCode.InternalError,
        `Task ${record.taskId} waits for input on another server instance; send tasks/update where the task runs (route on the Mcp-Name header, which carries the task id)`,
      );
    }
  }

  /**
   * tasks/cancel of the extension: an acknowledgement. A task still running is cancelled before
   * the answer and its work aborted (cooperatively: the tool sees its signal); a task already
   * finished stays as it is, and cancelling it again is acknowledged the same way.
   */
  async cancelAsTask(taskId: unknown, principal: Principal | undefined): Promise<void> {
    const record = await this.owned(taskId, principal);
    if (TERMINAL_STATUSES.has(record.status)) return;
    const updated = await this.patch(record.taskId, (current) =>
      TERMINAL_STATUSES.has(current.status) ? undefined : { status: 'cancelled', statusMessage: 'The task was cancelled by request.', inputRequests: undefined },
    );
    const running = this.runningHere(record.taskId);
    this.runtime.stopWork(record);
    if (updated?.status === 'cancelled') running?.logger.info({ taskId: record.taskId }, 'task cancelled');
  }

  /** Answers given to another instance (tasks/update) for this task's work running here. */
  async answerRunning(taskId: string, responses: Record<string, unknown>): Promise<void> {
    const running = this.runningHere(taskId);
    if (running && running.inputs.answer(responses) > 0) await this.publishInputs(taskId);
  }

  private runningHere(taskId: string): ModernRun | undefined {
    const running = this.runtime.runningTask(taskId);
    return running instanceof ModernRun ? running : undefined;
  }

  /** Records what the task waits on now: input_required with its open requests, or working again. */
  private publishInputs(taskId: string): Promise<TaskRecord | undefined> {
    const inputs = this.runningHere(taskId)?.inputs;
    if (!inputs) return Promise.resolve(undefined);
    return this.patch(taskId, (current) => {
      if (TERMINAL_STATUSES.has(current.status)) return undefined;
      const open = inputs.open();
      if (open) return { status: 'input_required', inputRequests: open };
      return current.status === 'input_required' ? { status: 'working', inputRequests: undefined } : undefined;
    });
  }

  /** Reads the task, asks `change` what to write (nothing: undefined), writes it; in turn with the task's other writes. */
  private patch(taskId: string, change: (current: TaskRecord) => Partial<TaskRecord> | undefined): Promise<TaskRecord | undefined> {
    const runtime = this.runtime;
    const apply = async (): Promise<TaskRecord | undefined> => {
      const current = await runtime.store.get(taskId);
      if (!current) return undefined;
      const patch = change(current);
      if (!patch) return current;
      const updated = await runtime.store.update(taskId, { ...patch, lastUpdatedAt: runtime.timestamp() });
      if (updated && patch.status !== undefined && patch.status !== current.status) runtime.changed(taskId);
      return updated;
    };
    const running = this.runningHere(taskId);
    return running ? this.write(running, apply) : apply();
  }

  private write<T>(running: ModernRun, write: () => Promise<T> | T): Promise<T> {
    const next = running.writes.then(write);
    running.writes = next.catch(() => undefined);
    return next;
  }

  /** Unknown, expired, 2025-11-25 and other principals' tasks all read as "not found". */
  private async owned(taskId: unknown, principal: Principal | undefined): Promise<TaskRecord> {
    if (typeof taskId !== 'string') throw McpError.invalidParams(`"taskId" must be a string${taskId === undefined ? ' and is missing' : `, got ${typeOf(taskId)}`}`);
    const record = await this.runtime.store.get(taskId);
    if (!record || record.owner !== modernOwner(principal) || this.runtime.expired(record)) {
      throw McpError.invalidParams(`Failed to retrieve task: Task not found (${taskId})`);
    }
    return this.runtime.unlessRunnerLost(record);
  }
}

/**
 * Who may reach a task of the extension. Modern requests have no session, so with auth a task
 * belongs to its principal and no other principal can see it; without auth it belongs to whoever
 * holds its id, a random UUID (122 random bits) that cannot be guessed or enumerated: the
 * extension lets a server treat task ids as bearer tokens, and it has no tasks/list to leak them.
 * The prefix keeps these apart from 2025-11-25 tasks, which belong to a session id.
 */
function modernOwner(principal: Principal | undefined): string {
  return principal ? `modern\u0000principal\u0000${principalKey(principal)}` : 'modern\u0000anyone-with-the-id';
}

/** Resolves after the current turn of the event loop, once the microtasks it queued have run. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

const isSettled = () => true;

/**
 * How a task of the extension failed: the JSON-RPC error the call itself would have been answered
 * with in 2026-07-28 (a missing client capability is -32021, an unknown resource -32602).
 */
function taskError(err: unknown): JsonRpcErrorObject {
  let error = err;
  if (error instanceof ClientCapabilityError) error = error.toMcpError();
  else if (error instanceof UrlElicitationRequiredError) {
    error = new McpError(ErrorCode.MissingRequiredClientCapability, 'This request needs the user to visit a URL, and the client does not support URL elicitation', {
      requiredCapabilities: { elicitation: { url: {} } },
    });
  } else if (error instanceof InputNeeded) error = new McpError(ErrorCode.InvalidRequest, 'The tool waited on the client for input in a way a task cannot answer');
  if (error instanceof McpError) {
    const code = error.code === ErrorCode.ResourceNotFound ? ErrorCode.InvalidParams : error.code;
    return error.data === undefined ? { code, message: error.message } : { code, message: error.message, data: error.data };
  }
  return { code: ErrorCode.InternalError, message: 'Internal error while running the task' };
}
