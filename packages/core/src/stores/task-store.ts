import type { JsonRpcErrorObject } from '../protocol/jsonrpc';
import type { InputRequest } from '../protocol/input-required';
import { McpxError } from '../errors';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export const TERMINAL_STATUSES: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/** A task as the protocol shows it (tasks/get, tasks/list, notifications/tasks/status). */
export interface Task {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** Retention from creation in ms; null means unlimited. */
  ttl: number | null;
  pollInterval?: number;
}

/** What the store keeps: the task, whose it is, and (once terminal) what the request returned. */
export interface TaskRecord extends Task {
  /**
   * Who may see the task: the session it was created on (2025-11-25), or for the tasks extension
   * (2026-07-28, no sessions) the principal, else anyone holding its id (see TaskManager).
   */
  owner: string;
  /** Epoch ms after which the task may be purged; undefined for an unlimited ttl. */
  expiresAt?: number;
  outcome?: { result: Record<string, unknown> } | { error: JsonRpcErrorObject };
  /**
   * What the task waits on from the client while input_required (tasks extension, 2026-07-28), by
   * key; tasks/get shows them. A store keeps it like the other fields (a patch may set it to undefined).
   */
  inputRequests?: Record<string, InputRequest>;
  /**
   * The instance running the task's work, when several share the store (see Cluster): while the
   * task is not terminal, an instance whose lease lapsed means the work is lost, and the task fails.
   */
  runner?: string;
}

/**
 * Where tasks live. The engine keeps nothing about a task outside it except the work running in
 * this process, so a shared implementation (e.g. Redis) lets several instances serve one task.
 */
export interface TaskStore {
  create(record: TaskRecord): Promise<void> | void;
  get(taskId: string): Promise<TaskRecord | undefined> | TaskRecord | undefined;
  /** Applies `patch` and returns the new record; undefined when the task is unknown. */
  update(taskId: string, patch: Partial<TaskRecord>): Promise<TaskRecord | undefined> | TaskRecord | undefined;
  /** One owner's tasks, oldest first, `limit` at a time; the cursor is the store's own. */
  list(owner: string, cursor: string | undefined, limit: number): Promise<{ tasks: TaskRecord[]; nextCursor?: string }> | { tasks: TaskRecord[]; nextCursor?: string };
  delete(taskId: string): Promise<void> | void;
  /** Deletes tasks whose expiresAt has passed; returns their ids. */
  deleteExpired(now: number): Promise<string[]> | string[];
  /** Deletes every task of an owner; returns their ids. */
  deleteOwner(owner: string): Promise<string[]> | string[];
  /** How many tasks it holds, by status, where it can tell cheaply (the `mcpx.task.count` gauge); optional. */
  countByStatus?(): Record<string, number>;
}

/** Thrown by a store for a cursor it did not issue. */
export class InvalidTaskCursorError extends McpxError {
  constructor(message: string) {
    super('MCPX_INVALID_TASK_CURSOR', message);
  }
}

/** The embedded default: tasks in a Map, in creation order. */
export class InMemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, TaskRecord & { seq: number }>();
  private seq = 0;

  create(record: TaskRecord): void {
    this.tasks.set(record.taskId, { ...record, seq: ++this.seq });
  }

  countByStatus(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const task of this.tasks.values()) counts[task.status] = (counts[task.status] ?? 0) + 1;
    return counts;
  }

  get(taskId: string): TaskRecord | undefined {
    return this.tasks.get(taskId);
  }

  update(taskId: string, patch: Partial<TaskRecord>): TaskRecord | undefined {
    const current = this.tasks.get(taskId);
    if (!current) return undefined;
    Object.assign(current, patch);
    return current;
  }

  list(owner: string, cursor: string | undefined, limit: number): { tasks: TaskRecord[]; nextCursor?: string } {
    let after = 0;
    if (cursor !== undefined) {
      after = Number(
        Buffer.from(cursor, 'base64url')
          .toString('utf8')
          .replace(/^tasks:/, ''),
      );
      if (!/^tasks:\d+$/.test(Buffer.from(cursor, 'base64url').toString('utf8')) || !Number.isSafeInteger(after)) {
        throw new InvalidTaskCursorError(`Invalid cursor for tasks/list: ${JSON.stringify(cursor)}`);
      }
    }
    const tasks: TaskRecord[] = [];
    for (const task of this.tasks.values()) {
      if (task.seq <= after || task.owner !== owner) continue;
      if (tasks.length === limit) {
        const last = tasks[tasks.length - 1] as TaskRecord & { seq: number };
        return { tasks, nextCursor: Buffer.from(`tasks:${last.seq}`).toString('base64url') };
      }
      tasks.push(task);
    }
    return { tasks };
  }

  delete(taskId: string): void {
    this.tasks.delete(taskId);
  }

  deleteExpired(now: number): string[] {
    const gone: string[] = [];
    for (const [id, task] of this.tasks) {
      if (task.expiresAt !== undefined && task.expiresAt <= now) {
        this.tasks.delete(id);
        gone.push(id);
      }
    }
    return gone;
  }

  deleteOwner(owner: string): string[] {
    const gone: string[] = [];
    for (const [id, task] of this.tasks) {
      if (task.owner === owner) {
        this.tasks.delete(id);
        gone.push(id);
      }
    }
    return gone;
  }

  get size(): number {
    return this.tasks.size;
  }
}
