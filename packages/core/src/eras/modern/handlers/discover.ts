import type { MethodHandler } from '../../../engine/handler-types';
import { ALL_PROTOCOL_VERSIONS } from '../../../protocol/versions';

/** server/discover: the versions this server serves (both eras), what it offers modern clients, and its instructions. */
export const discover: MethodHandler = (_params, ctx) => {
  const engine = ctx.engine;
  const result: Record<string, unknown> = { supportedVersions: [...ALL_PROTOCOL_VERSIONS], capabilities: ctx.env.serverCapabilities };
  if (engine.instructions !== undefined) result.instructions = engine.instructions;
  return result;
};
