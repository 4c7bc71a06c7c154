import type { FastifyReply } from 'fastify';

/** JSON-RPC code used for transport-level refusals (HTTP 4xx/5xx without a request id). */
export const TRANSPORT_ERROR = -32000;

/** Answers with an HTTP status and a JSON-RPC error body that has no id, as the transport spec allows. */
export function sendHttpError(reply: FastifyReply, status: number, message: string, code = TRANSPORT_ERROR): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'application/json')
    .send(`{"jsonrpc":"2.0","id":null,"error":${JSON.stringify({ code, message })}}`);
}
