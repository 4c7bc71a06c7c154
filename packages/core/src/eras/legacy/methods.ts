import type { MethodHandler } from '../../context/handler-types';
import { methodMap, type LegacyResults } from '../../handlers/method-types';
import { sharedMethods } from '../../handlers/shared-methods';
import { initialize, ping } from './handlers/initialize';
import { setLevel } from './handlers/set-level';
import { subscribe, unsubscribe } from './handlers/subscriptions';
import { cancelTask, getTask, listTasks, taskResult } from './handlers/tasks';

/** Where a legacy (2025-11-25 and earlier) request is dispatched: every client→server method and its handler. */
export const legacyMethods: ReadonlyMap<string, MethodHandler> = methodMap<LegacyResults>({
  initialize,
  ping,
  'logging/setLevel': setLevel,
  ...sharedMethods,
  'resources/subscribe': subscribe,
  'resources/unsubscribe': unsubscribe,
  'tasks/get': getTask,
  'tasks/result': taskResult,
  'tasks/list': listTasks,
  'tasks/cancel': cancelTask,
});
