import type { MethodHandler } from './handler-types';
import { complete } from './handlers/completion';
import { initialize, ping } from './handlers/lifecycle';
import { setLevel } from './handlers/logging';
import { getPrompt, listPrompts } from './handlers/prompts';
import { listResourceTemplates, listResources, readResource, subscribe, unsubscribe } from './handlers/resources';
import { cancelTask, getTask, listTasks, taskResult } from './handlers/tasks';
import { callTool, listTools } from './handlers/tools';

/** Where a request is dispatched: every client→server method of 2025-11-25 and its handler. */
export const methodTable: ReadonlyMap<string, MethodHandler> = new Map<string, MethodHandler>([
  ['initialize', initialize],
  ['ping', ping],
  ['logging/setLevel', setLevel],
  ['tools/list', listTools],
  ['tools/call', callTool],
  ['resources/list', listResources],
  ['resources/templates/list', listResourceTemplates],
  ['resources/read', readResource],
  ['resources/subscribe', subscribe],
  ['resources/unsubscribe', unsubscribe],
  ['prompts/list', listPrompts],
  ['prompts/get', getPrompt],
  ['completion/complete', complete],
  ['tasks/get', getTask],
  ['tasks/result', taskResult],
  ['tasks/list', listTasks],
  ['tasks/cancel', cancelTask],
]);
