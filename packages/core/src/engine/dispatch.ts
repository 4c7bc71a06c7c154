import type { Logger } from 'pino';
import { ErrorCode, McpError } from '../protocol/errors';
import { errorResponse, type JsonRpcErrorResponse, type JsonRpcResponse, type RequestId } from '../protocol/jsonrpc';

/** What running a request comes to, whatever its era: its error response, and the errors a handler's signal carries. */

/** The response for a handler's error: an McpError as it is; anything else is logged and told to the client only as -32603. */
export function errorResponseFor(id: RequestId, method: string, err: unknown, logger: Logger): JsonRpcResponse {
  if (err instanceof McpError) return errorResponse(id, err.code, err.message, err.data);
  // Anything else is our fault or the handler's: the details go to the log, never to the client.
  logger.error({ err, requestId: id, method }, 'request failed');
  return errorResponse(id, ErrorCode.InternalError, `Internal error while handling ${method}`);
}

/** The message and data of the -32004 answer to a request over the session's in-flight cap. */
export function tooManyInFlight(cap: number): [string, { limit: string; max: number }] {
  return [
    `Too many requests in flight: this session already has ${cap} requests running (maxRequestsInFlight); wait for some to finish`,
    { limit: 'maxRequestsInFlight', max: cap },
  ];
}

/** Why a request cannot start beside those in flight on its session or stream: its id is taken, or the cap is reached. */
export function inFlightRefusal(inFlight: ReadonlyMap<RequestId, unknown>, id: RequestId, cap: number): JsonRpcErrorResponse | undefined {
  if (inFlight.has(id)) return errorResponse(id, ErrorCode.InvalidRequest, `Request id ${JSON.stringify(id)} is already in use by a request in flight`);
  if (inFlight.size >= cap) return errorResponse(id, ErrorCode.LimitExceeded, ...tooManyInFlight(cap));
  return undefined;
}

/** The reason a handler's signal carries when the client cancels its request. */
export class CancelledError extends Error {
  constructor(reason?: string) {
    super(reason ? `Request cancelled: ${reason}` : 'Request cancelled');
    this.name = 'CancelledError';
  }
}
