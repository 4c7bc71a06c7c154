/**
 * @mcpx/openapi: an HTTP API described by OpenAPI 3.0 or 3.1, served as MCP tools. Each operation
 * becomes a tool (name from its operationId), its parameters and body the input schema, its JSON
 * success response the output schema; a call calls the API under the configured base URL only.
 */
import { McpServer, Server } from '@mcpx/core';
import { loadOpenApi } from './load';
import { openApiTools, type OpenApiToolOptions } from './tools';

export { loadOpenApi } from './load';
export { openApiTools, type OpenApiToolOptions } from './tools';
export { operationsOf, toolNameOf, type Operation, type OperationFilter, type OperationParameter } from './operations';
export { toJsonSchema } from './schema';
export { OpenApiError } from './openapi-error';

export interface OpenApiServerOptions extends OpenApiToolOptions {
  /** The server's name (default: the description's title) and version (default: its version). */
  name?: string;
  version?: string;
}

/** A server whose tools are the description's operations: serve it with `listen()`, `serveStdio()` or `mcpx serve --openapi`. */
export async function openApiServer(source: string | object, options: OpenApiServerOptions): Promise<McpServer> {
  const document = await loadOpenApi(source);
  const tools = openApiTools(document, options);
  const info = (document.info ?? {}) as { title?: string; version?: string; description?: string };
  class OpenApiServer extends McpServer {
    override onServerInit(): void {
      for (const tool of tools) this.registry.addTool(tool);
    }
  }
  Server({ name: options.name ?? info.title ?? 'openapi', version: options.version ?? info.version ?? '0.0.0', instructions: info.description })(OpenApiServer);
  return new OpenApiServer();
}
