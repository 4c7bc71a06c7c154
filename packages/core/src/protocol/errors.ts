/** Every JSON-RPC error code mcpx sends: JSON-RPC 2.0's, MCP's, and mcpx's own (docs/errors.md). */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** An HTTP refusal about no one request (bad headers, unknown session, body too large): the status says which. */
  TransportError: -32000,
  /** A request to the other side got no answer in time. */
  RequestTimeout: -32001,
  /** resources/read for a URI the server does not know. */
  ResourceNotFound: -32002,
  /** The caller lacks OAuth scopes the entry requires (`data.requiredScopes`). */
  InsufficientScope: -32003,
  /** A cap the server sets was reached: requests in flight per session, tasks per principal (`data.limit` names it). */
  LimitExceeded: -32004,
  /** A tool needs the user to visit a URL first (URL-mode elicitation; 2025-11-25 only). */
  UrlElicitationRequired: -32042,
  /** 2026-07-28: the HTTP headers do not match the body, or a required header is missing or malformed (HTTP 400). */
  HeaderMismatch: -32020,
  /** 2026-07-28: the request needs a client capability its `_meta` does not declare (`data.requiredCapabilities`; HTTP 400). */
  MissingRequiredClientCapability: -32021,
  /** 2026-07-28: the request's protocol version is not one this server serves (`data.supported`, `data.requested`; HTTP 400). */
  UnsupportedProtocolVersion: -32022,
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * An error that becomes a JSON-RPC error response. Throw it from a handler to answer with a
 * protocol error; any other thrown error inside a tool becomes a tool execution error instead.
 */
export class McpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'McpError';
  }

  static invalidParams(message: string, data?: unknown): McpError {
    return new McpError(ErrorCode.InvalidParams, message, data);
  }

  static methodNotFound(method: string): McpError {
    return new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
  }

  static resourceNotFound(uri: string): McpError {
    return new McpError(ErrorCode.ResourceNotFound, `Resource not found: ${uri}`, { uri });
  }

  static invalidRequest(message: string): McpError {
    return new McpError(ErrorCode.InvalidRequest, message);
  }

  /** A cap was reached; `limit` names the option that sets it, `max` its value. */
  static limitExceeded(message: string, limit: string, max: number): McpError {
    return new McpError(ErrorCode.LimitExceeded, message, { limit, max });
  }
}

/** One URL-mode elicitation a tool needs completed before it can go on. */
export interface UrlElicitation {
  mode: 'url';
  message: string;
  url: string;
  elicitationId: string;
}

/**
 * Throw from a tool that cannot go on until the user visits a URL (URL-mode elicitation): the
 * client gets -32042 with the elicitations to present, and may retry the call afterwards.
 */
export class UrlElicitationRequiredError extends McpError {
  constructor(
    readonly elicitations: UrlElicitation[],
    message = 'This request requires more information: complete the elicitation at the URL given, then retry',
  ) {
    super(ErrorCode.UrlElicitationRequired, message, { elicitations });
    this.name = 'UrlElicitationRequiredError';
  }
}
