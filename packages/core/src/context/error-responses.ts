import type { Logger } from 'pino';
import { ErrorCode, McpError } from '../protocol/errors';
import { McpxError, isMcpxError } from '../errors';
import { errorResponse, type JsonRpcResponse, type RequestId } from '../protocol/jsonrpc';

/** What running a request comes to, whatever its era: its error response, and the errors a handler's signal carries. */

/**
 * The response for a handler's error: an McpError as it is; anything else is logged and told to the
 * client only as -32603. `log`: the logger, or how to make it (only an error that is logged needs one).
 */
export function errorResponseFor(id: RequestId, method: string, err: unknown, log: Logger | (() => Logger)): JsonRpcResponse {
  if (err instanceof McpError) return errorResponse(id, err.code, err.message, err.data);
  const logger = typeof log === 'function' ? log() : log;
  // The shared store away (a Redis restart, a failover): a state of the deployment that /readyz
  // reports, not a fault of this request; the client is told to retry.
  if (isMcpxError(err, 'MCPX_CLUSTER_UNAVAILABLE')) {
    logger.warn({ err, requestId: id, method }, 'request failed: the shared store is unavailable');
    return errorResponse(id, ErrorCode.InternalError, 'Service unavailable: the shared store cannot be reached; retry shortly');
  }
  // Anything else is our fault or the handler's: the details go to the log, never to the client.
  logger.error({ err, requestId: id, method }, 'request failed');
  return errorResponse(id, ErrorCode.InternalError, `Internal error while handling ${method}`);
}

/** The reason a handler's signal carries when the client cancels its request. */
export class CancelledError extends McpxError {
  constructor(reason?: string) {
    super('MCPX_CANCELLED', reason ? `Request cancelled: ${reason}` : 'Request cancelled');
  }
}
