import { NodeSDK } from '@opentelemetry/sdk-node';
import type { Resource } from '@opentelemetry/resources';
import type { IMetricReader } from '@opentelemetry/sdk-metrics';
import { defaultDetectors } from './detectors';
import { metricReadersFromEnv } from './env-metric-readers';
import { withoutLogLevel } from './stderr-diag';

/**
 * Starts the OpenTelemetry Node SDK as the OTEL_* variables configure it (exporters, protocol,
 * endpoints, intervals, sampler, propagators, resource detectors), without instrumentations, and
 * registers its providers, propagator and context manager globally. `prometheus`, when given, is one
 * more metric reader on the SDK's MeterProvider.
 */
export function startNodeSdk(resource: Resource, prometheus: IMetricReader | undefined): NodeSDK {
  const resourceDetectors = defaultDetectors();
  const sdk = withoutLogLevel(
    () =>
      new NodeSDK({
        resource,
        instrumentations: [],
        ...(resourceDetectors ? { resourceDetectors } : {}),
        ...(prometheus ? { metricReaders: [...metricReadersFromEnv(), prometheus] } : {}),
      }),
  );
  sdk.start();
  return sdk;
}
