import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A load balancer for tests of several instances of one server: every HTTP request goes to the
 * next target in turn, whatever its headers say (no stickiness), so consecutive requests of one
 * session land on different instances.
 */
export interface RoundRobinProxy {
  /** The proxy's origin, e.g. http://127.0.0.1:40123 (append the MCP path). */
  readonly url: string;
  /** Requests each target answered, by position in the targets (a refused attempt is not counted). */
  readonly counts: number[];
  /** Replaces the targets (e.g. an instance restarted on another port); counts start again from zero. */
  setTargets(targets: string[]): void;
  /** Destroys every open streaming (SSE) response, on both sides, as a dropped connection would. */
  cutStreams(): void;
  /** Stops listening and destroys every connection still open. */
  close(): Promise<void>;
}

export interface RoundRobinProxyOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Called as each answer starts: which target served which request (tests tell instances apart by it). */
  onForward?: (forwarded: ForwardedRequest) => void;
}

/** A request as the proxy forwarded it, and the target that answered it. */
export interface ForwardedRequest {
  method: string;
  /** Path and query. */
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The answering target's position in the targets. */
  target: number;
  status: number;
}

/** Headers that describe one connection, not the message: each hop sets its own. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

function endToEnd(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}

/** Starts a round-robin proxy in front of `targets` (origins like http://127.0.0.1:4001), built on node:http only. */
export async function startRoundRobinProxy(targets: string[], options: RoundRobinProxyOptions = {}): Promise<RoundRobinProxy> {
  let origins = targets.map((t) => new URL(t).origin);
  let counts = origins.map(() => 0);
  let turn = 0;
  /** Streaming responses open now, each with the upstream request feeding it. */
  const streams = new Set<{ client: http.ServerResponse; upstream: http.ClientRequest }>();
  const upstreams = new Set<http.ClientRequest>();

  const server = http.createServer((req, res) => {
    // The body is read whole first: a target that refuses the connection is skipped, and the next
    // one must get the same body. MCP bodies are single JSON-RPC messages; responses still stream.
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => forward(req, res, Buffer.concat(chunks), turn++, 0));
    req.on('error', () => res.destroy());
  });

  function forward(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, start: number, attempt: number): void {
    if (res.destroyed) return;
    if (attempt >= origins.length) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end('no target accepted the connection');
      return;
    }
    const index = (start + attempt) % origins.length;
    const headers = endToEnd(req.headers);
    if (body.length > 0 || req.headers['content-length'] !== undefined) headers['content-length'] = body.length;
    // A fresh connection per request (agent: false): a pooled socket to an instance killed meanwhile
    // would fail with a reset rather than a refusal, and a reset request cannot safely be retried.
    const upstream = http.request(`${origins[index]}${req.url ?? '/'}`, { method: req.method, headers, agent: false });
    upstreams.add(upstream);
    let answered = false;
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      upstreams.delete(upstream);
      if (!answered && err.code === 'ECONNREFUSED') return forward(req, res, body, start, attempt + 1);
      // Anything else after the request may have reached the target: the client sees the connection drop.
      if (!answered && !res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end(`upstream failed: ${err.message}`);
      else res.destroy();
    });
    upstream.on('response', (upstreamRes) => {
      answered = true;
      counts[index] = (counts[index] ?? 0) + 1;
      options.onForward?.({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body: body.toString('utf8'), target: index, status: upstreamRes.statusCode ?? 0 });
      res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.statusMessage, endToEnd(upstreamRes.headers));
      // Headers go out now: an SSE response may send its first event much later.
      res.flushHeaders();
      const entry = { client: res, upstream };
      const streaming = String(upstreamRes.headers['content-type'] ?? '').startsWith('text/event-stream');
      if (streaming) streams.add(entry);
      // Each chunk is written as it arrives (no buffering); a target that dies mid-body drops the client's connection too.
      upstreamRes.on('data', (chunk: Buffer) => res.write(chunk));
      upstreamRes.on('end', () => res.end());
      upstreamRes.on('close', () => {
        streams.delete(entry);
        upstreams.delete(upstream);
        if (!upstreamRes.complete) res.destroy();
      });
    });
    // The client went away before its answer was complete: so does the upstream request.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    upstream.end(body);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;

  return {
    url: `http://${host}:${port}`,
    get counts() {
      return counts;
    },
    setTargets(next: string[]) {
      origins = next.map((t) => new URL(t).origin);
      counts = origins.map(() => 0);
      turn = 0;
    },
    cutStreams() {
      for (const { client, upstream } of [...streams]) {
        client.destroy();
        upstream.destroy();
      }
      streams.clear();
    },
    async close() {
      for (const upstream of upstreams) upstream.destroy();
      upstreams.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
