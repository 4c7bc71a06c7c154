import { setTimeout as sleep } from 'node:timers/promises';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';

/** Task results pass through as the upstream sent them: the gateway reads a few fields and forwards the rest. */
const AS_SENT = { '~standard': { version: 1, vendor: 'mcpx', validate: (value: unknown) => ({ value }) } } as const;

interface UpstreamTask {
  taskId: string;
  status: string;
  statusMessage?: string;
  pollInterval?: number;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
/** The longest wait between two polls, whatever the upstream suggests. */
const MAX_POLL_MS = 5_000;

/**
 * Calls a tool a 2025-11-25 upstream runs only as a task (`execution.taskSupport: "required"`): the
 * task is created upstream, polled with `tasks/get` at the interval it suggests, and its result
 * fetched with `tasks/result`, whatever the downstream request is (a plain call, or a task of the
 * gateway's own). A downstream cancellation cancels the upstream task.
 */
export async function callAsUpstreamTask(
  client: Client,
  params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> },
  options: { signal: AbortSignal; timeout: number },
): Promise<CallToolResult> {
  const request = { timeout: options.timeout, signal: options.signal };
  // Not the downstream signal: aborting the creation would leave the task it created running upstream.
  const created = (await client.request({ method: 'tools/call', params: { ...params, task: {} } }, AS_SENT, { timeout: options.timeout })) as { task?: UpstreamTask };
  const taskId = created.task?.taskId;
  if (typeof taskId !== 'string') throw new Error('the upstream did not create a task for a tool it runs only as one');
  const cancel = () => void client.request({ method: 'tasks/cancel', params: { taskId } }, AS_SENT).catch(() => undefined);
  options.signal.addEventListener('abort', cancel, { once: true });
  try {
    if (options.signal.aborted) {
      cancel(); // cancelled before the upstream said which task
      throw options.signal.reason;
    }
    let task: UpstreamTask = created.task!;
    while (!TERMINAL.has(task.status) && task.status !== 'input_required') {
      await sleep(Math.min(Math.max(task.pollInterval ?? 500, 10), MAX_POLL_MS), undefined, { signal: options.signal });
      task = (await client.request({ method: 'tasks/get', params: { taskId } }, AS_SENT, request)) as UpstreamTask;
    }
    // The result of a finished task, or the wait for one that needs input: its requests reach the
    // client through the handlers installed on the connection while tasks/result is open.
    return (await client.request({ method: 'tasks/result', params: { taskId } }, AS_SENT, request)) as CallToolResult;
  } finally {
    options.signal.removeEventListener('abort', cancel);
  }
}
