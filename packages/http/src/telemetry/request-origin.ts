import type { FastifyRequest } from 'fastify';
import type { JsonRpcNotification, McpEngine, RequestOrigin } from '@mcpx/core/transport';

/**
 * Where an HTTP request came from, as its span records it: the HTTP version, the client (behind
 * proxies Fastify trusts, the original one: `request.ip`; its port only when it is the socket's
 * peer) and the headers, whose trace context is the parent of a message with none in `_meta`.
 * Read when asked: most requests are never traced, and the client's address costs a lookup.
 */
class HttpRequestOrigin implements RequestOrigin {
  readonly transport = 'tcp';
  constructor(private readonly request: FastifyRequest) {}
  get httpVersion(): string {
    return this.request.raw.httpVersion;
  }
  get clientAddress(): string {
    return this.request.ip;
  }
  get clientPort(): number | undefined {
    const socket = this.request.socket;
    return this.request.ip === socket.remoteAddress ? socket.remotePort : undefined;
  }
  get headers(): FastifyRequest['headers'] {
    return this.request.headers;
  }
}

export function originOf(request: FastifyRequest): RequestOrigin {
  return new HttpRequestOrigin(request);
}

let lastPeer: RequestOrigin | undefined;

/**
 * A session's origin: the client's network, which outlives the request that opened it. Without the
 * headers (their trace context must not become the parent of later requests) and without the port
 * (each request records its own): sessions from one address share one object.
 */
export function peerOf(origin: RequestOrigin): RequestOrigin {
  const last = lastPeer;
  if (last !== undefined && last.clientAddress === origin.clientAddress && last.httpVersion === origin.httpVersion && last.transport === origin.transport) return last;
  return (lastPeer = Object.freeze({ transport: origin.transport, httpVersion: origin.httpVersion, clientAddress: origin.clientAddress }));
}

/**
 * A notification the endpoint accepts with nothing to apply it to (stateless mode, 2026-07-28):
 * it still gets its span and duration point, as every message from a client does.
 */
export function traceAcceptedNotification(engine: McpEngine, notification: JsonRpcNotification, request: FastifyRequest): void {
  const version = request.headers['mcp-protocol-version'];
  engine.telemetry.startRequest(notification.method, undefined, notification.params, { origin: originOf(request) })?.end(undefined, typeof version === 'string' ? version : undefined);
}
