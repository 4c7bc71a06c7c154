import { McpError } from '../../protocol/errors';
import type { MethodHandler } from '../engine';
import { invokeTool } from '../invoke-tool';
import { listPage, objectParam, requireCapability, stringParam } from '../params';

export const listTools: MethodHandler = (params, ctx) => {
  requireCapability(ctx, 'tools');
  return listPage(ctx.session.engine.registry.tools, params, ctx, 'tools');
};

export const callTool: MethodHandler = async (params, ctx) => {
  requireCapability(ctx, 'tools');
  const name = stringParam(params, 'name', 'tools/call');
  const entry = ctx.session.engine.registry.tools.get(name);
  if (!entry) throw McpError.invalidParams(`Unknown tool: ${name}`);
  // A call without `arguments` is a call with none.
  const args = objectParam(params, 'arguments', 'tools/call') ?? {};
  return (await invokeTool(entry, args, ctx)) as unknown as Record<string, unknown>;
};
