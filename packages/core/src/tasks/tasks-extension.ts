import { ErrorCode, McpError } from '../protocol/errors';
import type { ClientCapabilities, ServerCapabilities } from '../protocol/types';
import type { InputRequest } from '../protocol/input-required';
import type { TaskRecord } from '../stores/task-store';

/**
 * The tasks extension of 2026-07-28 (SEP-2663): a tools/call may be answered with a task handle
 * (`resultType: "task"`) that the client polls with tasks/get, feeds with tasks/update and stops
 * with tasks/cancel. Both sides opt in through capabilities: the server in server/discover, the
 * client in each request's `_meta` (a declaration on one request says nothing about the next).
 */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Whether the server offers the extension (some tool can run as a task). */
export function offersTasks(capabilities: ServerCapabilities): boolean {
  return isObject(capabilities.extensions?.[TASKS_EXTENSION]);
}

/** Whether this request's client declared the extension. */
export function declaresTasks(capabilities: ClientCapabilities): boolean {
  const extensions = capabilities.extensions as unknown;
  return isObject(extensions) && isObject((extensions as Record<string, unknown>)[TASKS_EXTENSION]);
}

/** -32021 naming the extension: what a client that did not declare it gets where only a task will do. */
export function missingTasksExtension(message: string): McpError {
  return new McpError(ErrorCode.MissingRequiredClientCapability, message, { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
}

/** The extension's Task as the wire shows it: ttlMs and pollIntervalMs, where 2025-11-25 said ttl and pollInterval. */
export interface ModernTask {
  taskId: string;
  status: TaskRecord['status'];
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
}

/** A task with what its status carries (tasks/get): the open input requests, the result, or the error. */
export type DetailedTask = ModernTask & { inputRequests?: Record<string, InputRequest>; result?: Record<string, unknown>; error?: Record<string, unknown> };

export function modernTaskView(record: TaskRecord): ModernTask {
  const task: ModernTask = { taskId: record.taskId, status: record.status, createdAt: record.createdAt, lastUpdatedAt: record.lastUpdatedAt, ttlMs: record.ttl };
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  if (record.pollInterval !== undefined) task.pollIntervalMs = record.pollInterval;
  return task;
}

export function detailedTaskView(record: TaskRecord): DetailedTask {
  const task: DetailedTask = modernTaskView(record);
  if (record.status === 'input_required') task.inputRequests = { ...record.inputRequests };
  else if (record.status === 'completed' && record.outcome && 'result' in record.outcome) task.result = record.outcome.result;
  else if (record.status === 'failed' && record.outcome && 'error' in record.outcome) task.error = { ...record.outcome.error };
  return task;
}

function isObject(value: unknown): boolean {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
