export { mcpx, logRequest, registerHealthRoutes, type McpPluginOptions, type McpEndpointHandle } from './plugin';
export { listen, type ListenOptions, type McpHttpServer } from './listen';
export { resolveOptions, type McpHttpOptions, type ResolvedHttpOptions } from './options';
export { SessionManager } from './session-manager';
export { HttpSession, newSessionId } from './http-session';
export { SseStream } from './sse-stream';
export { SseConnection } from './sse';
