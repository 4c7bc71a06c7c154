import type { Answers, DiscoverResult, ModernResults } from '../../../handlers/method-types';
import { ALL_PROTOCOL_VERSIONS } from '../../../protocol/versions';

/** server/discover: the versions this server serves (both eras), what it offers modern clients, and its instructions. */
export const discover: Answers<ModernResults['server/discover']> = (_params, ctx) => {
  const engine = ctx.engine;
  const result: DiscoverResult = { supportedVersions: [...ALL_PROTOCOL_VERSIONS], capabilities: ctx.env.serverCapabilities };
  if (engine.instructions !== undefined) result.instructions = engine.instructions;
  return result;
};
