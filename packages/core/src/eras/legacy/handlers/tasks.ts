import type { MethodHandler } from '../../../engine/handler-types';
import { optionalString, requireCapability } from '../../../engine/params';

/** tasks/get, tasks/result, tasks/list, tasks/cancel: each sees only the caller's own tasks. */

export const getTask: MethodHandler = async (params, ctx) => {
  requireCapability(ctx, 'tasks');
  return (await ctx.engine.tasks.get(params.taskId as string, ctx.session!)) as unknown as Record<string, unknown>;
};

export const taskResult: MethodHandler = async (params, ctx) => {
  requireCapability(ctx, 'tasks');
  return ctx.engine.tasks.result(params.taskId as string, ctx);
};

export const listTasks: MethodHandler = async (params, ctx) => {
  requireCapability(ctx, 'tasks');
  const engine = ctx.engine;
  return (await engine.tasks.list(ctx.session!, optionalString(params, 'cursor', 'tasks/list'), engine.options.pageSize)) as unknown as Record<string, unknown>;
};

export const cancelTask: MethodHandler = async (params, ctx) => {
  requireCapability(ctx, 'tasks');
  return (await ctx.engine.tasks.cancel(params.taskId as string, ctx.session!)) as unknown as Record<string, unknown>;
};
