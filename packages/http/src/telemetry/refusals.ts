import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Telemetry } from '@mcpx/core/telemetry';

// The route options mcpx marks its routes with. Declared, so that an application whose plugins add
// their own route config (which makes the interface non-empty) still type-checks mcpx's routes.
declare module 'fastify' {
  interface FastifyContextConfig {
    mcp?: boolean;
    countRefusals?: boolean;
  }
}

/**
 * Counts the HTTP layer's refusals (`mcpx.refusal.count`) once per exchange, from the status it
 * ended with: 401 and 403 are `auth`, 413 and 429 are the limits behind them, any other 4xx is
 * `http`. Only the routes marked `config.mcp` (the endpoint) or `config.countRefusals` are
 * counted, whichever hook or handler refused. A JSON-RPC error the engine answers with 200
 * (-32004 among them, which the engine counts itself) is no HTTP refusal. The endpoint calls it
 * from its one onResponse hook.
 */
export function refusalCounter(telemetry: Telemetry): (request: FastifyRequest, reply: FastifyReply) => void {
  return (request, reply) => {
    const status = reply.statusCode;
    if (((status >= 400 && status < 500) || (status === 503 && reply.hasHeader('ratelimit-policy'))) && isCounted(request)) countRefusal(telemetry, status, reply);
  };
}

/** The limit a 429 answered for, when not `maxRequestsInFlight` (an in-flight scope with its own bound: `maxListenStreams`). */
const otherLimits = new WeakMap<FastifyReply, string>();

/** Names the limit of an in-flight refusal about to be answered with 429, so that it is counted under it. */
export function noteInFlightLimit(reply: FastifyReply, limit: string): void {
  if (limit !== 'maxRequestsInFlight') otherLimits.set(reply, limit);
}

/** The same as a hook of its own, for an instance the endpoint has no hook on (the metrics port). */
export function countRefusals(app: FastifyInstance, telemetry: Telemetry): void {
  const count = refusalCounter(telemetry);
  app.addHook('onResponse', (request, reply, done) => {
    count(request, reply);
    done();
  });
}

function isCounted(request: FastifyRequest): boolean {
  const config = request.routeOptions.config as { mcp?: boolean; countRefusals?: boolean } | undefined;
  return config?.mcp === true || config?.countRefusals === true;
}

function countRefusal(telemetry: Telemetry, status: number, reply: FastifyReply): void {
  switch (status) {
    case 401:
    case 403:
      return telemetry.refused('auth', { status });
    case 413:
      return telemetry.refused('limit', { status, limit: 'maxBodyBytes' });
    case 429:
    case 503: {
      // A rate limit's refusal names its limit in RateLimit-Policy; a 503 without one is no limit's.
      const policy = reply.getHeader('ratelimit-policy');
      const named = typeof policy === 'string' ? /^"([^"]+)"/.exec(policy)?.[1] : undefined;
      if (named) return telemetry.refused('limit', { status, limit: named });
      return status === 429 ? telemetry.refused('limit', { status, limit: otherLimits.get(reply) ?? 'maxRequestsInFlight' }) : telemetry.refused('http', { status });
    }
    default:
      return telemetry.refused('http', { status });
  }
}
