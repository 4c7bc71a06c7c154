import type { MethodHandler } from '../handler-types';
import { optionalString, requireCapability } from '../params';

/** tasks/get, tasks/result, tasks/list, tasks/cancel: each sees only the caller's own tasks. */

export const getTask: MethodHandler = async (params, ctx) => {
  requireCapability(ctx, 'tasks');
  return (await ctx.session.engine.tasks.get(params.taskId as string, ctx.session)) as unknown as Record<string, unknown>;
};

export const taskResult: MethodHandler = async (params, ctx) => {
  requireCapability(ctx, 'tasks');
  return ctx.session.engine.tasks.result(params.taskId as string, ctx);
};

export const listTasks: MethodHandler = async (params, ctx) => {
  requireCapability(ctx, 'tasks');
  const engine = ctx.session.engine;
  return (await engine.tasks.list(ctx.session, optionalString(params, 'cursor', 'tasks/list'), engine.options.pageSize)) as unknown as Record<string, unknown>;
};

export const cancelTask: MethodHandler = async (params, ctx) => {
  requireCapability(ctx, 'tasks');
  return (await ctx.session.engine.tasks.cancel(params.taskId as string, ctx.session)) as unknown as Record<string, unknown>;
};
