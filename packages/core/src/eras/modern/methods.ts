import type { MethodHandler } from '../../engine/handler-types';
import { sharedMethods } from '../../engine/methods';
import { discover } from './handlers/discover';

/** Where a modern (2026-07-28) request is dispatched: every client→server method and its handler. */
export const modernMethods: ReadonlyMap<string, MethodHandler> = new Map<string, MethodHandler>([['server/discover', discover], ...sharedMethods]);

/** The methods that may answer with an InputRequiredResult (multi round-trip requests). */
export const MRTR_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);
