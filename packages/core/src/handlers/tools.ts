import { ErrorCode, McpError } from '../protocol/errors';
import type { Answers, SharedResults } from './method-types';
import { invokeTool } from '../pipeline/invoke-tool';
import type { ToolEntry } from '../registry/entry-types';
import type { RequestContext } from '../context/request-context';
import type { Tool } from '../protocol/types';
import { objectParam, requireCapability, stringParam } from '../context/params';
import { listPage, visibleEntries, visibleEntry } from './list-page';
import { SEARCH_TOOL, callSearch, searchApplies, searchListing } from './tool-search';
import { supportsApps, withoutUi } from '../apps/tool-ui';
import { TASKS_EXTENSION, declaresTasks, missingTasksExtension, offersTasks } from '../tasks/tasks-extension';

export const listTools: Answers<SharedResults['tools/list']> = (params, ctx) => {
  requireCapability(ctx, 'tools');
  const view = viewOf(ctx);
  if (ctx.engine.registry.toolSearch) return searchOrPage(params, ctx, view ?? definitionOf);
  return listPage(ctx.engine.registry.tools, params, ctx, 'tools', view);
};

const definitionOf = (entry: ToolEntry): Tool => entry.definition;

/**
 * How this caller sees tool definitions: execution.taskSupport promises tasks, so a session offered
 * none (stateless HTTP) is not told of them; a client that renders no app views gets no UI metadata.
 */
function viewOf(ctx: Parameters<typeof listPage>[2]): ((entry: ToolEntry) => Tool) | undefined {
  const tasks = ctx.env.serverCapabilities.tasks !== undefined;
  if (supportsApps(ctx.clientCapabilities)) return tasks ? undefined : withoutTaskSupport;
  return tasks ? withoutUiView : withoutTasksOrUi;
}

/** With `toolSearch`: a caller who may see more tools than the threshold gets the pinned ones and search_tools. */
async function searchOrPage(params: Record<string, unknown>, ctx: Parameters<typeof listPage>[2], view: (entry: ToolEntry) => Tool) {
  const visible = await visibleEntries(ctx.engine.registry.tools, ctx);
  if (searchApplies(ctx, visible.length)) return searchListing(visible, ctx, view);
  return await listPage(ctx.engine.registry.tools, params, ctx, 'tools', view);
}

/** Each view's copy of a definition, made once per entry; a definition with nothing to drop is its own view. */
function cachedView(make: (definition: Tool) => Tool): (entry: ToolEntry) => Tool {
  const copies = new WeakMap<ToolEntry, Tool>();
  return (entry) => {
    if (!entry.definition._meta && !entry.definition.execution) return entry.definition;
    let copy = copies.get(entry);
    if (!copy) copies.set(entry, (copy = make(entry.definition)));
    return copy;
  };
}

const withoutTaskSupport = cachedView(untasked);
const withoutUiView = cachedView(withoutUi);
const withoutTasksOrUi = cachedView((definition) => withoutUi(untasked(definition)));

function untasked(definition: Tool): Tool {
  if (!definition.execution) return definition;
  const { execution, ...rest } = definition;
  const { taskSupport: _ignored, ...otherExecution } = execution;
  return Object.keys(otherExecution).length > 0 ? { ...rest, execution: otherExecution } : rest;
}

// Not async: a call whose tool and arguments answer at once is answered at once (errors are thrown
// as they are; the era's invoke catches them either way).
export const callTool: Answers<SharedResults['tools/call']> = (params, ctx) => {
  requireCapability(ctx, 'tools');
  const name = stringParam(params, 'name', 'tools/call');
  if (name === SEARCH_TOOL && ctx.engine.registry.toolSearch && !ctx.engine.registry.tools.has(SEARCH_TOOL)) {
    return callSearch(objectParam(params, 'arguments', 'tools/call') ?? {}, ctx, viewOf(ctx) ?? definitionOf);
  }
  const named = visibleEntry(ctx.engine.registry.tools.get(name), ctx, `tool "${name}"`);
  // Only an entry with a rule answers with a promise: the others cost no await.
  return named instanceof Promise ? named.then((entry) => callEntry(entry, name, params, ctx)) : callEntry(named, name, params, ctx);
};

function callEntry(entry: ToolEntry | undefined, name: string, params: Record<string, unknown>, ctx: RequestContext): ReturnType<typeof callTool> {
  if (!entry) throw McpError.invalidParams(ctx.engine.registry.whyAbsent('tool', name) ?? `Unknown tool: ${name}`);
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
    return invokeTool(entry, args, ctx);
  }
  // Task augmentation (2025-11-25), when this server offers tasks at all (otherwise the field is ignored, as the spec says).
  if (ctx.env.serverCapabilities.tasks) {
    const task = objectParam(params, 'task', 'tools/call');
    const support = entry.definition.execution?.taskSupport ?? 'forbidden';
    if (task && support === 'forbidden') throw new McpError(ErrorCode.MethodNotFound, `Tool "${name}" does not support running as a task`);
    if (!task && support === 'required') throw new McpError(ErrorCode.MethodNotFound, `Tool "${name}" must be called as a task (execution.taskSupport is "required")`);
    if (task) return ctx.engine.tasks.legacy.start(entry, args, ctx, task);
  }
  return invokeTool(entry, args, ctx);
}
