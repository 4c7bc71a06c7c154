/**
 * Where a message came from, as telemetry records it: the network of the transport and, over HTTP,
 * the request's headers (their trace context). Transports give one per request. Over HTTP its fields
 * are getters that read the request when asked, so a request nobody traces pays for none of them.
 */
export interface RequestOrigin {
  /** `network.transport`: `tcp` for HTTP, `pipe` for stdio. */
  readonly transport: string;
  /** Set over HTTP: the version of HTTP (`1.1`, `2`). */
  readonly httpVersion?: string;
  readonly clientAddress?: string;
  readonly clientPort?: number;
  /** The HTTP request's headers: their trace context is the parent of a message whose `_meta` carries none, and a link of one that does. */
  readonly headers?: Readonly<Record<string, string | string[] | undefined>>;
}

/** The origin of every message over stdio. */
export const STDIO_ORIGIN: RequestOrigin = { transport: 'pipe' };
