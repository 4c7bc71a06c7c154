import { McpError } from '../../../protocol/errors';
import type { Answers, ModernTaskResults } from '../../../handlers/method-types';
import { typeOf } from '../../../context/params';
import { TASKS_EXTENSION } from '../../../tasks/tasks-extension';
import type { ExtensionMethod, ExtensionServer, ExtensionSettings, McpExtension } from '../../../context/extension';

/**
 * tasks/get, tasks/update and tasks/cancel of the tasks extension (2026-07-28), served through the
 * extension API (`tasksExtension` below): they exist only while the server offers the extension
 * (-32601 elsewhere), and answer only requests that declare it (-32021 otherwise, as the extension
 * requires). tasks/result and tasks/list are 2025-11-25's alone: here they are unknown methods.
 */
export const getTask: Answers<ModernTaskResults['tasks/get']> = async (params, ctx) => {
  return await ctx.engine.tasks.modern.getDetailed(params.taskId, ctx.principal);
};

export const updateTask: Answers<ModernTaskResults['tasks/update']> = async (params, ctx) => {
  const responses = params.inputResponses;
  if (responses === null || typeof responses !== 'object' || Array.isArray(responses)) {
    throw McpError.invalidParams(
      `tasks/update: "inputResponses" must be an object mapping input request keys to their results${responses === undefined ? ' and is missing' : `, got ${typeOf(responses)}`}`,
    );
  }
  await ctx.engine.tasks.modern.update(params.taskId, responses as Record<string, unknown>, ctx.principal);
  return {};
};

export const cancelTask: Answers<ModernTaskResults['tasks/cancel']> = async (params, ctx) => {
  await ctx.engine.tasks.modern.cancelAsTask(params.taskId, ctx.principal);
  return {};
};

/** Some tool can run as a task: only then is the extension offered. */
function someToolRunsAsTask(server: ExtensionServer): ExtensionSettings | undefined {
  for (const tool of server.registry.tools.values()) {
    const support = tool.definition.execution?.taskSupport;
    if (support === 'optional' || support === 'required') return {};
  }
  return undefined;
}

/** The tasks extension as the extension API holds it: the proof that an extension needs nothing from core by name. */
export const tasksExtension: McpExtension = {
  id: TASKS_EXTENSION,
  eras: ['modern'],
  settings: someToolRunsAsTask,
  methods: [
    { name: 'tasks/get', handler: getTask as ExtensionMethod['handler'], requiresClientDeclaration: true },
    { name: 'tasks/update', handler: updateTask as ExtensionMethod['handler'], requiresClientDeclaration: true },
    { name: 'tasks/cancel', handler: cancelTask as ExtensionMethod['handler'], requiresClientDeclaration: true },
  ],
};
