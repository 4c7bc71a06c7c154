import type { Logger } from 'pino';
import { subjectOf } from '../protocol/subject';
import type { JsonRpcErrorResponse, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../protocol/jsonrpc';

/**
 * The request log: one line per request, whatever the transport, written by the session when the
 * request is answered (docs/transports.md lists the fields). Callers check the level first.
 */
export interface RequestLine {
  /** The start of the Mcp-Session-Id the client holds (sessionLogId; stdio: `stdio`; absent in stateless HTTP). */
  session?: string;
  mcpMethod?: string;
  /** What the request names, where it names something. */
  tool?: string;
  prompt?: string;
  uri?: string;
  taskId?: string;
  requestId?: string | number;
  /** `result`; `isError` for a tool result with isError true; `error` (see errorCode); `cancelled` (no response is due). */
  outcome: 'result' | 'isError' | 'error' | 'cancelled';
  errorCode?: number;
  errorMessage?: string;
  durationMs: number;
}

/**
 * How a session appears in logs: its id's first 8 characters. The client's id starts with them, so
 * a line can be matched to a client, but the whole id is a credential (on a server without auth it
 * is enough to use the session) and stays out of the log.
 */
export function sessionLogId(id: string): string {
  return id.length > 8 ? id.slice(0, 8) : id;
}

/** Writes the info line of one request, answered with `response` (null: cancelled) `startedAt` (performance.now()) ago. */
export function logRequest(logger: Logger, session: string | undefined, request: JsonRpcRequest, response: JsonRpcResponse | null, startedAt: number): void {
  const { tool, prompt, uri, taskId } = subjectOf(request.method, request.params);
  // Every field in one literal, in the order a reader wants them; pino leaves out the undefined ones.
  const line: RequestLine = {
    session,
    mcpMethod: request.method,
    tool,
    prompt,
    uri,
    taskId,
    requestId: request.id,
    outcome: 'result',
    errorCode: undefined,
    errorMessage: undefined,
    durationMs: Math.round((performance.now() - startedAt) * 100) / 100,
  };
  if (!response) line.outcome = 'cancelled';
  else if ('error' in response) errorOutcome(line, response);
  else if (request.method === 'tools/call') {
    if (response.result.isError === true) line.outcome = 'isError';
    // A call run as a task answers with the task: its later tasks/* lines carry the same taskId.
    // 2026-07-28's tasks extension answers with the task itself (resultType "task").
    const task = (response.result.resultType === 'task' ? response.result : response.result.task) as { taskId?: unknown } | undefined;
    if (task && typeof task.taskId === 'string') line.taskId = task.taskId;
  }
  logger.info(line, 'mcp request');
}

/** The info line of a message refused before it could be read as a request (parse error, bad envelope). */
export function logRefused(logger: Logger, session: string | undefined, refusal: JsonRpcErrorResponse): void {
  const line: RequestLine = { session, requestId: refusal.id, outcome: 'error', errorCode: undefined, errorMessage: undefined, durationMs: 0 };
  errorOutcome(line, refusal);
  logger.info(line, 'mcp request');
}

/** The debug line of a notification from the client. */
export function logNotification(logger: Logger, session: string | undefined, notification: JsonRpcNotification): void {
  const requestId = notification.params?.requestId;
  logger.debug({ session, mcpMethod: notification.method, requestId: typeof requestId === 'string' || typeof requestId === 'number' ? requestId : undefined }, 'mcp notification');
}

function errorOutcome(line: RequestLine, response: JsonRpcErrorResponse): void {
  line.outcome = 'error';
  line.errorCode = response.error.code;
  line.errorMessage = response.error.message;
}
