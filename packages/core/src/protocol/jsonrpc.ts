import { ErrorCode } from './errors';

/** JSON-RPC 2.0 framing. One message per frame: 2025-11-25 has no batches. */

export type RequestId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}
export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}
export interface JsonRpcResultResponse {
  jsonrpc: '2.0';
  id: RequestId;
  result: Record<string, unknown>;
}
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}
export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  /** Absent when the request's id could not be read (the 2025-11-25 schema makes it optional). */
  id?: RequestId;
  error: JsonRpcErrorObject;
}
export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

export type ParsedMessage =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcResponse }
  | { kind: 'invalid'; error: JsonRpcErrorResponse };

/** An error reply; without a usable id (null or undefined) the reply carries none. */
export function errorResponse(id: RequestId | null | undefined, code: number, message: string, data?: unknown): JsonRpcErrorResponse {
  const error: JsonRpcErrorObject = data === undefined ? { code, message } : { code, message, data };
  return id === null || id === undefined ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error };
}

export function resultResponse(id: RequestId, result: Record<string, unknown>): JsonRpcResultResponse {
  return { jsonrpc: '2.0', id, result };
}

/** The schema's RequestId: a string or an integer (1.5, NaN and the like are not ids). */
export function isValidId(id: unknown): id is RequestId {
  return typeof id === 'string' || Number.isInteger(id);
}

/** An id worth echoing in an error reply, or undefined when the frame did not carry a usable one. */
function salvageId(value: Record<string, unknown>): RequestId | undefined {
  return isValidId(value.id) ? value.id : undefined;
}

/** Parses one frame of text. Never throws: a bad frame yields the error reply to send back. */
export function parseMessage(text: string): ParsedMessage {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return invalid(undefined, ErrorCode.ParseError, `Parse error: ${reason}`);
  }
  return classifyMessage(value);
}

/** Checks the JSON-RPC envelope of an already-decoded value (HTTP bodies arrive decoded). */
export function classifyMessage(value: unknown): ParsedMessage {
  if (Array.isArray(value)) {
    return invalid(undefined, ErrorCode.InvalidRequest, 'Invalid Request: batch arrays are not supported by this protocol version; send one message at a time');
  }
  if (value === null || typeof value !== 'object') {
    return invalid(undefined, ErrorCode.InvalidRequest, 'Invalid Request: a message must be a JSON object');
  }
  const msg = value as Record<string, unknown>;
  if (msg.jsonrpc !== '2.0') {
    return invalid(salvageId(msg), ErrorCode.InvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`);
  }
  const hasId = 'id' in msg;
  if (hasId && !isValidId(msg.id)) {
    return invalid(undefined, ErrorCode.InvalidRequest, `Invalid Request: "id" must be a string or an integer, got ${describeId(msg.id)}`);
  }
  if ('method' in msg) {
    if (typeof msg.method !== 'string' || msg.method.length === 0) {
      return invalid(salvageId(msg), ErrorCode.InvalidRequest, 'Invalid Request: "method" must be a non-empty string');
    }
    if ('params' in msg) {
      const params = msg.params;
      if (params === null || typeof params !== 'object' || Array.isArray(params)) {
        if (!hasId) return invalid(undefined, ErrorCode.InvalidRequest, 'Invalid Request: "params" must be an object');
        return invalid(msg.id as RequestId, ErrorCode.InvalidParams, 'Invalid params: "params" must be an object');
      }
      const meta = (params as Record<string, unknown>)._meta;
      if (meta !== undefined && (meta === null || typeof meta !== 'object' || Array.isArray(meta))) {
        const reason = `"params._meta" must be an object, got ${describeId(meta)}`;
        if (!hasId) return invalid(undefined, ErrorCode.InvalidRequest, `Invalid Request: ${reason}`);
        return invalid(msg.id as RequestId, ErrorCode.InvalidParams, `Invalid params: ${reason}`);
      }
    }
    return hasId ? { kind: 'request', message: msg as unknown as JsonRpcRequest } : { kind: 'notification', message: msg as unknown as JsonRpcNotification };
  }
  if (hasId && ('result' in msg || 'error' in msg)) {
    if ('result' in msg && (msg.result === null || typeof msg.result !== 'object')) {
      return invalid(undefined, ErrorCode.InvalidRequest, 'Invalid Request: "result" must be an object');
    }
    if ('error' in msg) {
      const error = msg.error as Record<string, unknown> | null;
      if (!error || typeof error !== 'object' || typeof error.code !== 'number' || typeof error.message !== 'string') {
        return invalid(undefined, ErrorCode.InvalidRequest, 'Invalid Request: "error" must have a numeric "code" and a string "message"');
      }
    }
    return { kind: 'response', message: msg as unknown as JsonRpcResponse };
  }
  return invalid(salvageId(msg), ErrorCode.InvalidRequest, 'Invalid Request: a message needs a "method" (request or notification) or a "result"/"error" (response)');
}

/** A short description of a wrong value for an error message (never the whole value: it may be large). */
function describeId(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return String(value);
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function invalid(id: RequestId | undefined, code: number, message: string): ParsedMessage {
  return { kind: 'invalid', error: errorResponse(id, code, message) };
}

/**
 * Serialises an outgoing message. A response whose result cannot be written as JSON (a BigInt,
 * a cycle) becomes an internal-error response for the same id, so the client is never left
 * waiting; `onError` hears the reason. Anything else that cannot be written is dropped (undefined).
 */
export function encodeMessage(message: JsonRpcMessage, onError?: (err: unknown) => void): string | undefined {
  try {
    return JSON.stringify(message);
  } catch (err) {
    onError?.(err);
    if ('id' in message && message.id !== undefined && !('method' in message)) {
      return JSON.stringify(errorResponse(message.id, ErrorCode.InternalError, 'Internal error: the result could not be serialised as JSON'));
    }
    return undefined;
  }
}
