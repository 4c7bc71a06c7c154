import type { Principal } from '../auth/principal';
import type { RateLimitSubject } from '../policies/rate-limit';
import type { EraFront, Inbound } from './era-front';

/** What a rate limit's `by` sees of a request: the fields a middleware's context has for it. */
export function rateLimitSubject(front: EraFront, inbound: Inbound, principal: Principal | undefined): RateLimitSubject {
  const { method, params = {} } = inbound.request;
  const ref = params.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
  const named = (key: string) => (typeof params[key] === 'string' ? (params[key] as string) : undefined);
  return {
    method,
    params,
    era: front.era,
    principal,
    sessionId: front.era === 'legacy' ? front.logSessionId : undefined,
    clientAddress: (inbound.origin ?? front.origin)?.clientAddress,
    toolName: method === 'tools/call' ? named('name') : undefined,
    promptName: method === 'prompts/get' ? named('name') : ref?.type === 'ref/prompt' && typeof ref.name === 'string' ? ref.name : undefined,
    resourceUri: method.startsWith('resources/') ? named('uri') : ref?.type === 'ref/resource' && typeof ref.uri === 'string' ? ref.uri : undefined,
  };
}
