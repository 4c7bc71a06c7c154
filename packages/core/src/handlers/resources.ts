import { ErrorCode, McpError } from '../protocol/errors';
import { toReadResourceResult } from '../content/normalize';
import type { Answers, SharedResults } from './method-types';
import { requireCapability, stringParam } from '../context/params';
import { listPage, visibleEntry } from './list-page';

export const listResources: Answers<SharedResults['resources/list']> = (params, ctx) => {
  requireCapability(ctx, 'resources');
  return listPage(ctx.engine.registry.resources, params, ctx, 'resources');
};

export const listResourceTemplates: Answers<SharedResults['resources/templates/list']> = (params, ctx) => {
  requireCapability(ctx, 'resources');
  return listPage(ctx.engine.registry.templates, params, ctx, 'resourceTemplates');
};

/** resources/read: an exact resource first, then the first template that matches the URI. */
export const readResource: Answers<SharedResults['resources/read']> = async (params, ctx) => {
  requireCapability(ctx, 'resources');
  const uri = stringParam(params, 'uri', 'resources/read');
  const registry = ctx.engine.registry;
  const found = visibleEntry(registry.resources.get(uri), ctx, `resource ${uri}`);
  const resource = found instanceof Promise ? await found : found;
  if (resource) {
    // Before the handler runs, so the handler may still set its own (modern results only carry them).
    if (resource.cache) ctx.cacheHint = resource.cache;
    const value = await resource.handler(ctx);
    if (value === undefined || value === null) throw McpError.resourceNotFound(uri);
    return toReadResourceResult(value, uri, resource.definition.mimeType);
  }
  const match = registry.matchTemplate(uri);
  const template = match && visibleEntry(match.entry, ctx, `resource ${uri}`);
  if (!match || !(template instanceof Promise ? await template : template)) {
    const why = registry.whyAbsent('resource', uri);
    throw why ? new McpError(ErrorCode.ResourceNotFound, why, { uri }) : McpError.resourceNotFound(uri);
  }
  if (match.entry.cache) ctx.cacheHint = match.entry.cache;
  const value = await match.entry.handler(match.variables, ctx);
  if (value === undefined || value === null) throw McpError.resourceNotFound(uri);
  return toReadResourceResult(value, uri, match.entry.definition.mimeType);
};
