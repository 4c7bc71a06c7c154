import { ErrorCode, McpError } from '../protocol/errors';
import type { Answers, SharedResults } from './method-types';
import { invokeTool } from '../pipeline/invoke-tool';
import type { ToolEntry } from '../registry/entry-types';
import type { Tool } from '../protocol/types';
import { objectParam, requireCapability, stringParam } from '../context/params';
import { listPage, visibleEntry } from './list-page';
import { TASKS_EXTENSION, declaresTasks, missingTasksExtension, offersTasks } from '../tasks/tasks-extension';

export const listTools: Answers<SharedResults['tools/list']> = (params, ctx) => {
  requireCapability(ctx, 'tools');
  // execution.taskSupport promises tasks: a session offered none (stateless HTTP) is not told of them.
  const view = ctx.env.serverCapabilities.tasks ? undefined : withoutTaskSupport;
  return listPage(ctx.engine.registry.tools, params, ctx, 'tools', view);
};

const untasked = new WeakMap<ToolEntry, Tool>();
function withoutTaskSupport(entry: ToolEntry): Tool {
  const definition = entry.definition;
  if (!definition.execution) return definition;
  let copy = untasked.get(entry);
  if (!copy) {
    const { execution, ...rest } = definition;
    const { taskSupport: _ignored, ...otherExecution } = execution;
    copy = Object.keys(otherExecution).length > 0 ? { ...rest, execution: otherExecution } : rest;
    untasked.set(entry, copy);
  }
  return copy;
}

export const callTool: Answers<SharedResults['tools/call']> = async (params, ctx) => {
  requireCapability(ctx, 'tools');
  const name = stringParam(params, 'name', 'tools/call');
  const named = visibleEntry(ctx.engine.registry.tools.get(name), ctx, `tool "${name}"`);
  // Only an entry with a rule answers with a promise: the others cost no await.
  const entry = named instanceof Promise ? await named : named;
  if (!entry) throw McpError.invalidParams(`Unknown tool: ${name}`);
  // A call without `arguments` is a call with none.
  const args = objectParam(params, 'arguments', 'tools/call') ?? {};
  // 2026-07-28: the tasks extension. The server decides when a call becomes a task; `params.task` means nothing.
  if (ctx.env.era === 'modern') {
    const support = entry.definition.execution?.taskSupport;
    if ((support === 'optional' || support === 'required') && offersTasks(ctx.env.serverCapabilities)) {
      if (declaresTasks(ctx.env.clientCapabilities)) return ctx.engine.tasks.modern.callAsTask(entry, args, ctx);
      if (support === 'required') {
        throw missingTasksExtension(`Tool "${name}" runs only as a task: declare the ${TASKS_EXTENSION} extension in this request's client capabilities`);
      }
    }
    return await invokeTool(entry, args, ctx);
  }
  // Task augmentation (2025-11-25), when this server offers tasks at all (otherwise the field is ignored, as the spec says).
  if (ctx.env.serverCapabilities.tasks) {
    const task = objectParam(params, 'task', 'tools/call');
    const support = entry.definition.execution?.taskSupport ?? 'forbidden';
    if (task && support === 'forbidden') throw new McpError(ErrorCode.MethodNotFound, `Tool "${name}" does not support running as a task`);
    if (!task && support === 'required') throw new McpError(ErrorCode.MethodNotFound, `Tool "${name}" must be called as a task (execution.taskSupport is "required")`);
    if (task) return await ctx.engine.tasks.legacy.start(entry, args, ctx, task);
  }
  return await invokeTool(entry, args, ctx);
};
