import { McpError } from '../../protocol/errors';
import { toReadResourceResult } from '../../content/normalize';
import type { MethodHandler } from '../handler-types';
import { listPage, requireCapability, requireScopes, stringParam } from '../params';

export const listResources: MethodHandler = (params, ctx) => {
  requireCapability(ctx, 'resources');
  return listPage(ctx.session.engine.registry.resources, params, ctx, 'resources');
};

export const listResourceTemplates: MethodHandler = (params, ctx) => {
  requireCapability(ctx, 'resources');
  return listPage(ctx.session.engine.registry.templates, params, ctx, 'resourceTemplates');
};

/** resources/read: an exact resource first, then the first template that matches the URI. */
export const readResource: MethodHandler = async (params, ctx) => {
  requireCapability(ctx, 'resources');
  const uri = stringParam(params, 'uri', 'resources/read');
  const registry = ctx.session.engine.registry;
  const resource = registry.resources.get(uri);
  if (resource) {
    requireScopes(ctx, resource, `resource ${uri}`);
    const value = await resource.handler(ctx);
    if (value === undefined || value === null) throw McpError.resourceNotFound(uri);
    return toReadResourceResult(value, uri, resource.definition.mimeType) as unknown as Record<string, unknown>;
  }
  const match = registry.matchTemplate(uri);
  if (!match) throw McpError.resourceNotFound(uri);
  requireScopes(ctx, match.entry, `resource ${uri}`);
  const value = await match.entry.handler(match.variables, ctx);
  if (value === undefined || value === null) throw McpError.resourceNotFound(uri);
  return toReadResourceResult(value, uri, match.entry.definition.mimeType) as unknown as Record<string, unknown>;
};

export const subscribe: MethodHandler = (params, ctx) => {
  if (!ctx.session.serverCapabilities.resources?.subscribe) throw McpError.methodNotFound(ctx.method);
  const uri = stringParam(params, 'uri', 'resources/subscribe');
  const entry = ctx.session.engine.registry.entryForUri(uri);
  if (!entry) throw McpError.resourceNotFound(uri);
  requireScopes(ctx, entry, `resource ${uri}`);
  ctx.session.subscriptions.add(uri);
  return {};
};

export const unsubscribe: MethodHandler = (params, ctx) => {
  if (!ctx.session.serverCapabilities.resources?.subscribe) throw McpError.methodNotFound(ctx.method);
  const uri = stringParam(params, 'uri', 'resources/unsubscribe');
  ctx.session.subscriptions.delete(uri);
  return {};
};
