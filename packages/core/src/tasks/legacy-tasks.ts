/**
 * Tasks as protocol 2025-11-25 has them: a tools/call augmented with `params.task` is answered at
 * once with a task (start) whose work runs in the background, and the client follows it with
 * tasks/get, tasks/result (which waits for the outcome and carries the task's messages meanwhile),
 * tasks/list and tasks/cancel. Tasks belong to the session that made them and are told of through
 * notifications/tasks/status; a closed session's tasks go with it (dropOwner). The work, its cap,
 * its waiters and the cluster side are the shared TaskRuntime's (task-runtime.ts).
 */
import { ErrorCode, McpError } from '../protocol/errors';
import type { JsonRpcMessage } from '../protocol/jsonrpc';
import type { Meta } from '../protocol/types';
import type { ToolEntry } from '../registry/entry-types';
import { TERMINAL_STATUSES, InvalidTaskCursorError, type Task, type TaskRecord, type TaskStatus } from '../stores/task-store';
import type { MessageChannel } from '../context/channel';
import { RequestContext, relatedTask, type TaskHandle } from '../context/request-context';
import { invokeTool } from '../pipeline/invoke-tool';
import { LazyAbort } from '../context/lazy-abort';
import type { SessionView } from '../context/services';
import type { ChildSpan } from '../telemetry/telemetry';
import { holderOf, taskSpanOutcome, type RunningTask, type TaskRuntime } from './task-runtime';

/**
 * A task's messages go where the client is listening: a waiting tasks/result's stream, else the
 * session's outlet. When the outlet would only hold them (no GET stream yet), they wait here for
 * the next tasks/result instead, which the spec tells a client to send on input_required.
 */
class TaskChannel implements MessageChannel {
  private waitingTarget?: MessageChannel;
  private held: JsonRpcMessage[] = [];
  constructor(private readonly session: SessionView) {}
  get open(): boolean {
    return this.session.state !== 'closed';
  }
  get target(): MessageChannel | undefined {
    return this.waitingTarget;
  }
  set target(channel: MessageChannel | undefined) {
    this.waitingTarget = channel;
    if (!channel || this.held.length === 0) return;
    const held = this.held;
    this.held = [];
    for (const message of held) channel.send(message);
  }
  send(message: JsonRpcMessage): void {
    const target = this.waitingTarget;
    if (target && target.open !== false) return target.send(message);
    const outlet = this.session.outlet;
    if (outlet.deferred && this.held.length < 100) this.held.push(message);
    else if (outlet.open !== false) outlet.send(message);
  }
}

/** A 2025-11-25 task's work running here, with the channel its messages go through. */
class LegacyRun implements RunningTask {
  constructor(
    readonly controller: LazyAbort,
    readonly holder: string,
    readonly channel: TaskChannel,
  ) {}
}

export class LegacyTasks {
  /** Sessions that made a task here. */
  private readonly owners = new WeakSet<SessionView>();

  constructor(private readonly runtime: TaskRuntime) {}

  /** Accepts a task-augmented tools/call: records the task, starts the work, answers at once. */
  async start(entry: ToolEntry, args: Record<string, unknown>, ctx: RequestContext, requested: Record<string, unknown>): Promise<{ task: Task }> {
    const runtime = this.runtime;
    const asked = requested.ttl;
    if (asked !== undefined && (typeof asked !== 'number' || !Number.isInteger(asked) || asked < 0)) {
      throw McpError.invalidParams('tools/call: "task.ttl" must be a non-negative integer (milliseconds)');
    }
    const ttl = Math.min(asked ?? runtime.defaultTtlMs, runtime.maxTtlMs);
    const holder = holderOf(ctx);
    // The place is taken before the store is awaited: two calls at once cannot both pass the cap.
    runtime.reserve(holder);
    const record = runtime.newRecord(ctx.session!.id, ttl);
    this.owners.add(ctx.session!);
    try {
      await runtime.store.create(record);
    } catch (err) {
      runtime.release(holder);
      throw err;
    }

    const session = ctx.session!;
    const controller = new LazyAbort();
    const channel = new TaskChannel(session);
    runtime.track(record.taskId, new LegacyRun(controller, holder, channel));
    const handle: TaskHandle = {
      id: record.taskId,
      inputRequired: (waiting) => void this.transition(record.taskId, waiting ? 'input_required' : 'working', session),
    };
    // The work gets a context of its own: the request's id and _meta (so its progressToken goes on), the task's signal and channel.
    const taskCtx = new RequestContext(session, ctx.env, ctx.requestId, ctx.method, ctx.meta, controller, channel, handle);
    taskCtx.adoptState(ctx);
    // The work's own span, a child of the call's: the trace goes on after the call is answered.
    const span = ctx.engine.telemetry.startTask(entry.definition.name, record.taskId, ctx.traceContext);
    taskCtx.trace = span;
    session.logger.info({ taskId: record.taskId, tool: entry.definition.name }, 'task started');
    void (span ? span.run(() => this.run(record.taskId, entry, args, taskCtx, span)) : this.run(record.taskId, entry, args, taskCtx));
    return { task: publicView(record) };
  }

  private async run(taskId: string, entry: ToolEntry, args: Record<string, unknown>, ctx: RequestContext, span?: ChildSpan): Promise<void> {
    let status: TaskStatus;
    let statusMessage: string | undefined;
    let outcome: TaskRecord['outcome'];
    try {
      const result = await invokeTool(entry, args, ctx);
      outcome = { result: result as unknown as Record<string, unknown> };
      status = result.isError ? 'failed' : 'completed';
      if (result.isError) statusMessage = firstText(result.content) ?? 'The tool reported an error';
    } catch (err) {
      status = 'failed';
      const error =
        err instanceof McpError
          ? { code: err.code, message: err.message, ...(err.data === undefined ? {} : { data: err.data }) }
          : { code: ErrorCode.InternalError, message: 'Internal error while running the task' };
      if (!(err instanceof McpError) && !ctx.aborted) ctx.host.logger.error({ err, taskId }, 'task failed');
      outcome = { error };
      statusMessage = error.message;
    } finally {
      ctx.done = true;
      this.runtime.forget(taskId);
    }
    span?.end(...taskSpanOutcome(ctx.aborted ? 'cancelled' : status, outcome, statusMessage));
    // A cancelled task stays cancelled, whatever the work did after.
    await this.transition(taskId, status, ctx.session!, { statusMessage, outcome });
  }

  /** Moves a task to `status` (never out of a terminal one), tells the client, wakes waiters. */
  private async transition(taskId: string, status: TaskStatus, session: SessionView, extra: Partial<TaskRecord> = {}): Promise<TaskRecord | undefined> {
    const store = this.runtime.store;
    const current = await store.get(taskId);
    if (!current || TERMINAL_STATUSES.has(current.status) || (current.status === status && !extra.outcome)) return current;
    const updated = await store.update(taskId, { ...extra, status, lastUpdatedAt: this.runtime.timestamp() });
    if (!updated) return undefined;
    session.logger.debug({ taskId, status }, 'task status');
    notifyStatus(session, updated);
    this.runtime.changed(taskId);
    return updated;
  }

  /** tasks/get */
  async get(taskId: string, session: SessionView): Promise<Task> {
    return publicView(await this.owned(taskId, session));
  }

  /** tasks/result: waits for a terminal status, then returns what the tool call itself would have. */
  async result(taskId: string, ctx: RequestContext): Promise<Record<string, unknown>> {
    let record = await this.owned(taskId, ctx.session!);
    const running = this.runtime.runningTask(taskId);
    const channel = running instanceof LegacyRun ? running.channel : undefined;
    // While this request waits, the task's messages (elicitation, progress) ride its stream.
    if (channel) channel.target = ctx.channel;
    try {
      while (!TERMINAL_STATUSES.has(record.status)) {
        await this.runtime.changeOrPoll(taskId, ctx.signal);
        record = await this.owned(taskId, ctx.session!);
      }
    } finally {
      if (channel && channel.target === ctx.channel) channel.target = undefined;
    }
    const outcome = record.outcome;
    if (!outcome) throw McpError.invalidParams(`Task ${taskId} was cancelled before it produced a result`);
    if ('error' in outcome) throw new McpError(outcome.error.code, outcome.error.message, outcome.error.data);
    const meta: Meta = { ...(outcome.result._meta as Meta | undefined), ...relatedTask(taskId) };
    return { ...outcome.result, _meta: meta };
  }

  /** tasks/list: the caller's own tasks only. */
  async list(session: SessionView, cursor: string | undefined, pageSize: number): Promise<{ tasks: Task[]; nextCursor?: string }> {
    let page;
    try {
      page = await this.runtime.store.list(session.id, cursor, pageSize);
    } catch (err) {
      if (err instanceof InvalidTaskCursorError) throw McpError.invalidParams(err.message);
      throw err;
    }
    const out: { tasks: Task[]; nextCursor?: string } = { tasks: page.tasks.map(publicView) };
    if (page.nextCursor) out.nextCursor = page.nextCursor;
    return out;
  }

  /** tasks/cancel: a terminal task cannot be cancelled (-32602); otherwise it is cancelled before we answer. */
  async cancel(taskId: string, session: SessionView): Promise<Task> {
    const record = await this.owned(taskId, session);
    if (TERMINAL_STATUSES.has(record.status)) {
      throw McpError.invalidParams(`Task ${taskId} is already ${record.status} and cannot be cancelled`);
    }
    const updated = await this.transition(taskId, 'cancelled', session, { statusMessage: 'The task was cancelled by request.' });
    this.runtime.stopWork(record);
    session.logger.info({ taskId }, 'task cancelled');
    return publicView(updated ?? record);
  }

  /** Forgets a closed session's tasks and stops their work. */
  async dropOwner(session: SessionView): Promise<void> {
    // A stateless session lives for one request on this instance: unless that request made a task,
    // the store (a Redis round trip when shared) has nothing of it to drop.
    if (session.stateless && !this.owners.has(session)) return;
    const ids = await this.runtime.store.deleteOwner(session.id);
    for (const id of ids) this.runtime.stop(id, 'session closed');
  }

  /** Unknown, expired and other sessions' tasks all read as "not found": nobody learns of others' tasks. */
  private async owned(taskId: unknown, session: SessionView): Promise<TaskRecord> {
    if (typeof taskId !== 'string') throw McpError.invalidParams('"taskId" must be a string');
    const record = await this.runtime.store.get(taskId);
    if (!record || record.owner !== session.id || this.runtime.expired(record)) {
      throw McpError.invalidParams(`Failed to retrieve task: Task not found (${taskId})`);
    }
    return this.runtime.unlessRunnerLost(record, (updated) => notifyStatus(session, updated));
  }
}

/** notifications/tasks/status, while the session is open. */
function notifyStatus(session: SessionView, record: TaskRecord): void {
  if (session.state !== 'closed') session.notify('notifications/tasks/status', publicView(record) as unknown as Record<string, unknown>);
}

/** The Task 2025-11-25 shows: what the store keeps, less the owner, runner, outcome and expiry. */
function publicView(record: TaskRecord): Task {
  const task: Task = {
    taskId: record.taskId,
    status: record.status,
    createdAt: record.createdAt,
    lastUpdatedAt: record.lastUpdatedAt,
    ttl: record.ttl,
  };
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  if (record.pollInterval !== undefined) task.pollInterval = record.pollInterval;
  return task;
}

function firstText(content: { type: string; text?: string }[]): string | undefined {
  return content.find((c) => c.type === 'text')?.text;
}
