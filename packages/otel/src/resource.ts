import { defaultResource, resourceFromAttributes, type Resource } from '@opentelemetry/resources';

/**
 * The service's resource before detection: the SDK's defaults, then `service.name` from
 * OTEL_SERVICE_NAME or else the server's own name, and its version. What the detectors find
 * (OTEL_RESOURCE_ATTRIBUTES, host, process) is merged over it.
 */
export function baseResource(serviceName: string | undefined, serviceVersion: string | undefined, env: NodeJS.ProcessEnv = process.env): Resource {
  const attributes: Record<string, string> = {};
  const name = env.OTEL_SERVICE_NAME?.trim() || serviceName;
  if (name) attributes['service.name'] = name;
  if (serviceVersion) attributes['service.version'] = serviceVersion;
  return defaultResource().merge(resourceFromAttributes(attributes));
}
