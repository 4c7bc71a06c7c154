import { McpxError } from '@mcpx/core/errors';
import { version } from './help';

/** What `mcpx call`, `read` and `prompt` need of a connection: one session, requests, an end. */
export interface McpClient {
  /** initialize, then notifications/initialized. */
  connect(): Promise<void>;
  request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Ends the session (HTTP: DELETE); never throws. */
  close(): Promise<void>;
}

/** A JSON-RPC error the server answered with; `rpcCode` is its code. */
export class RpcFailure extends McpxError {
  constructor(
    readonly method: string,
    readonly rpcCode: number,
    message: string,
  ) {
    super('MCPX_CLI_RPC_FAILURE', message);
  }
}

/** The revision this client asks for (a server may answer with an older one it speaks). */
export const PROTOCOL_VERSION = '2025-11-25';

/** Who the client says it is in initialize. */
export const clientInfo = () => ({ name: 'mcpx-cli', version: version() });

type JsonRpcReply = { id?: unknown; result?: Record<string, unknown>; error?: { code?: unknown; message?: unknown } };

/** The result of a reply, or its error as an RpcFailure. */
export function resultOf(method: string, reply: JsonRpcReply): Record<string, unknown> {
  if (reply.error) {
    const code = typeof reply.error.code === 'number' ? reply.error.code : 0;
    throw new RpcFailure(method, code, typeof reply.error.message === 'string' ? reply.error.message : 'error without a message');
  }
  return reply.result ?? {};
}
