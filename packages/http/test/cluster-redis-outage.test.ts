import 'reflect-metadata';
import { McpServer, Server, Tool } from '@mcpx/core';
import type { McpHttpServer } from '@mcpx/http';
import { ThrowawayRedis, freePort } from '../../redis/test/redis-kit';
import { callTool, initializeBody, jsonOf, openSession, post, request, rpcErrorOf, startServer } from './http-kit';

// Redis lost while serving: the instance stays up, says it is not ready, answers 503 with a
// JSON-RPC error, and serves again by itself once Redis is back. Redis here is a throwaway server
// that keeps nothing, so what it held (the sessions) is gone after its restart, as the docs say.

@Server({ name: 'outage-fixture', version: '1.0.0' })
class Plain extends McpServer {
  @Tool()
  ping(): string {
    return 'pong';
  }
}

describe('an instance whose Redis goes away', () => {
  let redis: ThrowawayRedis;
  let server: McpHttpServer;
  let readyz: string;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    redis = new ThrowawayRedis(await freePort());
    await redis.start();
    server = await startServer(new Plain(), { redis: { url: redis.url, leaseMs: 1000 } });
    readyz = server.url.replace(/\/mcp$/, '/readyz');
  });

  afterAll(async () => {
    await server?.close();
    await redis?.kill();
    process.off('unhandledRejection', onUnhandled);
  });

  const readiness = async () => {
    const answer = await request(readyz);
    return { status: answer.status, body: jsonOf(answer) };
  };

  /** /readyz once it answers `status` (reconnecting takes a moment: a bound on waiting, not a speed). */
  const readinessOnce = async (status: number) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const state = await readiness();
      if (state.status === status || Date.now() > deadline) return state;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it('answers 503 with a JSON-RPC error while Redis is away, and serves again once it is back', async () => {
    const session = await openSession(server.url);
    expect((await post(server.url, callTool(1, 'ping'), session)).status).toBe(200);
    expect(await readiness()).toEqual({ status: 200, body: { ready: true, sessions: 1 } });

    await redis.kill();
    expect(await readinessOnce(503)).toEqual({ status: 503, body: { ready: false, reason: 'shared store unavailable' } });

    const refused = await post(server.url, callTool(2, 'ping'), session);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(rpcErrorOf(refused, 2)).toEqual({ code: -32603, message: 'Service Unavailable: the shared session store cannot be reached; retry shortly' });
    const init = await post(server.url, initializeBody());
    expect(init.status).toBe(503);
    expect(init.headers['mcp-session-id']).toBeUndefined();

    await redis.start();
    expect((await readinessOnce(200)).status).toBe(200);
    // The restarted Redis kept nothing: the old session is gone, a new one works.
    expect((await post(server.url, callTool(3, 'ping'), session)).status).toBe(404);
    const fresh = await openSession(server.url);
    const answered = await post(server.url, callTool(4, 'ping'), fresh);
    expect(answered.status).toBe(200);
    expect(answered.body).toContain('pong');
    expect(unhandled).toEqual([]);
  });
});
