import type { Answers, LegacyResults } from '../../../handlers/method-types';
import { optionalString, requireCapability } from '../../../context/params';

/** tasks/get, tasks/result, tasks/list, tasks/cancel: each sees only the caller's own tasks. */

export const getTask: Answers<LegacyResults['tasks/get']> = async (params, ctx) => {
  requireCapability(ctx, 'tasks');
  return await ctx.engine.tasks.legacy.get(params.taskId as string, ctx.session!);
};

export const taskResult: Answers<LegacyResults['tasks/result']> = async (params, ctx) => {
  requireCapability(ctx, 'tasks');
  return ctx.engine.tasks.legacy.result(params.taskId as string, ctx);
};

export const listTasks: Answers<LegacyResults['tasks/list']> = async (params, ctx) => {
  requireCapability(ctx, 'tasks');
  const engine = ctx.engine;
  return await engine.tasks.legacy.list(ctx.session!, optionalString(params, 'cursor', 'tasks/list'), engine.options.pageSize);
};

export const cancelTask: Answers<LegacyResults['tasks/cancel']> = async (params, ctx) => {
  requireCapability(ctx, 'tasks');
  return await ctx.engine.tasks.legacy.cancel(params.taskId as string, ctx.session!);
};
