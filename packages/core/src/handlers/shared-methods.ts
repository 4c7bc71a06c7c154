import type { MethodTable, SharedResults } from './method-types';
import { complete } from './completion';
import { getPrompt, listPrompts } from './prompts';
import { listResourceTemplates, listResources, readResource } from './resources';
import { callTool, listTools } from './tools';

/**
 * The methods both protocol eras share, with era-neutral handlers: they read the client through
 * `ctx.env` and never a session. Each era's table (eras/legacy/methods.ts, eras/modern/methods.ts)
 * adds its own methods to these.
 */
export const sharedMethods: MethodTable<SharedResults> = {
  'tools/list': listTools,
  'tools/call': callTool,
  'resources/list': listResources,
  'resources/templates/list': listResourceTemplates,
  'resources/read': readResource,
  'prompts/list': listPrompts,
  'prompts/get': getPrompt,
  'completion/complete': complete,
};
