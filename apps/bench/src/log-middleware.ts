import type { Middleware } from '@mcpx/core';

/**
 * The middleware the `mcpx-mw` targets measure: one debug line per request, as an application
 * would log its calls. It goes through `ctx.log` (the request's logger, the one docs/context.md
 * shows), so its cost includes that logger's creation; at the benchmark's level (warn) pino
 * writes nothing, and a client that asked for no log level gets no notification.
 */
export const logCalls: Middleware = async (ctx, next) => {
  const method = ctx.method;
  const tool = ctx.toolName;
  const startedAt = performance.now();
  const result = await next();
  ctx.log.debug('answered', { method, tool, ms: performance.now() - startedAt });
  return result;
};
