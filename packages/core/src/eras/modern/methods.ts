import type { MethodHandler } from '../../context/handler-types';
import { methodMap, type ModernResults } from '../../handlers/method-types';
import { sharedMethods } from '../../handlers/shared-methods';
import { discover } from './handlers/discover';
import { listen } from './handlers/listen';

/** Where a modern (2026-07-28) request is dispatched: every client→server method and its handler. */
export const modernMethods: ReadonlyMap<string, MethodHandler> = methodMap<ModernResults>({
  'server/discover': discover,
  'subscriptions/listen': listen,
  ...sharedMethods,
  // The tasks extension's methods come from the extension API (handlers/tasks.ts, tasksExtension).
});

/** The methods that may answer with an InputRequiredResult (multi round-trip requests). */
export const MRTR_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);
