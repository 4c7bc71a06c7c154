import { missingScopes } from '../../../auth/principal';
import { isVisibleTo } from '../../../registry/entry-visibility';
import type { RequestContext } from '../../../context/request-context';
import type { Answers, ModernResults } from '../../../handlers/method-types';
import { objectParam, typeOf } from '../../../context/params';
import { McpError } from '../../../protocol/errors';
import { META } from '../meta';
import type { SubscriptionFilter } from '../subscriptions';

const METHOD = 'subscriptions/listen';

/** The most resource URIs one stream may subscribe to: each is held, and indexed, for as long as the stream is open. */
export const MAX_RESOURCE_SUBSCRIPTIONS = 1000;

const LIST_FLAGS = ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const;

/**
 * subscriptions/listen (2026-07-28): opens a notification stream on the request's own channel.
 * The acknowledgment (what is honoured) comes first; then list changes and resource updates the
 * client opted in to, each tagged with the request id as the subscription id; the request stays
 * open until the client cancels it (no response) or the server ends it (a complete result).
 */
export const listen: Answers<ModernResults['subscriptions/listen']> = async (params, ctx) => {
  const requested = readFilter(params);
  const honoured = await honouredSubset(requested, ctx);
  const ended = await ctx.engine.subscriptions.open(ctx.requestId, honoured, ctx.channel, ctx.signal);
  // Cancelled by the client: the dispatcher sends nothing for an aborted request, whatever this returns.
  return ended === 'server' ? { _meta: { [META.subscriptionId]: ctx.requestId } } : {};
};

/** The filter as sent, checked field by field; unknown fields are ignored (extensions add their own). */
function readFilter(params: Record<string, unknown>): SubscriptionFilter {
  const notifications = objectParam(params, 'notifications', METHOD);
  if (!notifications) throw McpError.invalidParams(`${METHOD}: "notifications" must be an object and is missing`);
  const filter: SubscriptionFilter = {};
  for (const flag of LIST_FLAGS) {
    const value = notifications[flag];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') throw McpError.invalidParams(`${METHOD}: "notifications.${flag}" must be a boolean, got ${typeOf(value)}`);
    filter[flag] = value;
  }
  const uris = notifications.resourceSubscriptions;
  if (uris !== undefined) {
    if (!Array.isArray(uris)) throw McpError.invalidParams(`${METHOD}: "notifications.resourceSubscriptions" must be an array of URI strings, got ${typeOf(uris)}`);
    if (uris.length > MAX_RESOURCE_SUBSCRIPTIONS) {
      throw McpError.invalidParams(`${METHOD}: "notifications.resourceSubscriptions" lists ${uris.length} URIs; at most ${MAX_RESOURCE_SUBSCRIPTIONS} are accepted on one stream`, {
        limit: 'resourceSubscriptions',
        max: MAX_RESOURCE_SUBSCRIPTIONS,
      });
    }
    uris.forEach((uri, i) => {
      if (typeof uri !== 'string') throw McpError.invalidParams(`${METHOD}: "notifications.resourceSubscriptions[${i}]" must be a string, got ${typeOf(uri)}`);
    });
    filter.resourceSubscriptions = uris as string[];
  }
  return filter;
}

/**
 * What the server agrees to deliver: a list's changes only where it offers that list's
 * `listChanged`, and updates only for URIs that name a resource (or match a template) the caller's
 * principal may read. Everything else is left out of the acknowledgment, unknown and forbidden URIs
 * alike, so the answer does not tell which resources exist.
 */
async function honouredSubset(requested: SubscriptionFilter, ctx: RequestContext): Promise<SubscriptionFilter> {
  const offered = ctx.env.serverCapabilities;
  const honoured: SubscriptionFilter = {};
  if (requested.toolsListChanged && offered.tools?.listChanged) honoured.toolsListChanged = true;
  if (requested.promptsListChanged && offered.prompts?.listChanged) honoured.promptsListChanged = true;
  if (requested.resourcesListChanged && offered.resources?.listChanged) honoured.resourcesListChanged = true;
  if (requested.resourceSubscriptions && offered.resources?.subscribe) {
    const registry = ctx.engine.registry;
    const uris = new Set<string>();
    for (const uri of requested.resourceSubscriptions) {
      const entry = registry.entryForUri(uri);
      if (!entry || missingScopes(ctx.principal, entry.scopes).length > 0) continue;
      // A resource hidden from this caller (server tags, its visible rule) is left out like an unknown one.
      const visible = isVisibleTo(entry, registry.tagFilter, ctx);
      if (visible instanceof Promise ? await visible : visible) uris.add(uri);
    }
    if (uris.size > 0) honoured.resourceSubscriptions = [...uris];
  }
  return honoured;
}
