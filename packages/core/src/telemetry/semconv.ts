/**
 * The OpenTelemetry names mcpx emits: the MCP semantic conventions (spans and the two `mcp.server.*`
 * histograms) and, under `mcpx.`, what an operator of this server needs besides. docs/observability.md
 * lists them with their attributes.
 */

// Attributes of the MCP semantic conventions.
export const ATTR_MCP_METHOD_NAME = 'mcp.method.name';
export const ATTR_MCP_PROTOCOL_VERSION = 'mcp.protocol.version';
export const ATTR_MCP_SESSION_ID = 'mcp.session.id';
export const ATTR_MCP_RESOURCE_URI = 'mcp.resource.uri';
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const ATTR_GEN_AI_PROMPT_NAME = 'gen_ai.prompt.name';
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_JSONRPC_REQUEST_ID = 'jsonrpc.request.id';
export const ATTR_RPC_RESPONSE_STATUS_CODE = 'rpc.response.status_code';
export const ATTR_ERROR_TYPE = 'error.type';
export const ATTR_NETWORK_TRANSPORT = 'network.transport';
export const ATTR_NETWORK_PROTOCOL_NAME = 'network.protocol.name';
export const ATTR_NETWORK_PROTOCOL_VERSION = 'network.protocol.version';
export const ATTR_CLIENT_ADDRESS = 'client.address';
export const ATTR_CLIENT_PORT = 'client.port';
export const ATTR_HTTP_RESPONSE_STATUS_CODE = 'http.response.status_code';

// mcpx's own attributes.
export const ATTR_MCPX_TASK_ID = 'mcpx.task.id';
export const ATTR_MCPX_TASK_STATUS = 'mcpx.task.status';
export const ATTR_MCPX_REFUSAL_REASON = 'mcpx.refusal.reason';
export const ATTR_MCPX_LIMIT = 'mcpx.limit';

/** `gen_ai.operation.name` of a tool call, and the name of a task's background work span. */
export const EXECUTE_TOOL = 'execute_tool';
/** `error.type` of a tool result with isError true, as the conventions say. */
export const TOOL_ERROR = 'tool_error';
/** `error.type` of a request the client cancelled (it gets no response). */
export const CANCELLED = 'cancelled';
/** What stands for a method or name the server does not know, in names and metric attributes (hostile input must not raise cardinality). */
export const OTHER = '_OTHER';

// Metrics.
export const METRIC_OPERATION_DURATION = 'mcp.server.operation.duration';
export const METRIC_SESSION_DURATION = 'mcp.server.session.duration';
export const METRIC_SESSIONS_ACTIVE = 'mcpx.session.active';
export const METRIC_STREAMS_ACTIVE = 'mcpx.sse.stream.active';
export const METRIC_REQUESTS_ACTIVE = 'mcpx.request.active';
export const METRIC_TASKS = 'mcpx.task.count';
export const METRIC_EVENT_STORE_SIZE = 'mcpx.event_store.size';
export const METRIC_REFUSALS = 'mcpx.refusal.count';

/** The buckets the conventions advise for both `mcp.server.*` histograms, in seconds. */
export const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** The instrumentation scope: the tracer and meter name. */
export const INSTRUMENTATION_SCOPE = '@mcpx/core';
