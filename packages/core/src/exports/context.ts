// '@mcpx/core/context': What a handler's context holds besides RequestContext itself: the client's environment, the logger, a task's handle.

export { McpLogger } from '../context/mcp-logger';
export { relatedTask, type TaskHandle } from '../context/request-context';
export type { Era, RequestEnv } from '../context/request-env';
