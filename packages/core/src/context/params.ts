import { McpError } from '../protocol/errors';
import type { ServerCapabilities } from '../protocol/types';
import type { RequestContext } from './request-context';

/** Small, allocation-free checks for request params; each failure is a -32602 that says what was wrong. */

export function stringParam(params: Record<string, unknown>, name: string, method: string): string {
  const value = params[name];
  if (typeof value !== 'string') {
    throw McpError.invalidParams(`${method}: "${name}" must be a string${value === undefined ? ' and is missing' : `, got ${typeOf(value)}`}`);
  }
  return value;
}

export function optionalString(params: Record<string, unknown>, name: string, method: string): string | undefined {
  return params[name] === undefined ? undefined : stringParam(params, name, method);
}

export function objectParam(params: Record<string, unknown>, name: string, method: string): Record<string, unknown> | undefined {
  const value = params[name];
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw McpError.invalidParams(`${method}: "${name}" must be an object, got ${typeOf(value)}`);
  }
  return value as Record<string, unknown>;
}

export function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Methods of a capability the server did not declare answer -32601, as if they did not exist. */
export function requireCapability(ctx: RequestContext, capability: keyof ServerCapabilities): void {
  if (!ctx.env.serverCapabilities[capability]) throw McpError.methodNotFound(ctx.method);
}
