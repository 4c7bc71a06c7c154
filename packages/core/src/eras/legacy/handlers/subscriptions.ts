import { McpError } from '../../../protocol/errors';
import type { Answers, LegacyResults } from '../../../handlers/method-types';
import { stringParam } from '../../../context/params';
import { visibleEntry } from '../../../handlers/list-page';

/** resources/subscribe and resources/unsubscribe: a legacy session's subscriptions (2026-07-28 has subscriptions/listen). */

export const subscribe: Answers<LegacyResults['resources/subscribe']> = async (params, ctx) => {
  if (!ctx.env.serverCapabilities.resources?.subscribe) throw McpError.methodNotFound(ctx.method);
  const uri = stringParam(params, 'uri', 'resources/subscribe');
  // A resource hidden from this caller is not found, and one with a rule is scope-checked only once it is visible.
  const named = visibleEntry(ctx.engine.registry.entryForUri(uri), ctx, `resource ${uri}`);
  if (!(named instanceof Promise ? await named : named)) throw McpError.resourceNotFound(uri);
  await ctx.session!.setSubscribed(uri, true);
  return {};
};

export const unsubscribe: Answers<LegacyResults['resources/unsubscribe']> = async (params, ctx) => {
  if (!ctx.env.serverCapabilities.resources?.subscribe) throw McpError.methodNotFound(ctx.method);
  const uri = stringParam(params, 'uri', 'resources/unsubscribe');
  await ctx.session!.setSubscribed(uri, false);
  return {};
};
