import { McpError } from '../../../protocol/errors';
import type { RequestContext } from '../../../engine/context';
import type { Answers, ModernResults } from '../../../engine/method-types';
import { typeOf } from '../../../engine/params';
import { TASKS_EXTENSION, declaresTasks, missingTasksExtension, offersTasks } from '../../../tasks/tasks-extension';

/**
 * tasks/get, tasks/update and tasks/cancel of the tasks extension (2026-07-28). They exist only
 * where the server offers the extension (-32601 elsewhere), and answer only requests that declare
 * it (-32021 otherwise, as the extension requires). tasks/result and tasks/list are 2025-11-25's
 * alone: here they are unknown methods.
 */
function requireTasksExtension(ctx: RequestContext): void {
  if (!offersTasks(ctx.env.serverCapabilities)) throw McpError.methodNotFound(ctx.method);
  if (!declaresTasks(ctx.env.clientCapabilities)) {
    throw missingTasksExtension(`${ctx.method} needs the ${TASKS_EXTENSION} extension: declare it in this request's client capabilities`);
  }
}

export const getTask: Answers<ModernResults['tasks/get']> = async (params, ctx) => {
  requireTasksExtension(ctx);
  return (await ctx.engine.tasks.modern.getDetailed(params.taskId, ctx.principal));
};

export const updateTask: Answers<ModernResults['tasks/update']> = async (params, ctx) => {
  requireTasksExtension(ctx);
  const responses = params.inputResponses;
  if (responses === null || typeof responses !== 'object' || Array.isArray(responses)) {
    throw McpError.invalidParams(
      `tasks/update: "inputResponses" must be an object mapping input request keys to their results${responses === undefined ? ' and is missing' : `, got ${typeOf(responses)}`}`,
    );
  }
  await ctx.engine.tasks.modern.update(params.taskId, responses as Record<string, unknown>, ctx.principal);
  return {};
};

export const cancelTask: Answers<ModernResults['tasks/cancel']> = async (params, ctx) => {
  requireTasksExtension(ctx);
  await ctx.engine.tasks.modern.cancelAsTask(params.taskId, ctx.principal);
  return {};
};
