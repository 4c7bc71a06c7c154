import type { FastifyReply } from 'fastify';
import { ErrorCode } from '@mcpx/core';
import { errorResponse, type JsonRpcErrorObject, type JsonRpcRequest, type JsonRpcResponse, type ParsedMessage, type RequestId } from '@mcpx/core/transport';

/** JSON-RPC code used for transport-level refusals (HTTP 4xx/5xx without a request id). */
export const TRANSPORT_ERROR = ErrorCode.TransportError;

/**
 * A JSON-RPC error body. `id` is written only when the request's id is known: never `"id": null`
 * (the transport spec's HTTP errors have no id; 2025-11-25 makes it optional on error responses).
 */
export function rpcErrorBody(error: JsonRpcErrorObject, id?: RequestId | null): string {
  const idPart = id === undefined || id === null ? '' : `"id":${JSON.stringify(id)},`;
  return `{"jsonrpc":"2.0",${idPart}"error":${JSON.stringify(error)}}`;
}

/**
 * Answers with an HTTP status and a JSON-RPC error body: with no id, as the transport spec allows,
 * or echoing `id` when the refusal concerns a request whose body was already parsed.
 */
export function sendHttpError(reply: FastifyReply, status: number, message: string, code: number = TRANSPORT_ERROR, id?: RequestId): FastifyReply {
  return reply.code(status).header('content-type', 'application/json').send(rpcErrorBody({ code, message }, id));
}

/** 405, with the `Allow` header listing the methods the endpoint does accept (in its mode). */
export function sendMethodNotAllowed(reply: FastifyReply, allow: readonly string[], message: string): FastifyReply {
  return sendHttpError(reply.header('allow', allow.join(', ')), 405, message);
}

/** The id of the request a POST carried, where one could be read (a request, or one refused while parsing). */
export function idOf(parsed: ParsedMessage): RequestId | undefined {
  return parsed.kind === 'request' ? parsed.message.id : parsed.kind === 'invalid' ? parsed.error.id : undefined;
}

/**
 * The answer to a request whose pipeline failed after its SSE response was taken over (hijacked):
 * a bug, since the pipeline answers a handler's failure itself. Logged here, as Fastify no longer
 * sees the response; the client gets -32603 with the request's id and no detail.
 */
export function pipelineFailure(reply: FastifyReply, request: JsonRpcRequest, err: unknown): JsonRpcResponse {
  reply.log.error({ err }, 'mcp endpoint failed');
  return errorResponse(request.id, ErrorCode.InternalError, `Internal error while handling ${request.method}`);
}
