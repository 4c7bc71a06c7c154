import { McpError } from '../protocol/errors';
import { toGetPromptResult } from '../content/normalize';
import { formatIssues } from '../schema/class-validation';
import { checkArgumentLimits } from '../schema/argument-limits';
import type { Answers, SharedResults } from './method-types';
import { objectParam, requireCapability, stringParam } from '../context/params';
import { listPage, visibleEntry } from './list-page';

export const listPrompts: Answers<SharedResults['prompts/list']> = (params, ctx) => {
  requireCapability(ctx, 'prompts');
  return listPage(ctx.engine.registry.prompts, params, ctx, 'prompts');
};

/** prompts/get: unknown prompt or bad arguments are protocol errors (-32602), as the spec lists. */
export const getPrompt: Answers<SharedResults['prompts/get']> = async (params, ctx) => {
  requireCapability(ctx, 'prompts');
  const name = stringParam(params, 'name', 'prompts/get');
  const named = visibleEntry(ctx.engine.registry.prompts.get(name), ctx, `prompt "${name}"`);
  const entry = named instanceof Promise ? await named : named;
  if (!entry) throw McpError.invalidParams(ctx.engine.registry.whyAbsent('prompt', name) ?? `Unknown prompt: ${name}`);
  const args = objectParam(params, 'arguments', 'prompts/get') ?? {};
  const limits = ctx.engine.argumentLimits;
  const excess = checkArgumentLimits(args, limits);
  if (excess) throw McpError.invalidParams(`prompts/get "${name}": ${formatIssues([excess])}`, { issues: [excess] });
  const checked = await entry.validateArguments(args, limits.unknownProperties);
  if (!checked.ok) throw McpError.invalidParams(`prompts/get "${name}": ${formatIssues(checked.issues)}`, { issues: checked.issues.slice(0, 50) });
  const value = await entry.handler(checked.value, ctx);
  return toGetPromptResult(value, entry.definition.description);
};
