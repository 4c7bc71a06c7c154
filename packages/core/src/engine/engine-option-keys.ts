import type { EngineOptions } from './engine';
import { optionKeys } from '../metadata/check-options';

/**
 * Every key of EngineOptions (ModernOptions' included), for the transports to check their options
 * against: each takes these and its own. optionKeys makes a key added to EngineOptions and not
 * listed here a compile error.
 */
export const ENGINE_OPTION_KEYS = optionKeys<EngineOptions>()(
  'requestStateKey',
  'requestStateTtlMs',
  'cache',
  'middleware',
  'extensions',
  'skills',
  'logger',
  'logLevel',
  'debugMessageBytes',
  'pageSize',
  'clientLogLevel',
  'argumentLimits',
  'messageLimits',
  'maxRequestsInFlight',
  'maxTasksPerPrincipal',
  'clientRequestTimeoutMs',
  'taskStore',
  'rateLimitStore',
  'cluster',
  'tasks',
  'capabilities',
  'listOnlyPermitted',
  'includeTags',
  'excludeTags',
  'strictDefinitions',
  'maskErrors',
);
