import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { InMemoryEventStore, McpServer, Server, Tool, type RequestContext } from '@mcpx/core';
import { ManualClock } from '@mcpx/core/stores';
import { Gate, callTool, getSse, initializeBody, openSession, post, postSse, request, rpc, rpcErrorOf, startServer, summarize, waitFor } from './http-kit';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

@Server({ name: 'load-fixture', version: '1.0.0' })
class LoadFixture extends McpServer {
  gate = new Gate();
  aborted = 0;

  @Tool()
  async hold(_input: void, ctx: RequestContext) {
    ctx.signal.addEventListener('abort', () => this.aborted++);
    ctx.progress(1);
    await Promise.race([this.gate.promise, new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))]);
    return 'held';
  }
}

describe('idle expiry', () => {
  it('ends a session idle for sessionIdleTimeoutMs (by 1.25× of it), never one with a request in flight or an open GET stream', async () => {
    const TIMEOUT = 200;
    const fixture = new LoadFixture();
    const store = new InMemoryEventStore();
    // Time passes only when the test says: the expiry sweep runs inside clock.advance().
    const clock = new ManualClock();
    const server = await startServer(fixture, { sessionIdleTimeoutMs: TIMEOUT, eventStore: store, clock });
    const sessions = server.endpoint.sessions;
    /** Waits until the server holds no request and no connection of `id` any more: from then on it is idle. */
    const settled = (id: string) =>
      waitFor(() => {
        const h = sessions.get(id);
        return h !== undefined && h.session.requestsInFlight === 0 && !h.hasConnection;
      }, `session ${id} to have nothing in flight`);
    try {
      const busy = await openSession(server.url);
      const call = await postSse(server.url, busy, callTool(1, 'hold'));
      expect(summarize([(await call.nextEvent())!, (await call.nextEvent())!])).toEqual(['progress 1']);
      clock.advance(TIMEOUT / 4);
      const streaming = await openSession(server.url);
      const get = await getSse(server.url, streaming);
      await get.next();
      clock.advance(TIMEOUT / 4);
      // The control: idle from now on, and younger than the two busy sessions.
      const idle = await openSession(server.url);
      await settled(idle);
      const lastUse = sessions.get(idle)!.lastActivity;
      expect(lastUse).toBe(clock.now());

      // Idle for exactly the limit: still there. A sweep runs at least every quarter of it: gone by 1.25×.
      clock.advance(TIMEOUT);
      expect(sessions.get(idle)).toBeDefined();
      clock.advance(TIMEOUT / 4);
      expect(sessions.get(idle)).toBeUndefined();
      const res = await post(server.url, rpc(1, 'ping'), idle);
      expect(res.status).toBe(404);
      expect(rpcErrorOf(res, 1).message).toBe('Session not found: it expired or was deleted; initialize a new one');

      // Both busy sessions went longer without a request, yet they are still here, and still serve.
      expect(sessions.get(busy)).toBeDefined();
      expect(sessions.get(streaming)).toBeDefined();
      expect(clock.now() - sessions.get(busy)!.lastActivity).toBeGreaterThan(TIMEOUT * 1.25);
      expect(clock.now() - sessions.get(streaming)!.lastActivity).toBeGreaterThan(TIMEOUT * 1.25);
      expect(server.engine.sessionCount).toBe(2);
      expect((await post(server.url, rpc(2, 'ping'), streaming)).status).toBe(200);

      // Once the request finished and the GET stream closed, they idle out too.
      fixture.gate.open();
      expect(summarize(await call.rest())).toEqual(['result 1 held']);
      await settled(busy);
      clock.advance(TIMEOUT * 1.25);
      expect(sessions.get(busy)).toBeUndefined();
      // The ping above is as old by now, but the open GET stream keeps its session.
      expect(sessions.get(streaming)).toBeDefined();
      expect(clock.now() - sessions.get(streaming)!.lastActivity).toBeGreaterThan(TIMEOUT);
      get.abort();
      await settled(streaming);
      clock.advance(TIMEOUT * 1.25);
      expect(sessions.get(streaming)).toBeUndefined();
      expect((await post(server.url, rpc(3, 'ping'), streaming)).status).toBe(404);
      expect(server.engine.sessionCount).toBe(0);
      await waitFor(() => store.sessionCount === 0, 'the store to drop the expired sessions');
    } finally {
      await server.close();
    }
    // close() stopped the sweep it had asked the clock for.
    expect(clock.pending).toBe(0);
  });
});

describe('graceful shutdown', () => {
  it('close(): lets a call in flight finish, refuses new sessions meanwhile, then closes open streams with a retry hint', async () => {
    const fixture = new LoadFixture();
    // A deadline far past the test's own timeout: close() must end when the call does, not at the deadline.
    const server = await startServer(fixture, { shutdownTimeoutMs: 600_000, retryMs: 250 });
    let closing: Promise<void> | undefined;
    try {
      const session = await openSession(server.url);
      const get = await getSse(server.url, session);
      expect((await get.next())?.id).toBe('0_0');
      const call = await postSse(server.url, session, callTool(1, 'hold'));
      expect(summarize([(await call.next())!, (await call.next())!])).toEqual(['progress 1']);

      closing = server.close();
      await waitFor(() => server.endpoint.sessions.draining, 'draining to start');
      const refused = await post(server.url, initializeBody());
      expect(refused.status).toBe(503);
      expect(rpcErrorOf(refused, 0).message).toBe('Service Unavailable: the server is shutting down');

      // The call in flight runs to its response once it may…
      fixture.gate.open();
      expect(summarize(await call.rest())).toEqual(['result 1 held']);
      await closing;
      await server.closed;
      expect(fixture.aborted).toBe(0);
      // …and the GET stream was closed with a retry hint, so clients know to come back (elsewhere).
      expect(await get.rest()).toEqual([{ retry: 250, comments: [] }]);
      expect(get.ended).toBe(true);
      expect(server.endpoint.sessions.size).toBe(0);
      expect(server.engine.sessionCount).toBe(0);
    } finally {
      // On a failure, let the drain end rather than wait out its deadline.
      fixture.gate.open();
      await (closing ?? server.close());
    }
  });

  it('close(): a call that outlives the deadline is cancelled at the deadline and its connection closed with a retry hint', async () => {
    const fixture = new LoadFixture();
    const server = await startServer(fixture, { shutdownTimeoutMs: 200, retryMs: 250 });
    const session = await openSession(server.url);
    const call = await postSse(server.url, session, callTool(1, 'hold'));
    expect(summarize([(await call.next())!, (await call.next())!])).toEqual(['progress 1']);

    const started = Date.now();
    // The tool holds until it is aborted: close() returns only because the deadline cut it short.
    let wait: NodeJS.Timeout | undefined;
    const stuck = new Promise<never>((_, reject) => {
      wait = setTimeout(() => reject(new Error('close() still waiting 10 s after a 200 ms deadline')), 10_000);
    });
    await Promise.race([server.close(), stuck]).finally(() => clearTimeout(wait));
    // It waited for the deadline (timers never fire early; Date.now() may be a millisecond coarse).
    expect(Date.now() - started).toBeGreaterThanOrEqual(199);
    expect(await call.rest()).toEqual([{ retry: 250, comments: [] }]);
    expect(fixture.aborted).toBe(1);
    expect(server.endpoint.sessions.size).toBe(0);
  });
});

describe('the example server as a process', () => {
  const root = path.resolve(__dirname, '../../..');
  const main = path.join(root, 'apps/example/dist/main-http.js');
  // A fresh data folder: the export below runs over the three seeded notes.
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'mcpx-notes-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  function freePort(): Promise<number> {
    return new Promise((resolve, reject) => {
      const probe = net.createServer();
      probe.once('error', reject);
      probe.listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
  }

  it('exits 0 on SIGTERM within the deadline, after finishing a call in flight and closing the open GET stream', async () => {
    if (!existsSync(main)) throw new Error(`${main} does not exist: build first with "npm run build" (npm test does)`);
    const port = await freePort();
    const child = spawn(process.execPath, [main], {
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', MCPX_LOG_LEVEL: 'info', MCPX_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    try {
      const url = `http://127.0.0.1:${port}/mcp`;
      const noKeepAlive = new http.Agent({ keepAlive: false });
      const until = Date.now() + 30_000;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`the example server exited early (${child.exitCode}): ${output}`);
        const up = await request(`http://127.0.0.1:${port}/healthz`, { agent: noKeepAlive }).then(
          (r) => r.status === 200,
          () => false,
        );
        if (up) break;
        if (Date.now() > until) throw new Error(`the example server is not listening after 30 s: ${output}`);
        await sleep(50);
      }
      const session = await openSession(url);
      const get = await getSse(url, session);
      expect((await get.next())?.id).toBe('0_0');
      // The notes export takes 3 × 100 ms.
      const call = await postSse(url, session, callTool(1, 'export', { format: 'markdown', delayMs: 100 }));
      await call.next();

      const signalled = Date.now();
      expect(child.kill('SIGTERM')).toBe(true);
      await call.rest(8000);
      const { code, signal } = await exited;
      expect({ code, signal }).toEqual({ code: 0, signal: null });
      expect(Date.now() - signalled).toBeLessThan(10_000);
      const delivered = summarize(call.blocks);
      expect(delivered.slice(0, 3)).toEqual(['progress 1', 'progress 2', 'progress 3']);
      expect(delivered.at(-1)).toMatch(/^result 1 # Welcome/);
      expect(await get.rest()).toEqual([{ retry: 1000, comments: [] }]);
      expect(output).toContain('stopping: draining requests in flight');
      expect(output).toContain('"msg":"stopped"');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 60_000);
});
