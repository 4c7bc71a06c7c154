import { envDetector, hostDetector, processDetector, type ResourceDetector } from '@opentelemetry/resources';

/** The process detector without `process.command_args`: a command line may carry secrets (a Redis URL's password, a token). */
const processWithoutArgs: ResourceDetector = {
  detect(config) {
    const { attributes = {} } = processDetector.detect(config);
    const { ['process.command_args']: _args, ...rest } = attributes;
    return { attributes: rest };
  },
};

/**
 * The resource detectors when OTEL_NODE_RESOURCE_DETECTORS does not choose them: the SDK's defaults
 * (env, process, host), minus the command line; that variable chooses as usual otherwise.
 */
export function defaultDetectors(env: NodeJS.ProcessEnv = process.env): ResourceDetector[] | undefined {
  return env.OTEL_NODE_RESOURCE_DETECTORS?.trim() ? undefined : [envDetector, processWithoutArgs, hostDetector];
}
