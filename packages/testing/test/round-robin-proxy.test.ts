/**
 * The round-robin proxy against two plain node:http servers: requests take turns whatever their
 * headers, pass through unchanged, stream their answers as they come (SSE is not buffered), a
 * client closing its connection closes the upstream one, cutStreams() drops open streams, and a
 * target that refuses connections is skipped.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startRoundRobinProxy, type ForwardedRequest, type RoundRobinProxy } from '@mcpx/testing';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A plain server: /sse streams events the test pushes with `push`; anything else echoes the request as JSON. */
interface Target {
  name: string;
  url: string;
  seen: Seen[];
  /** Open SSE responses, in arrival order. */
  streams: http.ServerResponse[];
  /** Resolves when the nth SSE response (0-based) was closed, by either side. */
  streamClosed(n: number): Promise<void>;
  /** Resolves once n SSE requests arrived. */
  streamsOpened(n: number): Promise<void>;
  close(): Promise<void>;
}

async function startTarget(name: string): Promise<Target> {
  const seen: Seen[] = [];
  const streams: http.ServerResponse[] = [];
  const closed: Promise<void>[] = [];
  const openWaiters: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (req.url === '/sse') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.write(`data: hello from ${name}\n\n`);
        closed.push(new Promise((resolve) => res.once('close', () => resolve())));
        streams.push(res);
        for (const wake of openWaiters.splice(0)) wake();
        return;
      }
      res.writeHead(201, { 'content-type': 'application/json', 'x-target': name });
      res.end(JSON.stringify({ target: name, method: req.method, url: req.url }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    seen,
    streams,
    streamClosed: async (n) => {
      await until(() => closed.length > n);
      await closed[n];
    },
    streamsOpened: (n) => until(() => streams.length >= n, openWaiters),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Waits for `condition`, re-checked whenever the target wakes its waiters (or every 10 ms without). */
async function until(condition: () => boolean, waiters?: (() => void)[], timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms`);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 10);
      waiters?.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function request(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      res.setEncoding('utf8');
      let body = '';
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** An open streaming response, read chunk by chunk as it arrives. */
class StreamReader {
  text = '';
  ended = false;
  /** 'end' (complete) or 'aborted' (the connection dropped mid-body). */
  outcome?: 'end' | 'aborted';
  private waiters: (() => void)[] = [];

  constructor(
    readonly req: http.ClientRequest,
    readonly res: http.IncomingMessage,
  ) {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      this.text += chunk;
      this.wake();
    });
    res.on('close', () => {
      this.ended = true;
      this.outcome = res.complete ? 'end' : 'aborted';
      this.wake();
    });
  }

  async waitFor(fragment: string): Promise<void> {
    await until(() => this.text.includes(fragment) || this.ended, this.waiters);
    if (!this.text.includes(fragment)) throw new Error(`the stream ended without ${JSON.stringify(fragment)}; got ${JSON.stringify(this.text)}`);
  }

  async waitForEnd(): Promise<void> {
    await until(() => this.ended, this.waiters);
  }

  private wake(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }
}

function openStream(url: string): Promise<StreamReader> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { headers: { accept: 'text/event-stream' }, agent: false }, (res) => resolve(new StreamReader(req, res)));
    req.on('error', reject);
    req.end();
  });
}

/** A loopback port nothing listens on (it was free a moment ago). */
async function deadOrigin(): Promise<string> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}`;
}

describe('startRoundRobinProxy', () => {
  let a: Target;
  let b: Target;
  let proxy: RoundRobinProxy | undefined;

  beforeEach(async () => {
    a = await startTarget('a');
    b = await startTarget('b');
  });

  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
    await a.close();
    await b.close();
  });

  it('sends each request to the next target in turn, whatever its headers, and counts them', async () => {
    proxy = await startRoundRobinProxy([a.url, b.url]);
    expect(proxy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const order: string[] = [];
    for (let i = 0; i < 6; i++) {
      // A session header would make a sticky balancer pin the requests: this one must not.
      const answer = await request(`${proxy.url}/mcp`, { headers: { 'mcp-session-id': 'same-session', cookie: 'route=a' } });
      order.push(answer.headers['x-target'] as string);
    }
    expect(order).toEqual(['a', 'b', 'a', 'b', 'a', 'b']);
    expect(proxy.counts).toEqual([3, 3]);
  });

  it('passes method, path, query, headers and body through, and the status and headers back', async () => {
    const forwarded: ForwardedRequest[] = [];
    proxy = await startRoundRobinProxy([a.url], { onForward: (f) => void forwarded.push(f) });
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const answer = await request(`${proxy.url}/mcp/x?y=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 's-1', 'last-event-id': 'e_3' },
      body,
    });
    expect(answer.status).toBe(201);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(JSON.parse(answer.body)).toEqual({ target: 'a', method: 'POST', url: '/mcp/x?y=1' });
    const [seen] = a.seen;
    expect(seen).toMatchObject({ method: 'POST', url: '/mcp/x?y=1', body });
    expect(seen!.headers).toMatchObject({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': 's-1',
      'last-event-id': 'e_3',
      'content-length': String(Buffer.byteLength(body)),
    });
    // The Host header is the one the client sent (the proxy's), as a reverse proxy passing it on would.
    expect(seen!.headers.host).toBe(new URL(proxy.url).host);

    const deleted = await request(`${proxy.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': 's-1' } });
    expect(deleted.status).toBe(201);
    expect(a.seen[1]).toMatchObject({ method: 'DELETE', url: '/mcp', body: '' });
    // onForward tells which target answered what.
    expect(forwarded.map(({ method, path, body, target, status }) => ({ method, path, body, target, status }))).toEqual([
      { method: 'POST', path: '/mcp/x?y=1', body, target: 0, status: 201 },
      { method: 'DELETE', path: '/mcp', body: '', target: 0, status: 201 },
    ]);
    expect(forwarded[0]!.headers['mcp-session-id']).toBe('s-1');
  });

  it('streams an SSE answer event by event, and a client closing its connection closes the upstream one', async () => {
    proxy = await startRoundRobinProxy([a.url]);
    const stream = await openStream(`${proxy.url}/sse`);
    expect(stream.res.headers['content-type']).toBe('text/event-stream');
    // The first event arrives while the upstream response is still open: nothing waits for its end.
    await stream.waitFor('data: hello from a\n\n');
    await a.streamsOpened(1);
    a.streams[0]!.write('data: second\n\n');
    await stream.waitFor('data: second\n\n');
    expect(stream.ended).toBe(false);

    stream.req.destroy();
    await a.streamClosed(0);
  });

  it('an upstream response that ends ends the client one; one that dies drops the client connection', async () => {
    proxy = await startRoundRobinProxy([a.url]);
    const ending = await openStream(`${proxy.url}/sse`);
    await a.streamsOpened(1);
    a.streams[0]!.end('data: bye\n\n');
    await ending.waitForEnd();
    expect(ending.outcome).toBe('end');
    expect(ending.text).toBe('data: hello from a\n\ndata: bye\n\n');

    const dying = await openStream(`${proxy.url}/sse`);
    await a.streamsOpened(2);
    await dying.waitFor('hello from a');
    a.streams[1]!.destroy();
    await dying.waitForEnd();
    expect(dying.outcome).toBe('aborted');
  });

  it('cutStreams() destroys every open streaming response, on both sides, and leaves the rest alone', async () => {
    proxy = await startRoundRobinProxy([a.url, b.url]);
    const first = await openStream(`${proxy.url}/sse`);
    const second = await openStream(`${proxy.url}/sse`);
    await first.waitFor('hello from a');
    await second.waitFor('hello from b');

    proxy.cutStreams();
    await first.waitForEnd();
    await second.waitForEnd();
    expect([first.outcome, second.outcome]).toEqual(['aborted', 'aborted']);
    await a.streamClosed(0);
    await b.streamClosed(0);

    // Plain requests and new streams go on as before.
    expect((await request(`${proxy.url}/x`)).status).toBe(201);
    const third = await openStream(`${proxy.url}/sse`);
    await third.waitFor('hello from');
    proxy.cutStreams();
    await third.waitForEnd();
    expect(third.outcome).toBe('aborted');
  });

  it('skips a target that refuses the connection, and answers 502 when every target does', async () => {
    const dead = await deadOrigin();
    proxy = await startRoundRobinProxy([a.url, dead, b.url]);
    const order: string[] = [];
    for (let i = 0; i < 6; i++) {
      const answer = await request(`${proxy.url}/x`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"n":${i}}` });
      expect(answer.status).toBe(201);
      order.push(answer.headers['x-target'] as string);
    }
    // The dead target's turns go to the one after it, with the same body.
    expect(order).toEqual(['a', 'b', 'b', 'a', 'b', 'b']);
    expect(proxy.counts).toEqual([2, 0, 4]);
    expect(b.seen.map((s) => s.body)).toEqual(['{"n":1}', '{"n":2}', '{"n":4}', '{"n":5}']);

    proxy.setTargets([dead]);
    expect(proxy.counts).toEqual([0]);
    const refused = await request(`${proxy.url}/x`);
    expect(refused.status).toBe(502);
  });

  it('setTargets() replaces the targets', async () => {
    proxy = await startRoundRobinProxy([a.url]);
    expect((await request(`${proxy.url}/x`)).headers['x-target']).toBe('a');
    proxy.setTargets([b.url, a.url]);
    const order: string[] = [];
    for (let i = 0; i < 3; i++) order.push((await request(`${proxy.url}/x`)).headers['x-target'] as string);
    expect(order).toEqual(['b', 'a', 'b']);
    expect(proxy.counts).toEqual([2, 1]);
  });

  it('close() ends open streams and stops listening', async () => {
    proxy = await startRoundRobinProxy([a.url]);
    const stream = await openStream(`${proxy.url}/sse`);
    await stream.waitFor('hello from a');
    const url = proxy.url;
    await proxy.close();
    proxy = undefined;
    await stream.waitForEnd();
    await a.streamClosed(0);
    await expect(request(`${url}/x`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
