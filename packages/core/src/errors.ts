// '@mcpx/core/errors', and part of '@mcpx/core': every error code mcpx has, wire and local.
// It imports nothing but the wire codes (which import nothing), so the CLI can load it to
// recognise errors without loading the framework.

export * from './protocol/errors';

/**
 * The code of every local error mcpx throws, with what it means: one catalog for every package
 * (docs/errors.md lists them with what to do). A code never changes once published; match on it
 * (`isMcpxError(err, 'MCPX_DEFINITION')`) rather than on a class or its name, which two copies of
 * a package loaded side by side do not share. Wire errors keep their JSON-RPC `ErrorCode`.
 */
export const MCPX_ERROR_CODES = Object.freeze({
  // Definitions (at startup)
  MCPX_DEFINITION: 'A decorated class cannot be served as written; the message names where and the way out.',
  MCPX_URI_TEMPLATE: 'A resource template URI is not a valid RFC 6570 template.',
  MCPX_ELICITATION_SCHEMA: 'A class or schema uses something an elicitation form cannot carry.',
  MCPX_SKILLS: 'Skills cannot be served as given: a missing folder, a SKILL.md without valid frontmatter, a skill over the limits, a link out of its folder.',
  // Asking the client (in a handler)
  MCPX_CLIENT_CAPABILITY: 'The client did not declare the capability a request to it needs.',
  MCPX_CLIENT_UNREACHABLE: 'The server runs stateless, so no request can reach the client.',
  MCPX_CLIENT_REQUEST: 'The client answered a request with an error, or not in time (`rpcCode` holds its JSON-RPC code).',
  MCPX_INPUT_REQUIRED: 'A handler asks the client for input and ends this round (thrown on purpose: InputRequired).',
  MCPX_INPUT_PENDING: "A 2026-07-28 request waits on the client's answer to a question the handler asked.",
  MCPX_TOOL_ERROR: 'A tool failed and says why in a message meant for the model (thrown on purpose: ToolError); `maskErrors` keeps it.',
  MCPX_CANCELLED: 'The client cancelled the request, or its session or stream ended.',
  // Request state, tasks and shared state
  MCPX_REQUEST_STATE: 'A requestState presented on a retry was altered, expired, or issued for another request or principal.',
  MCPX_INVALID_TASK_CURSOR: 'A tasks/list cursor the task store did not issue.',
  MCPX_CLUSTER_UNAVAILABLE: 'The store the instances share (Redis) cannot be reached.',
  // HTTP authorization
  MCPX_INVALID_TOKEN: 'A bearer token that is malformed, expired, inactive, or issued for another audience.',
  // OpenAPI (@mcpx/openapi)
  MCPX_OPENAPI: 'An OpenAPI description cannot be served as written, or a call cannot be made as its operation says (a path parameter that would leave its route).',
  // Gateway (@mcpx/proxy)
  MCPX_PROXY: 'A proxy configuration cannot be served as written (its file, an upstream entry, a variable it uses that is not set).',
  // Options
  MCPX_OPTION_UNKNOWN: 'An options object has a key the function or decorator it was given to does not have (a typo, most often).',
  // The mcpx command
  MCPX_CLI_USAGE: 'The mcpx command cannot use what it was given: a flag, an environment variable, the entry file or its servers (exit 2).',
  MCPX_CLI_OPTION_UNKNOWN: 'The mcpx command was given an option or command it does not have (exit 2).',
  MCPX_CLI_FAILED: 'The mcpx command could not do its work: a server unreachable or silent, a port taken, a file unwritable (exit 1).',
  MCPX_CLI_RPC_FAILURE: 'A server answered a request of the mcpx command with a JSON-RPC error (`rpcCode`).',
} as const);

/** One of the codes in {@link MCPX_ERROR_CODES}. */
export type McpxErrorCode = keyof typeof MCPX_ERROR_CODES;

/**
 * The base of every local error mcpx throws: one thrown in the server's (or the CLI's) own
 * process that a client never receives as it is. `code` says which, from MCPX_ERROR_CODES.
 */
export class McpxError extends Error {
  readonly code: McpxErrorCode;

  constructor(code: McpxErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    // Each subclass, a user's included, is named after itself without setting it.
    this.name = new.target.name;
  }
}

/**
 * Whether `err` is an mcpx local error (with `code`: that one). It checks the code, not the class,
 * so it holds for an error thrown by another copy of @mcpx/core than the caller's.
 */
export function isMcpxError(err: unknown, code?: McpxErrorCode): err is McpxError {
  if (!(err instanceof Error)) return false;
  const own = (err as { code?: unknown }).code;
  if (code !== undefined) return own === code;
  return typeof own === 'string' && Object.prototype.hasOwnProperty.call(MCPX_ERROR_CODES, own);
}
