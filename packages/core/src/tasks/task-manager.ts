import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Principal } from '../auth/principal';
import { ErrorCode, McpError, UrlElicitationRequiredError } from '../protocol/errors';
import type { JsonRpcErrorObject, JsonRpcMessage } from '../protocol/jsonrpc';
import type { CallToolResult, Meta } from '../protocol/types';
import type { ToolEntry } from '../registry/entry-types';
import { TERMINAL_STATUSES, InvalidTaskCursorError, type Task, type TaskRecord, type TaskStatus, type TaskStore } from '../stores/task-store';
import type { MessageChannel } from '../engine/channel';
import { ClientCapabilityError } from '../engine/client-requests';
import { RequestContext, relatedTask, type TaskHandle } from '../engine/context';
import { InputNeeded, InputRequired, type InputRequest } from '../engine/input-required';
import { MAX_INPUT_ROUNDS, checkInputCapability } from '../engine/input-rounds';
import { invokeTool } from '../engine/invoke-tool';
import { typeOf } from '../engine/params';
import { LazyAbort } from '../engine/lazy-abort';
import type { Session } from '../eras/legacy/session';
import { systemClock, type Clock } from '../clock';
import { TaskCallChannel, TaskCallHost, TaskInputs } from './task-call-host';
import type { ClusterLink } from '../cluster/cluster-link';
import { detailedTaskView, modernTaskView, type DetailedTask } from './tasks-extension';
import type { ChildSpan } from '../telemetry/telemetry';
import { ATTR_MCPX_TASK_STATUS, TOOL_ERROR } from '../telemetry/semconv';

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
  /** Where a 2025-11-25 task's messages go (a task of the extension sends none). */
  channel?: TaskChannel;
  /** Whose cap it counts against (see holderOf). */
  holder: string;
  /** What a task of the extension waits on from its client. */
  inputs?: TaskInputs;
  /** A task of the extension's log (the framework's, with the task id). */
  logger?: Logger;
  /** A task of the extension's store writes, one after the other, so none overtakes another. */
  writes?: Promise<unknown>;
}

/**
 * Who a task's work counts against: the principal when there is one (across its sessions), else
 * the session. A modern request without auth has neither: such callers share one allowance.
 */
function holderOf(ctx: RequestContext): string {
  const p = ctx.principal;
  if (p) return `principal\u0000${principalKey(p)}`;
  return ctx.session ? `session\u0000${ctx.session.id}` : 'anonymous';
}

function principalKey(p: Principal): string {
  return `${p.claims?.iss ?? ''}\u0000${p.subject}\u0000${p.clientId ?? ''}`;
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

/**
 * Runs tool calls as tasks in the background and answers the tasks/* methods, for both eras:
 * 2025-11-25's task-augmented tools/call (tasks belong to the session; tasks/get, result, list,
 * cancel) and 2026-07-28's tasks extension (no sessions; tasks/get, update, cancel). The store is
 * the only source of truth about a task: what this process keeps is the work it runs, the
 * questions that work waits on, and the waiters it wakes.
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
  /** Set when other instances share the store: tasks name their runner, and cancellations and answers reach it. */
  cluster?: ClusterLink;

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

  /** Sessions that made a task here. */
  private readonly owners = new WeakSet<Session>();

  /** Accepts a task-augmented tools/call: records the task, starts the work, answers at once. */
  async start(entry: ToolEntry, args: Record<string, unknown>, ctx: RequestContext, requested: Record<string, unknown>): Promise<{ task: Task }> {
    const asked = requested.ttl;
    if (asked !== undefined && (typeof asked !== 'number' || !Number.isInteger(asked) || asked < 0)) {
      throw McpError.invalidParams('tools/call: "task.ttl" must be a non-negative integer (milliseconds)');
    }
    const ttl = Math.min(asked ?? this.defaultTtlMs, this.maxTtlMs);
    const holder = holderOf(ctx);
    // The place is taken before the store is awaited: two calls at once cannot both pass the cap.
    this.reserve(holder);
    const record = this.newRecord(ctx.session!.id, ttl);
    this.owners.add(ctx.session!);
    try {
      await this.store.create(record);
    } catch (err) {
      this.release(holder);
      throw err;
    }

    const session = ctx.session!;
    const controller = new LazyAbort();
    const channel = new TaskChannel(session);
    this.running.set(record.taskId, { controller, channel, holder });
    const handle: TaskHandle = {
      id: record.taskId,
      inputRequired: (waiting) => void this.transition(record.taskId, waiting ? 'input_required' : 'working', session),
    };
    // The work gets a context of its own: the request's id and _meta (so its progressToken goes on), the task's signal and channel.
    const taskCtx = new RequestContext(session, ctx.env, ctx.requestId, ctx.method, ctx.meta, controller, channel, handle);
    // The work's own span, a child of the call's: the trace goes on after the call is answered.
    const span = ctx.engine.telemetry.startTask(entry.definition.name, record.taskId, ctx.traceContext);
    taskCtx.trace = span;
    session.logger.info({ taskId: record.taskId, tool: entry.definition.name }, 'task started');
    void (span ? span.run(() => this.run(record.taskId, entry, args, taskCtx, span)) : this.run(record.taskId, entry, args, taskCtx));
    return { task: publicView(record) };
  }

  /** A task just started: working, its times now, its id random (a v4 UUID, unguessable). */
  private newRecord(owner: string, ttl: number): TaskRecord {
    const now = this.clock.now();
    const at = new Date(now).toISOString();
    const record: TaskRecord = { taskId: randomUUID(), owner, status: 'working', createdAt: at, lastUpdatedAt: at, ttl, pollInterval: this.pollIntervalMs, expiresAt: now + ttl };
    if (this.cluster) record.runner = this.cluster.instanceId;
    return record;
  }

  private async run(taskId: string, entry: ToolEntry, args: Record<string, unknown>, ctx: RequestContext, span?: ChildSpan): Promise<void> {
    let status: TaskStatus = 'failed';
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
    span?.end(...taskSpanOutcome(ctx.aborted ? 'cancelled' : status, outcome, statusMessage));
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
    this.changed(taskId);
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
    if (running?.channel) running.channel.target = ctx.channel;
    try {
      while (!TERMINAL_STATUSES.has(record.status)) {
        await this.changeOrPoll(taskId, ctx.signal);
        record = await this.owned(taskId, ctx.session!);
      }
    } finally {
      if (running?.channel && running.channel.target === ctx.channel) running.channel.target = undefined;
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
    this.stopWork(record);
    session.logger.info({ taskId }, 'task cancelled');
    return publicView(updated ?? record);
  }

  // The tasks extension (2026-07-28, SEP-2663). Its tasks have no session: they belong to the
  // principal, or to whoever holds the id (modernOwner). A task's store writes go one after the
  // other (modernPatch), and its questions to the client wait in this process (TaskInputs).

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
    const holder = holderOf(ctx);
    // The call holds its place under the cap from the start, since it may become a task.
    this.reserve(holder);
    const host = new TaskCallHost(ctx.host);
    const channel = new TaskCallChannel(ctx.channel);
    const controller = new LazyAbort();
    const work = new RequestContext(host, ctx.env, ctx.requestId, ctx.method, ctx.meta, controller, channel);
    work.input = ctx.input;
    // Until it becomes a task, the work is the request's: its span, its questions' parent.
    work.trace = ctx.trace;
    // Until the call is a task, cancelling the request cancels the work; after, only tasks/cancel does.
    const requestSignal = ctx.signal;
    const onRequestAbort = () => controller.abort(requestSignal.reason);
    requestSignal.addEventListener('abort', onRequestAbort, { once: true });
    if (requestSignal.aborted) onRequestAbort();
    const first = invokeTool(entry, args, work);
    const settled = await Promise.race([first.then(isSettled, isSettled), nextTurn().then(() => false)]);
    requestSignal.removeEventListener('abort', onRequestAbort);
    if (settled || ctx.aborted) {
      try {
        return (await first) as unknown as Record<string, unknown>;
      } finally {
        work.done = true;
        this.release(holder);
      }
    }

    const record = this.newRecord(modernOwner(ctx.principal), Math.min(this.defaultTtlMs, this.maxTtlMs));
    const taskId = record.taskId;
    const logger = host.logger.child({ taskId });
    const inputs = new TaskInputs(() => void this.publishInputs(taskId).catch((err) => logger.error({ err, taskId }, 'could not record the task input requests')));
    // The running task holds the call's place under the cap from now on (forgetRunning gives it back).
    const running: RunningTask = { controller, holder, inputs, logger, writes: Promise.resolve() };
    this.running.set(taskId, running);
    // In the store before the client hears of it: a tasks/get right after must find it.
    const created = this.modernWrite(running, () => this.store.create(record));
    host.becomeTask(inputs, logger);
    channel.detach();
    try {
      await created;
    } catch (err) {
      this.stop(taskId, 'it could not be stored');
      throw err;
    }
    logger.info({ tool: entry.definition.name }, 'task started');
    // The work's own span, a child of the call's: the trace goes on after the call is answered.
    const span = ctx.engine.telemetry.startTask(entry.definition.name, taskId, ctx.traceContext);
    work.trace = span;
    void (span ? span.run(() => this.finishAsTask(taskId, first, entry, args, work, span)) : this.finishAsTask(taskId, first, entry, args, work));
    return { ...modernTaskView(record), resultType: 'task' };
  }

  /** Waits for the work to end (asking the client what an InputRequired asks, and running the tool again), then records how it ended. */
  private async finishAsTask(taskId: string, first: Promise<CallToolResult>, entry: ToolEntry, args: Record<string, unknown>, ctx: RequestContext, span?: ChildSpan): Promise<void> {
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
      await this.modernPatch(taskId, (current) => (TERMINAL_STATUSES.has(current.status) ? undefined : { ...patch, inputRequests: undefined }));
    } catch (err) {
      ctx.host.logger.error({ err, taskId }, 'could not record how the task ended');
    } finally {
      this.forgetRunning(taskId);
      this.wake(taskId);
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
        if (round >= MAX_INPUT_ROUNDS) throw new Error(`tools/call asked the client for input ${MAX_INPUT_ROUNDS} times without completing`);
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
        attempt = invokeTool(entry, args, ctx);
      }
    }
  }

  /** tasks/get of the extension: the task with what its status carries (input requests, result or error). */
  async getDetailed(taskId: unknown, principal: Principal | undefined): Promise<DetailedTask> {
    return detailedTaskView(await this.ownedByModern(taskId, principal));
  }

  /**
   * tasks/update: answers to the input requests the task shows. The work waits in this process, so
   * the answers go to it directly; ones for keys not open are ignored. Acknowledged once the task's
   * record shows the answered requests gone, so a tasks/get after the ack does not show them again.
   */
  async update(taskId: unknown, responses: Record<string, unknown>, principal: Principal | undefined): Promise<void> {
    const record = await this.ownedByModern(taskId, principal);
    const running = this.running.get(record.taskId);
    if (running?.inputs) {
      if (running.inputs.answer(responses) > 0) await this.publishInputs(record.taskId);
      return;
    }
    // Its work runs on another instance sharing the store: the answers go there.
    const runner = this.remoteRunner(record);
    if (runner !== undefined && !TERMINAL_STATUSES.has(record.status)) {
      await this.cluster!.toRunner(runner, { type: 'taskInput', taskId: record.taskId, responses });
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
    const record = await this.ownedByModern(taskId, principal);
    if (TERMINAL_STATUSES.has(record.status)) return;
    const updated = await this.modernPatch(record.taskId, (current) =>
      TERMINAL_STATUSES.has(current.status) ? undefined : { status: 'cancelled', statusMessage: 'The task was cancelled by request.', inputRequests: undefined },
    );
    const running = this.running.get(record.taskId);
    this.stopWork(record);
    if (updated?.status === 'cancelled') running?.logger?.info({ taskId: record.taskId }, 'task cancelled');
  }

  /** Records what the task waits on now: input_required with its open requests, or working again. */
  private publishInputs(taskId: string): Promise<TaskRecord | undefined> {
    const inputs = this.running.get(taskId)?.inputs;
    if (!inputs) return Promise.resolve(undefined);
    return this.modernPatch(taskId, (current) => {
      if (TERMINAL_STATUSES.has(current.status)) return undefined;
      const open = inputs.open();
      if (open) return { status: 'input_required', inputRequests: open };
      return current.status === 'input_required' ? { status: 'working', inputRequests: undefined } : undefined;
    });
  }

  /** Reads the task, asks `change` what to write (nothing: undefined), writes it; in turn with the task's other writes. */
  private modernPatch(taskId: string, change: (current: TaskRecord) => Partial<TaskRecord> | undefined): Promise<TaskRecord | undefined> {
    const apply = async (): Promise<TaskRecord | undefined> => {
      const current = await this.store.get(taskId);
      if (!current) return undefined;
      const patch = change(current);
      if (!patch) return current;
      const updated = await this.store.update(taskId, { ...patch, lastUpdatedAt: new Date(this.clock.now()).toISOString() });
      if (updated && patch.status !== undefined && patch.status !== current.status) this.changed(taskId);
      return updated;
    };
    const running = this.running.get(taskId);
    return running ? this.modernWrite(running, apply) : apply();
  }

  private modernWrite<T>(running: RunningTask, write: () => Promise<T> | T): Promise<T> {
    const next = (running.writes ?? Promise.resolve()).then(write);
    running.writes = next.catch(() => undefined);
    return next;
  }

  /** Unknown, expired, 2025-11-25 and other principals' tasks all read as "not found". */
  private async ownedByModern(taskId: unknown, principal: Principal | undefined): Promise<TaskRecord> {
    if (typeof taskId !== 'string') throw McpError.invalidParams(`"taskId" must be a string${taskId === undefined ? ' and is missing' : `, got ${typeOf(taskId)}`}`);
    const record = await this.store.get(taskId);
    if (!record || record.owner !== modernOwner(principal) || (record.expiresAt !== undefined && record.expiresAt <= this.clock.now())) {
      throw McpError.invalidParams(`Failed to retrieve task: Task not found (${taskId})`);
    }
    return this.unlessRunnerLost(record);
  }

  /** Takes a place under maxTasksPerPrincipal, or refuses with -32004 when the holder has none left. */
  private reserve(holder: string): void {
    const held = this.runningPerHolder.get(holder) ?? 0;
    if (held >= this.maxRunningPerHolder) {
      throw McpError.limitExceeded(
        `Too many tasks: ${held} of this caller's tasks are still running (maxTasksPerPrincipal is ${this.maxRunningPerHolder}); wait for some to finish or cancel them`,
        'maxTasksPerPrincipal',
        this.maxRunningPerHolder,
      );
    }
    this.runningPerHolder.set(holder, held + 1);
  }

  private release(holder: string): void {
    const left = (this.runningPerHolder.get(holder) ?? 1) - 1;
    if (left > 0) this.runningPerHolder.set(holder, left);
    else this.runningPerHolder.delete(holder);
  }

  /** Forgets a closed session's tasks and stops their work. */
  async dropOwner(session: Session): Promise<void> {
    // A stateless session lives for one request on this instance: unless that request made a task,
    // the store (a Redis round trip when shared) has nothing of it to drop.
    if (session.stateless && !this.owners.has(session)) return;
    const ids = await this.store.deleteOwner(session.id);
    for (const id of ids) this.stop(id, 'session closed');
  }

  async purgeExpired(now = this.clock.now()): Promise<number> {
    const ids = await this.store.deleteExpired(now);
    for (const id of ids) this.stop(id, 'task expired');
    return ids.length;
  }

  /** Tasks held, by status, where the store can count them (the `mcpx.task.count` gauge). */
  countByStatus(): Record<string, number> | undefined {
    return this.store.countByStatus?.();
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
    this.release(running.holder);
  }

  /** Unknown, expired and other sessions' tasks all read as "not found": nobody learns of others' tasks. */
  private async owned(taskId: unknown, session: Session): Promise<TaskRecord> {
    if (typeof taskId !== 'string') throw McpError.invalidParams('"taskId" must be a string');
    const record = await this.store.get(taskId);
    if (!record || record.owner !== session.id || (record.expiresAt !== undefined && record.expiresAt <= this.clock.now())) {
      throw McpError.invalidParams(`Failed to retrieve task: Task not found (${taskId})`);
    }
    return this.unlessRunnerLost(record, session);
  }

  /** The instance running a task's work, when that is not this one (several instances share the store). */
  private remoteRunner(record: TaskRecord): string | undefined {
    const runner = record.runner;
    return this.cluster && runner !== undefined && runner !== this.cluster.instanceId && !this.running.has(record.taskId) ? runner : undefined;
  }

  /**
   * A task still running on an instance whose lease lapsed (killed, cut off) will never finish:
   * it fails now, with a message saying why, instead of reading `working` until its ttl.
   */
  private async unlessRunnerLost(record: TaskRecord, session?: Session): Promise<TaskRecord> {
    const runner = this.remoteRunner(record);
    if (runner === undefined || TERMINAL_STATUSES.has(record.status) || (await this.cluster!.cluster.isAlive(runner))) return record;
    const message = 'The server instance running this task stopped before it finished; its work was lost';
    const updated = await this.store.update(record.taskId, {
      status: 'failed',
      statusMessage: message,
      outcome: { error: { code: ErrorCode.InternalError, message } },
      inputRequests: undefined,
      lastUpdatedAt: new Date(this.clock.now()).toISOString(),
    });
    if (!updated) return record;
    if (session && session.state !== 'closed') session.notify('notifications/tasks/status', publicView(updated) as unknown as Record<string, unknown>);
    this.changed(record.taskId);
    return updated;
  }

  /** Stops a cancelled task's work, here or on the instance running it. */
  private stopWork(record: TaskRecord): void {
    const running = this.running.get(record.taskId);
    if (running) return running.controller.abort(new McpError(ErrorCode.InvalidRequest, 'Task cancelled'));
    const runner = this.remoteRunner(record);
    if (runner === undefined) return;
    this.cluster!.toRunner(runner, { type: 'taskCancel', taskId: record.taskId }).catch((err) => this.cluster!.logFailure(err, 'pass on a task cancellation'));
  }

  /** Another instance cancelled this task (its record says so already): stop its work here. */
  abortRunning(taskId: string): void {
    this.running.get(taskId)?.controller.abort(new McpError(ErrorCode.InvalidRequest, 'Task cancelled'));
  }

  /** Answers given to another instance (tasks/update) for this task's work running here. */
  async answerRunning(taskId: string, responses: Record<string, unknown>): Promise<void> {
    const inputs = this.running.get(taskId)?.inputs;
    if (inputs && inputs.answer(responses) > 0) await this.publishInputs(taskId);
  }

  /** A task's record changed: its waiters here and on other instances wake. */
  private changed(taskId: string): void {
    this.wake(taskId);
    this.cluster?.taskChanged(taskId);
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

  /** Wakes this instance's waiters for a task (changed here, or by another instance). */
  wake(taskId: string): void {
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

/** How a task's span ends: `error.type` (the JSON-RPC code, `tool_error` for isError, `cancelled`), its message, and the status. */
function taskSpanOutcome(status: TaskStatus, outcome: TaskRecord['outcome'], message: string | undefined): [string | undefined, string | undefined, Record<string, string>] {
  const attributes = { [ATTR_MCPX_TASK_STATUS]: status };
  if (status === 'cancelled') return ['cancelled', 'The task was cancelled', attributes];
  if (outcome && 'error' in outcome) return [String(outcome.error.code), outcome.error.message, attributes];
  if (outcome && outcome.result.isError === true) return [TOOL_ERROR, message ?? 'The tool reported an error (isError)', attributes];
  return [undefined, undefined, attributes];
}
