/**
 * Load: thousands of sessions through one server, and the heap they leave behind. Slow and
 * sensitive to whatever else the machine runs, so it is run by `npm run test:load` (CI runs it
 * after `npm test`), not by `npm test`.
 */
import 'reflect-metadata';
import http from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';
import { InMemoryEventStore, McpServer, Server, Tool, type RequestContext } from '@mcpx/core';
import type { McpHttpServer } from '@mcpx/http';
import { callTool, deleteSession, openSession, post, request, rpc, startServer, waitFor } from './http-kit';

@Server({ name: 'load-fixture', version: '1.0.0' })
class LoadFixture extends McpServer {
  @Tool()
  hello(_input: void, ctx: RequestContext) {
    ctx.log.info('hello from the server');
    return 'hello';
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
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- called without options, gc() is synchronous
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
      // Log lines go to a client that asked for them.
      const level = await post(server.url, rpc(`level-${i}`, 'logging/setLevel', { level: 'info' }), ids[i], {}, agent);
      if (level.status !== 200) throw new Error(`session ${i}: logging/setLevel answered ${level.status} ${level.body}`);
      const res = await post(server.url, callTool(i + 1, 'hello'), ids[i], {}, agent);
      if (res.status !== 200 || !res.body.includes('"text":"hello"') || !res.body.includes('hello from the server')) {
        throw new Error(`session ${i}: ${res.status} ${res.body}`);
      }
    });
    expect(called).toEqual([]);
    expect(store.sessionCount).toBe(SESSIONS);

    // Watch a sample of the server's session objects: after DELETE nothing may hold them.
    const sessions = ids
      .filter((_, i) => i % 50 === 0)
      .flatMap((id) => {
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
    await waitFor(() => store.sessionCount === 0, 'the event store to forget every session', 30_000);
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
  }, 300_000);
});
