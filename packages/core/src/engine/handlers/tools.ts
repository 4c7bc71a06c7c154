import { ErrorCode, McpError } from '../../protocol/errors';
import type { MethodHandler } from '../engine';
import { invokeTool } from '../invoke-tool';
import { listPage, objectParam, requireCapability, requireScopes, stringParam } from '../params';

export const listTools: MethodHandler = (params, ctx) => {
  requireCapability(ctx, 'tools');
  return listPage(ctx.session.engine.registry.tools, params, ctx, 'tools');
};

export const callTool: MethodHandler = async (params, ctx) => {
  requireCapability(ctx, 'tools');
  const name = stringParam(params, 'name', 'tools/call');
  const entry = ctx.session.engine.registry.tools.get(name);
  if (!entry) throw McpError.invalidParams(`Unknown tool: ${name}`);
  requireScopes(ctx, entry, `tool "${name}"`);
  // A call without `arguments` is a call with none.
  const args = objectParam(params, 'arguments', 'tools/call') ?? {};
  // Task augmentation, when this server offers tasks at all (otherwise the field is ignored, as the spec says).
  if (ctx.session.serverCapabilities.tasks) {
    const task = objectParam(params, 'task', 'tools/call');
    const support = entry.definition.execution?.taskSupport ?? 'forbidden';
    if (task && support === 'forbidden') throw new McpError(ErrorCode.MethodNotFound, `Tool "${name}" does not support running as a task`);
    if (!task && support === 'required') throw new McpError(ErrorCode.MethodNotFound, `Tool "${name}" must be called as a task (execution.taskSupport is "required")`);
    if (task) return (await ctx.session.engine.tasks.start(entry, args, ctx, task)) as unknown as Record<string, unknown>;
  }
  return (await invokeTool(entry, args, ctx)) as unknown as Record<string, unknown>;
};
