import { randomUUID } from 'node:crypto';
import { ErrorCode, McpError } from '../protocol/errors';
import type { JsonRpcMessage } from '../protocol/jsonrpc';
import type { Meta } from '../protocol/types';
import type { ToolEntry } from '../registry/entry-types';
import { TERMINAL_STATUSES, InvalidTaskCursorError, type Task, type TaskRecord, type TaskStatus, type TaskStore } from '../stores/task-store';
import type { MessageChannel } from '../engine/channel';
import { RequestContext, relatedTask, type TaskHandle } from '../engine/context';
import { invokeTool } from '../engine/invoke-tool';
import { LazyAbort } from '../engine/lazy-abort';
import type { Session } from '../eras/legacy/session';
import { systemClock, type Clock } from '../clock';

export interface TaskOptions {
  /** ttl when the client asks for none (default 1 h). */
  defaultTtlMs?: number;
  /** The longest ttl granted (default 24 h); longer requests are cut to it. */
  maxTtlMs?: number;
  /** The pollInterval suggested to clients (default 1 s). */
  pollIntervalMs?: number;
  /** Where ttl expiry reads the time and runs its sweep (default: the system clock; tests pass a ManualClock). */
  clock?: Clock;
}

/**
 * A task's messages go where the client is listening: a waiting tasks/result's stream, else the
 * session's outlet. When the outlet would only hold them (no GET stream yet), they wait here for
 * the next tasks/result instead, which the spec tells a client to send on input_required.
 */
class TaskChannel implements MessageChannel {
  private waitingTarget?: MessageChannel;
  private held: JsonRpcMessage[] = [];
  constructor(private readonly session: Session) {}
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

interface RunningTask {
  controller: LazyAbort;
  channel: TaskChannel;
  /** Whose cap it counts against (see holderOf). */
  holder: string;
}

/** Who a task's work counts against: the principal when there is one (across its sessions), else the session. */
function holderOf(ctx: RequestContext): string {
  const p = ctx.principal;
  return p ? `principal\u0000${p.claims?.iss ?? ''}\u0000${p.subject}\u0000${p.clientId ?? ''}` : `session\u0000${ctx.session!.id}`;
}

/**
 * Runs task-augmented tool calls in the background and answers the tasks/* methods. The store is
 * the only source of truth: what this process keeps is the work it runs and the waiters it wakes.
 */
export class TaskManager {
  private readonly running = new Map<string, RunningTask>();
  /** Running tasks per holder, for maxTasksPerPrincipal. */
  private readonly runningPerHolder = new Map<string, number>();
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly stopSweeper: () => void;
  private readonly clock: Clock;
  readonly defaultTtlMs: number;
  readonly maxTtlMs: number;
  readonly pollIntervalMs: number;

  constructor(
    readonly store: TaskStore,
    options: TaskOptions = {},
    /** Tasks one principal (or session, without auth) may have running at once. */
    readonly maxRunningPerHolder = 100,
  ) {
    this.defaultTtlMs = options.defaultTtlMs ?? 3_600_000;
    this.maxTtlMs = options.maxTtlMs ?? 86_400_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.clock = options.clock ?? systemClock;
    this.stopSweeper = this.clock.every(Math.min(1000, this.defaultTtlMs), () => void this.purgeExpired().catch(() => undefined));
  }

  /** Accepts a task-augmented tools/call: records the task, starts the work, answers at once. */
  async start(entry: ToolEntry, args: Record<string, unknown>, ctx: RequestContext, requested: Record<string, unknown>): Promise<{ task: Task }> {
    const asked = requested.ttl;
    if (asked !== undefined && (typeof asked !== 'number' || !Number.isInteger(asked) || asked < 0)) {
      throw McpError.invalidParams('tools/call: "task.ttl" must be a non-negative integer (milliseconds)');
    }
    const ttl = Math.min(asked ?? this.defaultTtlMs, this.maxTtlMs);
    const holder = holderOf(ctx);
    const held = this.runningPerHolder.get(holder) ?? 0;
    if (held >= this.maxRunningPerHolder) {
      throw McpError.limitExceeded(
        `Too many tasks: ${held} of this caller's tasks are still running (maxTasksPerPrincipal is ${this.maxRunningPerHolder}); wait for some to finish or cancel them`,
        'maxTasksPerPrincipal',
        this.maxRunningPerHolder,
      );
    }
    const now = this.clock.now();
    const at = new Date(now).toISOString();
    const record: TaskRecord = {
      taskId: randomUUID(),
      owner: ctx.session!.id,
      status: 'working',
      createdAt: at,
      lastUpdatedAt: at,
      ttl,
      pollInterval: this.pollIntervalMs,
      expiresAt: now + ttl,
    };
    await this.store.create(record);

    const session = ctx.session!;
    const controller = new LazyAbort();
    const channel = new TaskChannel(session);
    this.running.set(record.taskId, { controller, channel, holder });
    this.runningPerHolder.set(holder, held + 1);
    const handle: TaskHandle = {
      id: record.taskId,
      inputRequired: (waiting) => void this.transition(record.taskId, waiting ? 'input_required' : 'working', session),
    };
    // The work gets a context of its own: the request's id and _meta (so its progressToken goes on), the task's signal and channel.
    const taskCtx = new RequestContext(session, ctx.env, ctx.requestId, ctx.method, ctx.meta, controller, channel, handle);
    session.logger.info({ taskId: record.taskId, tool: entry.definition.name }, 'task started');
    void this.run(record.taskId, entry, args, taskCtx);
    return { task: publicView(record) };
  }

  private async run(taskId: string, entry: ToolEntry, args: Record<string, unknown>, ctx: RequestContext): Promise<void> {
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
      this.forgetRunning(taskId);
    }
    // A cancelled task stays cancelled, whatever the work did after.
    await this.transition(taskId, status, ctx.session!, { statusMessage, outcome });
  }

  /** Moves a task to `status` (never out of a terminal one), tells the client, wakes waiters. */
  private async transition(taskId: string, status: TaskStatus, session: Session, extra: Partial<TaskRecord> = {}): Promise<TaskRecord | undefined> {
    const current = await this.store.get(taskId);
    if (!current || TERMINAL_STATUSES.has(current.status) || (current.status === status && !extra.outcome)) return current;
    const updated = await this.store.update(taskId, { ...extra, status, lastUpdatedAt: new Date(this.clock.now()).toISOString() });
    if (!updated) return undefined;
    session.logger.debug({ taskId, status }, 'task status');
    if (session.state !== 'closed') session.notify('notifications/tasks/status', publicView(updated) as unknown as Record<string, unknown>);
    this.wake(taskId);
    return updated;
  }

  /** tasks/get */
  async get(taskId: string, session: Session): Promise<Task> {
    return publicView(await this.owned(taskId, session));
  }

  /** tasks/result: waits for a terminal status, then returns what the tool call itself would have. */
  async result(taskId: string, ctx: RequestContext): Promise<Record<string, unknown>> {
    let record = await this.owned(taskId, ctx.session!);
    const running = this.running.get(taskId);
    // While this request waits, the task's messages (elicitation, progress) ride its stream.
    if (running) running.channel.target = ctx.channel;
    try {
      while (!TERMINAL_STATUSES.has(record.status)) {
        await this.changeOrPoll(taskId, ctx.signal);
        record = await this.owned(taskId, ctx.session!);
      }
    } finally {
      if (running && running.channel.target === ctx.channel) running.channel.target = undefined;
    }
    const outcome = record.outcome;
    if (!outcome) throw McpError.invalidParams(`Task ${taskId} was cancelled before it produced a result`);
    if ('error' in outcome) throw new McpError(outcome.error.code, outcome.error.message, outcome.error.data);
    const meta: Meta = { ...(outcome.result._meta as Meta | undefined), ...relatedTask(taskId) };
    return { ...outcome.result, _meta: meta };
  }

  /** tasks/list: the caller's own tasks only. */
  async list(session: Session, cursor: string | undefined, pageSize: number): Promise<{ tasks: Task[]; nextCursor?: string }> {
    let page;
    try {
      page = await this.store.list(session.id, cursor, pageSize);
    } catch (err) {
      if (err instanceof InvalidTaskCursorError) throw McpError.invalidParams(err.message);
      throw err;
    }
    const out: { tasks: Task[]; nextCursor?: string } = { tasks: page.tasks.map(publicView) };
    if (page.nextCursor) out.nextCursor = page.nextCursor;
    return out;
  }

  /** tasks/cancel: a terminal task cannot be cancelled (-32602); otherwise it is cancelled before we answer. */
  async cancel(taskId: string, session: Session): Promise<Task> {
    const record = await this.owned(taskId, session);
    if (TERMINAL_STATUSES.has(record.status)) {
      throw McpError.invalidParams(`Task ${taskId} is already ${record.status} and cannot be cancelled`);
    }
    const updated = await this.transition(taskId, 'cancelled', session, { statusMessage: 'The task was cancelled by request.' });
    this.running.get(taskId)?.controller.abort(new McpError(ErrorCode.InvalidRequest, 'Task cancelled'));
    session.logger.info({ taskId }, 'task cancelled');
    return publicView(updated ?? record);
  }

  /** Forgets a closed session's tasks and stops their work. */
  async dropOwner(session: Session): Promise<void> {
    const ids = await this.store.deleteOwner(session.id);
    for (const id of ids) this.stop(id, 'session closed');
  }

  async purgeExpired(now = this.clock.now()): Promise<number> {
    const ids = await this.store.deleteExpired(now);
    for (const id of ids) this.stop(id, 'task expired');
    return ids.length;
  }

  close(): void {
    this.stopSweeper();
    for (const id of [...this.running.keys()]) this.stop(id, 'server closing');
  }

  private stop(taskId: string, reason: string): void {
    this.running.get(taskId)?.controller.abort(new McpError(ErrorCode.InvalidRequest, `Task stopped: ${reason}`));
    this.forgetRunning(taskId);
    this.wake(taskId);
  }

  private forgetRunning(taskId: string): void {
    const running = this.running.get(taskId);
    if (!running) return;
    this.running.delete(taskId);
    const left = (this.runningPerHolder.get(running.holder) ?? 1) - 1;
    if (left > 0) this.runningPerHolder.set(running.holder, left);
    else this.runningPerHolder.delete(running.holder);
  }

  /** Unknown, expired and other sessions' tasks all read as "not found": nobody learns of others' tasks. */
  private async owned(taskId: unknown, session: Session): Promise<TaskRecord> {
    if (typeof taskId !== 'string') throw McpError.invalidParams('"taskId" must be a string');
    const record = await this.store.get(taskId);
    if (!record || record.owner !== session.id || (record.expiresAt !== undefined && record.expiresAt <= this.clock.now())) {
      throw McpError.invalidParams(`Failed to retrieve task: Task not found (${taskId})`);
    }
    return record;
  }

  /** Resolves on the next local change to the task, or after a poll interval (changes made by other instances). */
  private changeOrPoll(taskId: string, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      let set = this.waiters.get(taskId);
      if (!set) this.waiters.set(taskId, (set = new Set()));
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        set!.delete(done);
        if (set!.size === 0) this.waiters.delete(taskId);
        resolve();
      };
      const onAbort = () => {
        done();
        reject(signal.reason);
      };
      const timer = setTimeout(done, this.pollIntervalMs);
      timer.unref();
      signal.addEventListener('abort', onAbort, { once: true });
      set.add(done);
    });
  }

  private wake(taskId: string): void {
    for (const done of [...(this.waiters.get(taskId) ?? [])]) done();
  }

  /** For metrics and tests. */
  get runningCount(): number {
    return this.running.size;
  }
}

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

