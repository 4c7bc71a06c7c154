import 'reflect-metadata';
import pino from 'pino';
import { connect, rpcErrorOf } from '@mcpx/testing';
import { McpServer, RateLimit, Server, Tool, createEngine } from '../src';
import { InMemoryRateLimitStore, type RateLimitStore } from '../src/exports/stores';

const quiet = { logger: pino({ level: 'silent' }) };

describe('InMemoryRateLimitStore: a sliding window log', () => {
  it('allows exactly `limit` in any window, and says when the next one fits', () => {
    const store = new InMemoryRateLimitStore();
    const hits = [0, 100, 200].map((t) => store.hit('k', 3, 1000, t));
    expect(hits.map((h) => [h.allowed, h.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
    ]);
    expect(store.hit('k', 3, 1000, 500)).toEqual({ allowed: false, remaining: 0, retryAfterMs: 500 });
    // The first request leaves the window at 1000: one more fits, not two.
    expect(store.hit('k', 3, 1000, 1000).allowed).toBe(true);
    expect(store.hit('k', 3, 1000, 1001).allowed).toBe(false);
    expect(store.hit('other', 3, 1000, 1001).allowed).toBe(true);
  });

  it('drops the keys whose requests all left their window', () => {
    const store = new InMemoryRateLimitStore(4);
    for (let i = 0; i < 3; i++) store.hit(`k${i}`, 5, 100, 0);
    expect(store.size).toBe(3);
    store.hit('late', 5, 100, 1000);
    expect(store.size).toBe(1);
  });
});

@Server({ name: 'limited', version: '1.0.0' })
@RateLimit({ limit: 2, windowMs: 60_000 })
class Limited extends McpServer {
  @Tool()
  @RateLimit({ limit: 3, windowMs: 1_000, name: 'burst' })
  @RateLimit({ limit: 5, windowMs: 86_400_000, name: 'daily' })
  stacked() {
    return 'ok';
  }

  @Tool()
  other() {
    return 'ok';
  }
}

@Server({ name: 'unlimited', version: '1.0.0' })
class Open {
  @Tool()
  free() {
    return 'free';
  }
}

describe.each(['2025-11-25', '2026-07-28'])('@RateLimit in admission, %s', (protocolVersion) => {
  const ana = { subject: 'ana', scopes: [], claims: {} };
  const bo = { subject: 'bo', scopes: [], claims: {} };

  it("counts a class's limit for each of its handlers apart, per principal", async () => {
    const server = createEngine(new Limited(), quiet);
    const a = await connect(server, { protocolVersion, principal: ana });
    const b = await connect(server, { protocolVersion, principal: bo });
    const firstAt = Date.now();
    expect((await a.callTool('other', {})).content).toEqual([{ type: 'text', text: 'ok' }]);
    await a.callTool('other', {});
    const refused = await rpcErrorOf(a.callTool('other', {}));
    const elapsed = Date.now() - firstAt;
    expect(refused.code).toBe(-32004);
    expect(refused.data).toMatchObject({ limit: 'Limited.other', max: 2, windowMs: 60_000 });
    // The window opened with the first call: what is left of it, however slow the machine.
    const { retryAfterMs } = refused.data as { retryAfterMs: number };
    expect(retryAfterMs).toBeGreaterThanOrEqual(60_000 - elapsed - 1);
    expect(retryAfterMs).toBeLessThanOrEqual(60_000);
    // Another principal, and another handler of the class, have their own counts.
    await b.callTool('other', {});
    await a.callTool('stacked', {});
  });

  it('stacks limits: the first to run out refuses, naming itself', async () => {
    const a = await connect(createEngine(new Limited(), quiet), { protocolVersion, principal: ana });
    // The class's 2 a minute (the first of the three on it) runs out before the method's 3 a second.
    await a.callTool('stacked', {});
    await a.callTool('stacked', {});
    expect((await rpcErrorOf(a.callTool('stacked', {}))).data).toMatchObject({ limit: 'Limited.stacked#1', max: 2 });
  });

  it('limits every request to the server with @Server({ rateLimit }), with by: global counting everyone together', async () => {
    @Server({ name: 'global', version: '1.0.0', rateLimit: { limit: 3, windowMs: 60_000, by: 'global', name: 'everyone' } })
    class Global {
      @Tool()
      t() {
        return 't';
      }
    }
    const engine = createEngine(new Global(), quiet);
    const a = await connect(engine, { protocolVersion, principal: ana, initialize: protocolVersion === '2025-11-25' ? false : undefined });
    const b = await connect(engine, { protocolVersion, principal: bo, initialize: false });
    if (protocolVersion === '2025-11-25') {
      await a.initialize();
      await b.initialize();
      // initialize counted for each: 1 left.
      await a.callTool('t', {});
    } else {
      await a.callTool('t', {});
      await b.callTool('t', {});
      await a.callTool('t', {});
    }
    expect((await rpcErrorOf(b.callTool('t', {}))).data).toMatchObject({ limit: 'everyone', max: 3 });
  });

  it('counts by a function of the request', async () => {
    @Server({ name: 'by-fn', version: '1.0.0', rateLimit: { limit: 1, windowMs: 60_000, by: (r) => String(r.params.arguments && (r.params.arguments as { team?: string }).team) } })
    class ByTeam {
      @Tool({ inputSchema: { type: 'object', properties: { team: { type: 'string' } } } })
      t() {
        return 't';
      }
    }
    const a = await connect(createEngine(new ByTeam(), quiet), { protocolVersion: '2026-07-28', principal: ana });
    await a.callTool('t', { team: 'red' });
    await a.callTool('t', { team: 'blue' });
    expect((await rpcErrorOf(a.callTool('t', { team: 'red' }))).code).toBe(-32004);
  });

  it('fails open by default when the store is down, and closed for a limit that says so', async () => {
    const down: RateLimitStore = {
      hit: () => Promise.reject(new Error('store unreachable')),
    };
    const open = await connect(createEngine(new Limited(), { ...quiet, rateLimitStore: down }), { protocolVersion, principal: ana });
    for (let i = 0; i < 4; i++) expect((await open.callTool('other', {})).content).toEqual([{ type: 'text', text: 'ok' }]);
    @Server({ name: 'closed', version: '1.0.0' })
    class Closed {
      @Tool()
      @RateLimit({ limit: 100, windowMs: 1000, onStoreError: 'closed' })
      t() {
        return 't';
      }
    }
    const closed = await connect(createEngine(new Closed(), { ...quiet, rateLimitStore: down }), { protocolVersion, principal: ana });
    expect((await rpcErrorOf(closed.callTool('t', {}))).data).toMatchObject({ reason: 'store-unavailable', retryAfterMs: 1000 });
  });

  it('costs a server without limits nothing: admission answers at once', () => {
    const engine = createEngine(new Open(), quiet);
    expect(engine.pipeline.admit(engine.createSession({ send: () => undefined } as never), { request: { jsonrpc: '2.0', id: 1, method: 'ping' } })).not.toBeInstanceOf(Promise);
  });
});

describe('@RateLimit definitions', () => {
  it('refuses bad limits where they are written', () => {
    expect(() => RateLimit({ limit: 0, windowMs: 1000 })).toThrow(/"limit" must be a positive integer/);
    expect(() => RateLimit({ limit: 1, windowMs: 1.5 })).toThrow(/"windowMs" must be a positive integer/);
    expect(() => RateLimit({ limit: 1, windowMs: 10, by: 'tenant' as never })).toThrow(/"by" must be/);
  });
});
