import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { InMemoryEventStore, McpServer, Server, Tool, type RequestContext } from '@mcpx/core';
import type { McpHttpServer } from '@mcpx/http';
import {
  Gate,
  callTool,
  deleteSession,
  getSse,
  initializeBody,
  openSession,
  post,
  postSse,
  request,
  rpc,
  rpcErrorOf,
  startServer,
  summarize,
  waitFor,
} from './http-kit';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

@Server({ name: 'load-fixture', version: '1.0.0' })
class LoadFixture extends McpServer {
  gate = new Gate();
  aborted = 0;

  @Tool()
  hello(_input: void, ctx: RequestContext) {
    ctx.log.info('hello from the server');
    return 'hello';
  }

  @Tool()
  async hold(_input: void, ctx: RequestContext) {
    ctx.signal.addEventListener('abort', () => this.aborted++);
    ctx.progress(1);
    await Promise.race([this.gate.promise, new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))]);
    return 'held';
  }

  /** A tool that takes 300 ms. */
  @Tool()
  async slow(_input: void) {
    await sleep(300);
    return 'slow done';
  }
}

/** Runs `task` for 0..n-1 with at most `limit` in flight; returns the failures. */
async function pool(n: number, limit: number, task: (i: number) => Promise<void>): Promise<unknown[]> {
  const failures: unknown[] = [];
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      await task(i).catch((err) => failures.push(err));
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return failures;
}

/** global.gc, or the same function obtained at run time when node was started without --expose-gc. */
function findGc(): () => void {
  if (typeof global.gc === 'function') return global.gc;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc');
}

async function collect(gc: () => void): Promise<void> {
  // WeakRefs are only cleared between jobs: let the loop turn around the collections.
  for (let i = 0; i < 2; i++) {
    await new Promise(setImmediate);
    gc();
  }
}

describe('1,000 concurrent sessions', () => {
  const SESSIONS = 1000;
  const IN_FLIGHT = 100;
  let server: McpHttpServer;
  let store: InMemoryEventStore;
  let agent: http.Agent;

  beforeAll(async () => {
    store = new InMemoryEventStore();
    server = await startServer(new LoadFixture(), { eventStore: store });
    agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  });
  afterAll(async () => {
    agent.destroy();
    await server.close();
  });

  /** Opens SESSIONS sessions, calls a streamed tool in each, then DELETEs them all; returns some of them to watch. */
  async function cycle(): Promise<{ sessions: WeakRef<object>[] }> {
    const ids: string[] = [];
    const opened = await pool(SESSIONS, IN_FLIGHT, async (i) => {
      ids[i] = await openSession(server.url, agent);
    });
    expect(opened).toEqual([]);
    expect(new Set(ids).size).toBe(SESSIONS);
    expect(server.endpoint.sessions.size).toBe(SESSIONS);
    expect(server.engine.sessionCount).toBe(SESSIONS);

    const called = await pool(SESSIONS, IN_FLIGHT, async (i) => {
      const res = await post(server.url, callTool(i + 1, 'hello'), ids[i], {}, agent);
      if (res.status !== 200 || !res.body.includes('"text":"hello"') || !res.body.includes('hello from the server')) {
        throw new Error(`session ${i}: ${res.status} ${res.body}`);
      }
    });
    expect(called).toEqual([]);
    expect(store.sessionCount).toBe(SESSIONS);

    // Watch a sample of the server's session objects: after DELETE nothing may hold them.
    const sessions = ids.filter((_, i) => i % 50 === 0).flatMap((id) => {
      const h = server.endpoint.sessions.get(id)!;
      return [new WeakRef<object>(h), new WeakRef<object>(h.session)];
    });

    const deleted = await pool(SESSIONS, IN_FLIGHT, async (i) => {
      const res = await deleteSession(server.url, ids[i]!, agent);
      if (res.status !== 200) throw new Error(`DELETE ${i}: ${res.status} ${res.body}`);
    });
    expect(deleted).toEqual([]);
    expect(server.endpoint.sessions.size).toBe(0);
    expect(server.engine.sessionCount).toBe(0);
    await waitFor(() => store.sessionCount === 0, 'the event store to forget every session');
    return { sessions };
  }

  it('open, serve and close without errors, leaving no session, no stored event and no growing heap', async () => {
    const gc = findGc();
    // Warm-up: JIT, pools, lazily built structures (the first two cycles grow the heap by ~1 MB).
    await cycle();
    await cycle();
    await collect(gc);
    const before = process.memoryUsage().heapUsed;
    const watched: WeakRef<object>[] = [];
    for (let round = 0; round < 3; round++) watched.push(...(await cycle()).sessions);
    await collect(gc);
    const after = process.memoryUsage().heapUsed;

    // Every watched session object (HTTP and engine side) was garbage collected.
    expect(watched.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
    // 3,000 more sessions left (almost) nothing behind: even 1 KB kept per session would show as 3 MB.
    const growth = after - before;
    expect(growth).toBeLessThan(3 * 1024 * 1024);
    expect((await request(new URL('/readyz', server.url).href, { agent })).body).toBe('{"ready":true,"sessions":0}');
  }, 60_000);
});

describe('idle expiry', () => {
  it('ends a session idle for sessionIdleTimeoutMs, never one with a request in flight or an open GET stream', async () => {
    const fixture = new LoadFixture();
    const store = new InMemoryEventStore();
    const server = await startServer(fixture, { sessionIdleTimeoutMs: 200, eventStore: store });
    const sessions = server.endpoint.sessions;
    try {
      const busy = await openSession(server.url);
      const call = await postSse(server.url, busy, callTool(1, 'hold'));
      expect(summarize([(await call.nextEvent())!, (await call.nextEvent())!])).toEqual(['progress 1']);
      const streaming = await openSession(server.url);
      const get = await getSse(server.url, streaming);
      await get.next();
      // The control: idle from now on, and younger than the two busy sessions.
      const idle = await openSession(server.url);
      const lastUse = sessions.get(idle)!.lastActivity;

      await waitFor(() => sessions.get(idle) === undefined, 'the idle session to expire', 3000);
      const expiredAfter = Date.now() - lastUse;
      expect(expiredAfter).toBeGreaterThanOrEqual(200);
      expect(expiredAfter).toBeLessThan(1000);
      const res = await post(server.url, rpc(1, 'ping'), idle);
      expect(res.status).toBe(404);
      expect(rpcErrorOf(res).message).toBe('Session not found: it expired or was deleted; initialize a new one');

      // Both busy sessions went longer without a request, yet they are still here, and still serve.
      expect(sessions.get(busy)).toBeDefined();
      expect(sessions.get(streaming)).toBeDefined();
      expect(server.engine.sessionCount).toBe(2);
      expect((await post(server.url, rpc(2, 'ping'), streaming)).status).toBe(200);

      // Once the request finished and the GET stream closed, they idle out too.
      fixture.gate.open();
      expect(summarize(await call.rest())).toEqual(['result 1 held']);
      await waitFor(() => sessions.get(busy) === undefined, 'the finished session to expire', 3000);
      expect(sessions.get(streaming)).toBeDefined();
      get.abort();
      await waitFor(() => sessions.get(streaming) === undefined, 'the session whose GET closed to expire', 3000);
      expect((await post(server.url, rpc(3, 'ping'), streaming)).status).toBe(404);
      expect(server.engine.sessionCount).toBe(0);
      await waitFor(() => store.sessionCount === 0, 'the store to drop the expired sessions');
    } finally {
      await server.close();
    }
  });
});

describe('graceful shutdown', () => {
  it('close(): lets a slow call finish, refuses new sessions meanwhile, then closes open streams with a retry hint', async () => {
    const server = await startServer(new LoadFixture(), { shutdownTimeoutMs: 5000, retryMs: 250 });
    const session = await openSession(server.url);
    const get = await getSse(server.url, session);
    expect((await get.next())?.id).toBe('0_0');
    const call = await postSse(server.url, session, callTool(1, 'slow'));
    await call.next(); // priming

    const started = Date.now();
    const closing = server.close();
    await waitFor(() => server.endpoint.sessions.draining, 'draining to start');
    const refused = await post(server.url, initializeBody());
    expect(refused.status).toBe(503);
    expect(rpcErrorOf(refused).message).toBe('Service Unavailable: the server is shutting down');

    // The call in flight runs to its response…
    expect(summarize(await call.rest())).toEqual(['result 1 slow done']);
    await closing;
    await server.closed;
    expect(Date.now() - started).toBeLessThan(5000);
    // …and the GET stream was closed with a retry hint, so clients know to come back (elsewhere).
    expect(await get.rest()).toEqual([{ retry: 250, comments: [] }]);
    expect(get.ended).toBe(true);
    expect(server.endpoint.sessions.size).toBe(0);
    expect(server.engine.sessionCount).toBe(0);
  });

  it('close(): a call that outlives the deadline is cancelled and its connection closed with a retry hint, on time', async () => {
    const fixture = new LoadFixture();
    const server = await startServer(fixture, { shutdownTimeoutMs: 200, retryMs: 250 });
    const session = await openSession(server.url);
    const call = await postSse(server.url, session, callTool(1, 'hold'));
    expect(summarize([(await call.next())!, (await call.next())!])).toEqual(['progress 1']);

    const started = Date.now();
    await server.close();
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(190);
    expect(took).toBeLessThan(1500);
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
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    try {
      const url = `http://127.0.0.1:${port}/mcp`;
      const noKeepAlive = new http.Agent({ keepAlive: false });
      const until = Date.now() + 8000;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`the example server exited early (${child.exitCode}): ${output}`);
        const up = await request(`http://127.0.0.1:${port}/healthz`, { agent: noKeepAlive }).then((r) => r.status === 200, () => false);
        if (up) break;
        if (Date.now() > until) throw new Error(`the example server is not listening after 8 s: ${output}`);
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
  });
});
