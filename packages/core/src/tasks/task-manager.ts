/**
 * The engine's tasks (`engine.tasks`): one shared TaskRuntime (task-runtime.ts) and the API of each
 * era on it, `legacy` for 2025-11-25's task-augmented tools/call and tasks/* (legacy-tasks.ts) and
 * `modern` for 2026-07-28's tasks extension (modern-tasks.ts). What the engine and the cluster
 * call regardless of era (waking waiters, cancelling or answering work that runs here, dropping a
 * closed session's tasks, closing) is forwarded from here, so they need not know the split.
 */
import type { SessionView } from '../context/services';
import type { TaskStore } from '../stores/task-store';
import { LegacyTasks } from './legacy-tasks';
import { ModernTasks } from './modern-tasks';
import { TaskRuntime, type TaskClusterLink, type TaskOptions } from './task-runtime';

export type { TaskOptions } from './task-runtime';

export class TaskManager {
  readonly runtime: TaskRuntime;
  /** 2025-11-25: tasks/get, tasks/result, tasks/list, tasks/cancel and task-augmented tools/call. */
  readonly legacy: LegacyTasks;
  /** 2026-07-28's tasks extension: tasks/get, tasks/update, tasks/cancel and callAsTask. */
  readonly modern: ModernTasks;

  constructor(
    store: TaskStore,
    options: TaskOptions = {},
    /** Tasks one principal (or session, without auth) may have running at once. */
    maxRunningPerHolder = 100,
  ) {
    this.runtime = new TaskRuntime(store, options, maxRunningPerHolder);
    this.legacy = new LegacyTasks(this.runtime);
    this.modern = new ModernTasks(this.runtime);
  }

  get store(): TaskStore {
    return this.runtime.store;
  }

  /** Set when other instances share the store: tasks name their runner, and cancellations and answers reach it. */
  get cluster(): TaskClusterLink | undefined {
    return this.runtime.cluster;
  }

  set cluster(link: TaskClusterLink | undefined) {
    this.runtime.cluster = link;
  }

  /** Wakes this instance's waiters for a task (changed here, or by another instance). */
  wake(taskId: string): void {
    this.runtime.wake(taskId);
  }

  /** Another instance cancelled this task (its record says so already): stop its work here. */
  abortRunning(taskId: string): void {
    this.runtime.abortRunning(taskId);
  }

  /** Answers given to another instance (tasks/update) for this task's work running here. */
  answerRunning(taskId: string, responses: Record<string, unknown>): Promise<void> {
    return this.modern.answerRunning(taskId, responses);
  }

  /** Forgets a closed session's tasks and stops their work. */
  dropOwner(session: SessionView): Promise<void> {
    return this.legacy.dropOwner(session);
  }

  purgeExpired(now?: number): Promise<number> {
    return this.runtime.purgeExpired(now);
  }

  /** Tasks held, by status, where the store can count them (the `mcpx.task.count` gauge). */
  countByStatus(): Record<string, number> | undefined {
    return this.runtime.countByStatus();
  }

  close(): void {
    this.runtime.close();
  }

  /** For metrics and tests. */
  get runningCount(): number {
    return this.runtime.runningCount;
  }
}

declare module '../context/services' {
  interface ServerServices {
    /** Task-augmented tool calls and the tasks methods of both eras. */
    readonly tasks: TaskManager;
  }
}
