import { McpError } from '../../../protocol/errors';
import type { Answers, LegacyResults } from '../../../handlers/method-types';
import { LOGGING_LEVELS, isLoggingLevel } from '../../../protocol/log-levels';
import { requireCapability } from '../../../context/params';

/** logging/setLevel: the session's threshold for notifications/message from then on. */
export const setLevel: Answers<LegacyResults['logging/setLevel']> = async (params, ctx) => {
  requireCapability(ctx, 'logging');
  const level = params.level;
  if (!isLoggingLevel(level)) {
    throw McpError.invalidParams(`logging/setLevel: "level" must be one of ${LOGGING_LEVELS.join(', ')}, got ${JSON.stringify(level)}`);
  }
  await ctx.session!.setLogLevel(level);
  return {};
};
