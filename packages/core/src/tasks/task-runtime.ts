/**
 * The runtime both eras' tasks share, whatever the protocol calls them: the ttl and poll settings,
 * new task records, the work running in this process (and its abort), the cap on running tasks
 * per principal, the waiters woken when a record changes, the ttl sweep, and the cluster side of
 * tasks (which instance runs a task, passing a cancellation on to it, failing a task whose
 * instance died). It speaks no protocol: 2025-11-25's tasks/* (legacy-tasks.ts) and the
 * 2026-07-28 tasks extension (modern-tasks.ts) are built on it. It knows nothing of the engine:
 * it takes the store, its options and, once there is one, a link to the other instances.
 */
import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/principal';
import { ErrorCode, McpError } from '../protocol/errors';
import { TERMINAL_STATUSES, type TaskRecord, type TaskStatus, type TaskStore } from '../stores/task-store';
import type { ClusterMessage } from '../cluster/cluster';
import type { RequestContext } from '../context/request-context';
import type { LazyAbort } from '../context/lazy-abort';
import { systemClock, type Clock } from '../clock';
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

/** What tasks need of the other instances sharing the store (the engine's ClusterLink is one). */
export interface TaskClusterLink {
  readonly instanceId: string;
  readonly cluster: { isAlive(instanceId: string): Promise<boolean> };
  /** Wakes the task's waiters on the other instances. */
  taskChanged(taskId: string): void;
  /** Sends a task's cancellation or answers to the instance running its work. */
  toRunner(runner: string, message: ClusterMessage & { type: 'taskCancel' | 'taskInput' }): Promise<void>;
  logFailure(err: unknown, what: string): void;
}

/** Work running in this process. Each era's API keeps its own fields on it (a subclass). */
export interface RunningTask {
  readonly controller: LazyAbort;
  /** Whose cap it counts against (see holderOf). */
  readonly holder: string;
}

/**
 * Who a task's work counts against: the principal when there is one (across its sessions), else
 * the session. A modern request without auth has neither: such callers share one allowance.
 */
export function holderOf(ctx: RequestContext): string {
  const p = ctx.principal;
  if (p) return `principal\u0000${principalKey(p)}`;
  return ctx.session ? `session\u0000${ctx.session.id}` : 'anonymous';
}

export function principalKey(p: Principal): string {
  return `${p.claims?.iss ?? ''}\u0000${p.subject}\u0000${p.clientId ?? ''}`;
}

/**
 * The store is the only source of truth about a task: what this runtime keeps is the work it
 * runs, the places under the cap that work holds, and the waiters it wakes.
 */
export class TaskRuntime {
  private readonly running = new Map<string, RunningTask>();
  /** Running tasks per holder, for maxTasksPerPrincipal. */
  private readonly runningPerHolder = new Map<string, number>();
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly stopSweeper: () => void;
  readonly clock: Clock;
  readonly defaultTtlMs: number;
  readonly maxTtlMs: number;
  readonly pollIntervalMs: number;
  /** Set when other instances share the store: tasks name their runner, and cancellations and answers reach it. */
  cluster?: TaskClusterLink;

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

  /** A task just started: working, its times now, its id random (a v4 UUID, unguessable). */
  newRecord(owner: string, ttl: number): TaskRecord {
    const now = this.clock.now();
    const at = new Date(now).toISOString();
    const record: TaskRecord = { taskId: randomUUID(), owner, status: 'working', createdAt: at, lastUpdatedAt: at, ttl, pollInterval: this.pollIntervalMs, expiresAt: now + ttl };
    if (this.cluster) record.runner = this.cluster.instanceId;
    return record;
  }

  /** Now, as a record's lastUpdatedAt says it. */
  timestamp(): string {
    return new Date(this.clock.now()).toISOString();
  }

  /** Whether the task's ttl ran out (the sweep may not have deleted it yet). */
  expired(record: TaskRecord): boolean {
    return record.expiresAt !== undefined && record.expiresAt <= this.clock.now();
  }

  /** Takes a place under maxTasksPerPrincipal, or refuses with -32004 when the holder has none left. */
  reserve(holder: string): void {
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

  release(holder: string): void {
    const left = (this.runningPerHolder.get(holder) ?? 1) - 1;
    if (left > 0) this.runningPerHolder.set(holder, left);
    else this.runningPerHolder.delete(holder);
  }

  /** The task's work runs here from now on; it holds its place under the cap (reserved) until forgotten. */
  track(taskId: string, task: RunningTask): void {
    this.running.set(taskId, task);
  }

  runningTask(taskId: string): RunningTask | undefined {
    return this.running.get(taskId);
  }

  /** The work ended (or was stopped): its place under the cap is free again. */
  forget(taskId: string): void {
    const running = this.running.get(taskId);
    if (!running) return;
    this.running.delete(taskId);
    this.release(running.holder);
  }

  /** Aborts the task's work here, forgets it, and wakes its waiters. */
  stop(taskId: string, reason: string): void {
    this.running.get(taskId)?.controller.abort(new McpError(ErrorCode.InvalidRequest, `Task stopped: ${reason}`));
    this.forget(taskId);
    this.wake(taskId);
  }

  /** Stops a cancelled task's work, here or on the instance running it. */
  stopWork(record: TaskRecord): void {
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

  /** The instance running a task's work, when that is not this one (several instances share the store). */
  remoteRunner(record: TaskRecord): string | undefined {
    const runner = record.runner;
    return this.cluster && runner !== undefined && runner !== this.cluster.instanceId && !this.running.has(record.taskId) ? runner : undefined;
  }

  /**
   * A task still running on an instance whose lease lapsed (killed, cut off) will never finish:
   * it fails now, with a message saying why, instead of reading `working` until its ttl.
   * `announce` tells the task's client, where its era does, before waiters wake.
   */
  async unlessRunnerLost(record: TaskRecord, announce?: (updated: TaskRecord) => void): Promise<TaskRecord> {
    const runner = this.remoteRunner(record);
    if (runner === undefined || TERMINAL_STATUSES.has(record.status) || (await this.cluster!.cluster.isAlive(runner))) return record;
    const message = 'The server instance running this task stopped before it finished; its work was lost';
    const updated = await this.store.update(record.taskId, {
      status: 'failed',
      statusMessage: message,
      outcome: { error: { code: ErrorCode.InternalError, message } },
      inputRequests: undefined,
      lastUpdatedAt: this.timestamp(),
    });
    if (!updated) return record;
    announce?.(updated);
    this.changed(record.taskId);
    return updated;
  }

  /** A task's record changed: its waiters here and on other instances wake. */
  changed(taskId: string): void {
    this.wake(taskId);
    this.cluster?.taskChanged(taskId);
  }

  /** Resolves on the next local change to the task, or after a poll interval (changes made by other instances). */
  changeOrPoll(taskId: string, signal: AbortSignal): Promise<void> {
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

  /** For metrics and tests. */
  get runningCount(): number {
    return this.running.size;
  }
}

/** How a task's span ends: `error.type` (the JSON-RPC code, `tool_error` for isError, `cancelled`), its message, and the status. */
export function taskSpanOutcome(status: TaskStatus, outcome: TaskRecord['outcome'], message: string | undefined): [string | undefined, string | undefined, Record<string, string>] {
  const attributes = { [ATTR_MCPX_TASK_STATUS]: status };
  if (status === 'cancelled') return ['cancelled', 'The task was cancelled', attributes];
  if (outcome && 'error' in outcome) return [String(outcome.error.code), outcome.error.message, attributes];
  if (outcome && outcome.result.isError === true) return [TOOL_ERROR, message ?? 'The tool reported an error (isError)', attributes];
  return [undefined, undefined, attributes];
}
