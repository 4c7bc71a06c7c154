import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Telemetry } from '@mcpx/core/telemetry';
import { authenticate } from '../auth/guard';
import type { AuthOptions } from '../auth/options';
import { checkHost, checkOrigin, type OriginHostPolicy } from '../guards';
import { sendHttpError } from '../http-errors';
import type { ResolvedMetricsOptions } from '../options';
import { countRefusals } from './refusals';
import { serverUrl } from '../server-url';
import type { OtelHandle } from '@mcpx/core/transport';

/** GET /metrics, once served. */
export interface MetricsEndpoint {
  /** Set when it has a port of its own: where it is. */
  readonly url?: string;
  /** Stops the port of its own (nothing to do next to the endpoint: the endpoint's server stops it). */
  close(): Promise<void>;
}

interface MetricsDeps {
  prometheus: NonNullable<OtelHandle['prometheus']>;
  telemetry: Telemetry;
  auth?: AuthOptions;
  policy: OriginHostPolicy;
  logger: Logger;
}

/**
 * Serves the Prometheus text exposition at `options.path`: on `app` (the endpoint's server, under
 * its Origin and Host checks), or on a server of its own when `options.port` is set. Scraping
 * needs no token unless `options.auth`.
 */
export async function serveMetrics(app: FastifyInstance, options: ResolvedMetricsOptions, deps: MetricsDeps): Promise<MetricsEndpoint> {
  const auth = options.auth ? deps.auth : undefined;
  const { prometheus } = deps;
  const scrape = async (request: FastifyRequest, reply: FastifyReply) => {
    if (auth && !(await authenticate(request, reply, auth))) return reply;
    const text = await prometheus.scrape();
    return reply.code(200).header('content-type', prometheus.contentType).send(text);
  };
  // Its refusals (a missing token, a foreign Origin) are counted as the endpoint's are.
  const route = { config: { countRefusals: true } };
  if (options.port === undefined) {
    app.get(options.path, route, scrape);
    return { close: async () => undefined };
  }

  const own = Fastify({ loggerInstance: deps.logger as FastifyBaseLogger, logController: new LogController({ disableRequestLogging: true }), forceCloseConnections: true });
  // The same DNS-rebinding protection as the endpoint: a page must not read the metrics through a rebound name.
  own.addHook('onRequest', (request, reply, done) => {
    const refused = checkOrigin(request, deps.policy) ?? checkHost(request, deps.policy);
    if (refused) {
      sendHttpError(reply, 403, refused);
      return;
    }
    done();
  });
  countRefusals(own, deps.telemetry);
  own.get(options.path, route, scrape);
  await own.listen({ host: options.host, port: options.port });
  const address = own.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return { url: serverUrl(options.host, port, options.path), close: () => own.close() };
}
