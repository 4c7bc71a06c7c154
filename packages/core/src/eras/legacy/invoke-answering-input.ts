import type { RequestContext } from '../../context/request-context';
import type { MethodHandler } from '../../context/handler-types';
import { answerInputRounds } from '../../context/input-rounds';
import { InputRequired } from '../../protocol/input-required';
import { MRTR_METHODS } from '../modern/methods';

/**
 * Runs a handler the legacy era's way: an InputRequired it throws (in a method that may ask) is
 * answered by input rounds on the call's stream. A handler that answers at once is answered at once.
 */
export function invokeAnsweringInput(handler: MethodHandler, params: Record<string, unknown>, ctx: RequestContext): Record<string, unknown> | Promise<Record<string, unknown>> {
  let result: Record<string, unknown> | Promise<Record<string, unknown>>;
  try {
    result = handler(params, ctx);
  } catch (err) {
    return afterFirstRun(err, handler, params, ctx);
  }
  return result instanceof Promise ? result.catch((err: unknown) => afterFirstRun(err, handler, params, ctx)) : result;
}

function afterFirstRun(err: unknown, handler: MethodHandler, params: Record<string, unknown>, ctx: RequestContext): Promise<Record<string, unknown>> {
  // Only a handler that asks the client (the lower-level form) pays for the rounds.
  if (!(err instanceof InputRequired) || !MRTR_METHODS.has(ctx.method)) throw err;
  return answerInputRounds(handler, params, ctx, err);
}
