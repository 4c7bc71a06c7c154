import http from 'node:http';
import net from 'node:net';

/** Hop-by-hop headers a proxy does not pass on. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade'];

export interface Backend {
  name: string;
  port: number;
  /** False while its instance is down (a health check would say so): no request is sent to it. */
  up: boolean;
}

/**
 * A plain round-robin HTTP proxy (node:http): every request, whatever its session, goes to the next
 * backend that is up; request and response bodies are streamed both ways (SSE included). A
 * backend that dies mid-response has its client connection cut, as a real proxy would.
 */
export class RoundRobinProxy {
  readonly backends: Backend[] = [];
  private next = 0;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 256 });
  private readonly server: http.Server;
  readonly counts = { forwarded: 0, noBackend: 0, backendErrors: 0, cutMidResponse: 0 };

  constructor() {
    this.server = http.createServer((req, res) => this.forward(req, res));
    this.server.keepAliveTimeout = 30_000;
    this.server.headersTimeout = 60_000;
    this.server.requestTimeout = 0;
  }

  add(backend: Backend): void {
    this.backends.push(backend);
  }

  async listen(port = 0): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    const address = this.server.address() as net.AddressInfo;
    return `http://127.0.0.1:${address.port}/mcp`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.agent.destroy();
  }

  private pick(): Backend | undefined {
    for (let i = 0; i < this.backends.length; i++) {
      const backend = this.backends[this.next++ % this.backends.length]!;
      if (backend.up) return backend;
    }
    return undefined;
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    const backend = this.pick();
    if (!backend) {
      this.counts.noBackend++;
      res.writeHead(503, { 'retry-after': '1', 'content-type': 'text/plain' }).end('no backend up');
      req.resume();
      return;
    }
    this.counts.forwarded++;
    const headers: http.OutgoingHttpHeaders = { ...req.headers, 'x-forwarded-for': req.socket.remoteAddress ?? '127.0.0.1' };
    for (const name of HOP_BY_HOP) delete headers[name];
    const upstream = http.request({ host: '127.0.0.1', port: backend.port, method: req.method, path: req.url, headers, agent: this.agent }, (answer) => {
      const out: http.OutgoingHttpHeaders = { ...answer.headers };
      for (const name of HOP_BY_HOP) delete out[name];
      res.writeHead(answer.statusCode ?? 502, out);
      res.flushHeaders();
      answer.pipe(res);
      answer.on('close', () => {
        if (!answer.complete) {
          // The instance went away mid-response (killed): the client sees its connection cut.
          this.counts.cutMidResponse++;
          res.destroy();
        }
      });
    });
    upstream.on('error', () => {
      this.counts.backendErrors++;
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end('backend unreachable');
      else res.destroy();
    });
    // The client went away (closed its SSE stream, aborted): so does the request upstream.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  }
}

/**
 * A TCP relay in front of the shared Redis: the instances connect through it, so a Redis outage
 * (connections dropped, new ones refused for a while) is simulated without touching the Redis
 * other users share.
 */
export class RedisRelay {
  private readonly pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  private downUntil = 0;
  private readonly server: net.Server;

  constructor(
    private readonly redisHost: string,
    private readonly redisPort: number,
  ) {
    this.server = net.createServer((client) => this.accept(client));
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as net.AddressInfo).port;
  }

  get connections(): number {
    return this.pairs.size;
  }

  /** Drops every connection and refuses (resets) new ones for `ms`. */
  cut(ms: number): void {
    this.downUntil = Date.now() + ms;
    for (const pair of [...this.pairs]) {
      pair.client.resetAndDestroy();
      pair.upstream.destroy();
    }
    this.pairs.clear();
  }

  async close(): Promise<void> {
    for (const pair of this.pairs) {
      pair.client.destroy();
      pair.upstream.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket): void {
    if (Date.now() < this.downUntil) {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(this.redisPort, this.redisHost);
    const pair = { client, upstream };
    this.pairs.add(pair);
    const drop = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
