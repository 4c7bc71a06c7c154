import { McpxError } from '@mcpx/core';

/** A gateway that cannot start as configured (a CONFIG file, an upstream entry). */
export class ProxyError extends McpxError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('MCPX_PROXY', message, options);
  }
}
