import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EventStore } from '@mcpx/core/stores';
import type { Admission, McpEngine, RequestId } from '@mcpx/core/transport';
import { rpcErrorBody } from './http-errors';
import { sendChallenge } from './auth/challenge';
import type { ModernInFlight } from './modern-in-flight';
import type { ResolvedHttpOptions } from './options';
import type { SessionManager } from './session-manager';
import { SseConnection, type Heartbeats } from './sse';
import { noteInFlightLimit } from './telemetry/refusals';

/** What the endpoint's handlers share: one per mounted endpoint. */
export interface EndpointContext {
  engine: McpEngine;
  sessions: SessionManager;
  options: ResolvedHttpOptions;
  store: EventStore | undefined;
  /** The endpoint's one heartbeat timer (absent when heartbeats are off). */
  heartbeats?: Heartbeats;
  /** The modern (2026-07-28) requests in flight: they belong to no session. */
  modern: ModernInFlight;
  /** Where the endpoint's own failures are logged. */
  onError: (err: unknown) => void;
}

/**
 * Answers a refusal of the pipeline's admission that HTTP tells in its own form, before any stream
 * opens: a call its token lacks the entry's scopes for is 403 with a step-up challenge (SEP-835); a
 * caller at its in-flight cap is 429 with Retry-After and the JSON-RPC error (-32004) naming the
 * limit; a rate limit's refusal is 429 (503 when its store cannot be reached) with Retry-After,
 * RateLimit-Policy and the JSON-RPC error. True when it answered; any other refusal is answered as
 * the JSON-RPC error it carries. A request let through gets its RateLimit headers here.
 */
export function answeredAdmission(ctx: EndpointContext, admission: Admission, request: FastifyRequest, reply: FastifyReply, id: RequestId): boolean {
  const refusal = admission.refusal;
  if (!refusal) {
    // A request its rate limits let through says where it stands with them (IETF RateLimit fields).
    if (admission.rateLimit) reply.header('ratelimit-policy', admission.rateLimit.policy).header('ratelimit', admission.rateLimit.state);
    return false;
  }
  if (refusal.kind === 'rate') {
    const status = refusal.unavailable ? 503 : 429;
    reply.code(status).header('retry-after', String(Math.max(1, Math.ceil((refusal.retryAfterMs ?? 1000) / 1000))));
    if (refusal.policy) reply.header('ratelimit-policy', refusal.policy);
    reply.header('content-type', 'application/json').send(rpcErrorBody(refusal.response.error, id));
    return true;
  }
  if (refusal.kind === 'in-flight') {
    const data = refusal.response.error.data as { limit?: unknown } | undefined;
    if (typeof data?.limit === 'string') noteInFlightLimit(reply, data.limit);
    reply.code(429).header('retry-after', '1').header('content-type', 'application/json').send(rpcErrorBody(refusal.response.error, id));
    return true;
  }
  const auth = ctx.options.auth;
  if (refusal.kind !== 'scope' || !auth || !request.principal) return false;
  const required = refusal.requiredScopes ?? [];
  // The challenge names every scope the call needs, plus those the token already has, so a new token keeps them.
  const scope = [...new Set([...request.principal.scopes, ...required])];
  sendChallenge(reply, auth, 403, { error: 'insufficient_scope', scope, description: `${request.mcpMethod ?? 'the request'} needs the scopes ${required.join(' ')}` });
  return true;
}

/** Takes the response over from Fastify as an SSE connection: it outlives the handler (onResponse still logs it). */
export function openConnection(ctx: EndpointContext, reply: FastifyReply, limits: { polling: boolean } = { polling: true }): SseConnection {
  // Headers that hooks set on the reply (CORS, the app's own) would stay behind once it is hijacked.
  const headers = reply.getHeaders();
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) reply.raw.setHeader(name, value);
  }
  reply.hijack();
  const { options } = ctx;
  // `mcpx.sse.stream.active`: every SSE response of the endpoint opens here, and closes once.
  const telemetry = ctx.engine.telemetry;
  telemetry.streamsActive++;
  return new SseConnection(reply.raw, {
    onClose: () => telemetry.streamsActive--,
    heartbeats: ctx.heartbeats,
    // Closing a connection early is only safe when the client can resume it (an event store).
    maxConnectionMs: limits.polling && ctx.store ? options.sseMaxConnectionMs : 0,
    retryMs: options.retryMs,
  });
}
