import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * Calls a tool the upstream runs only as a task (`execution.taskSupport: "required"`): the task is
 * created upstream and followed to its result, whatever the downstream request is (a plain call, or
 * a task of the gateway's own). A downstream cancellation cancels the upstream task.
 */
export async function callAsUpstreamTask(client: Client, params: CallToolRequest['params'], options: { signal: AbortSignal; timeout: number }): Promise<CallToolResult> {
  let taskId: string | undefined;
  const cancel = () => {
    if (taskId) void client.experimental.tasks.cancelTask(taskId).catch(() => undefined);
  };
  options.signal.addEventListener('abort', cancel, { once: true });
  try {
    // Not the downstream signal: aborting the stream would leave the task it created running upstream.
    for await (const message of client.experimental.tasks.callToolStream(params, undefined, { timeout: options.timeout, task: {} })) {
      if (message.type === 'taskCreated') {
        taskId = message.task.taskId;
        if (options.signal.aborted) cancel(); // cancelled before the upstream said which task
      } else if (message.type === 'result') return message.result as CallToolResult;
      else if (message.type === 'error') throw message.error;
    }
    throw new Error('the upstream task ended without a result');
  } finally {
    options.signal.removeEventListener('abort', cancel);
  }
}
