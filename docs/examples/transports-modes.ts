import { listen, type ListenOptions } from '@mcpx/http';
import { InMemoryEventStore } from '@mcpx/core';

/** Stateless: no sessions, every POST is served on its own (GET and DELETE answer 405). */
export const statelessOptions: ListenOptions = { stateless: true, jsonResponse: true };

/** Sessions with resumable SSE: events are kept for Last-Event-ID replay, connections are cycled for polling. */
export const resumableOptions: ListenOptions = {
  eventStore: new InMemoryEventStore(),
  retryMs: 2000,
  sseMaxConnectionMs: 5 * 60_000,
  sseHeartbeatMs: 15_000,
};

/** Behind a reverse proxy: trust X-Forwarded-* and let the public host names through the Host check. */
export const behindProxyOptions: ListenOptions = {
  host: '127.0.0.1',
  allowedHosts: ['localhost', '127.0.0.1', 'mcp.example.com'], // replaces the loopback default
  allowedOrigins: ['https://app.example.com'],
  fastify: { trustProxy: true },
  shutdownTimeoutMs: 20_000,
};

export { listen };
