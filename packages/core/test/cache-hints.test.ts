/**
 * Caching hints per entry (2026-07-28 caching): `@Resource({ cache })` and `@ResourceTemplate({ cache })`
 * set ttlMs/cacheScope on their resources/read results for modern clients, over the server's `cache`
 * option; what an entry leaves out comes from the server. Legacy results carry no hints.
 */
import 'reflect-metadata';
import pino from 'pino';
import { connect } from '@mcpx/testing';
import { DefinitionError, Registry, Resource, ResourceTemplate, createEngine, type EngineOptions, type RequestContext } from '../src';
import type { JsonRpcResponse, McpEngine } from '../src/transport';

const silent = { logger: pino({ level: 'silent' }) };
const modernMeta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

class Docs {
  @Resource({ uri: 'docs://readme', mimeType: 'text/plain', cache: { ttlMs: 60_000, cacheScope: 'public' } })
  readme() {
    return 'read me';
  }

  @Resource({ uri: 'docs://inbox', mimeType: 'text/plain' })
  inbox() {
    return 'your mail';
  }

  @Resource({ uri: 'docs://live', mimeType: 'text/plain', cache: { ttlMs: 60_000 } })
  live(ctx: RequestContext) {
    // The handler knows best: this one result is stale at once.
    ctx.cacheHint = { ttlMs: 0 };
    return 'now';
  }

  @ResourceTemplate({ uriTemplate: 'docs://pages/{id}', mimeType: 'text/plain', cache: { ttlMs: 5_000 } })
  page({ id }: { id: string }) {
    return `page ${id}`;
  }
}

let nextId = 1;
async function modern(engine: McpEngine, method: string, params: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const response = (await engine.modern.handle({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: modernMeta } }, { send() {} })) as JsonRpcResponse;
  if ('error' in response) throw new Error(`${method}: ${response.error.code} ${response.error.message}`);
  return response.result as Record<string, any>;
}

const read = (engine: McpEngine, uri: string) => modern(engine, 'resources/read', { uri });
const hintOf = (result: Record<string, any>) => ({ ttlMs: result.ttlMs, cacheScope: result.cacheScope });

describe('caching hints of an entry on resources/read (2026-07-28)', () => {
  let engine: McpEngine;
  beforeEach(() => {
    engine = createEngine(new Docs(), { ...silent, cache: { ttlMs: 1_000, cacheScope: 'private' } } satisfies EngineOptions);
  });

  it("a resource's own hint wins over the server's", async () => {
    const result = await read(engine, 'docs://readme');
    expect(result.contents).toEqual([{ uri: 'docs://readme', mimeType: 'text/plain', text: 'read me' }]);
    expect(result.resultType).toBe('complete');
    expect(hintOf(result)).toEqual({ ttlMs: 60_000, cacheScope: 'public' });
  });

  it("a resource without its own hint gets the server's", async () => {
    expect(hintOf(await read(engine, 'docs://inbox'))).toEqual({ ttlMs: 1_000, cacheScope: 'private' });
  });

  it("a template's hint applies to every URI it matches; what it leaves out comes from the server", async () => {
    expect(hintOf(await read(engine, 'docs://pages/1'))).toEqual({ ttlMs: 5_000, cacheScope: 'private' });
    expect(hintOf(await read(engine, 'docs://pages/2'))).toEqual({ ttlMs: 5_000, cacheScope: 'private' });
  });

  it('the handler may still set its own through ctx.cacheHint', async () => {
    expect(hintOf(await read(engine, 'docs://live'))).toEqual({ ttlMs: 0, cacheScope: 'private' });
  });

  it('lists keep the server-wide hint (an entry hints only its own reads)', async () => {
    expect(hintOf(await modern(engine, 'resources/list'))).toEqual({ ttlMs: 1_000, cacheScope: 'private' });
    expect(hintOf(await modern(engine, 'resources/templates/list'))).toEqual({ ttlMs: 1_000, cacheScope: 'private' });
  });

  it("without the server's cache option, the default (ttlMs 0, private) fills in", async () => {
    const plain = createEngine(new Docs(), silent);
    expect(hintOf(await read(plain, 'docs://inbox'))).toEqual({ ttlMs: 0, cacheScope: 'private' });
    expect(hintOf(await read(plain, 'docs://readme'))).toEqual({ ttlMs: 60_000, cacheScope: 'public' });
    expect(hintOf(await read(plain, 'docs://pages/7'))).toEqual({ ttlMs: 5_000, cacheScope: 'private' });
  });

  it('hints of entries added at run time', async () => {
    engine.registry.addResource({ uri: 'docs://late', name: 'late', cache: { cacheScope: 'public' }, handler: () => 'late' });
    expect(hintOf(await read(engine, 'docs://late'))).toEqual({ ttlMs: 1_000, cacheScope: 'public' });
  });

  it('the hint is not listed as part of the resource', async () => {
    const listed = (await modern(engine, 'resources/list')).resources.find((r: { uri: string }) => r.uri === 'docs://readme');
    expect(listed).toEqual({ uri: 'docs://readme', name: 'readme', mimeType: 'text/plain' });
  });
});

describe('legacy results are unchanged', () => {
  it('a legacy session reads without ttlMs or cacheScope', async () => {
    const client = await connect(new Docs(), { ...silent, cache: { ttlMs: 1_000, cacheScope: 'public' } });
    for (const uri of ['docs://readme', 'docs://inbox', 'docs://pages/3']) {
      const result = await client.request('resources/read', { uri });
      expect(result).not.toHaveProperty('ttlMs');
      expect(result).not.toHaveProperty('cacheScope');
      expect(result).not.toHaveProperty('resultType');
      expect(Object.keys(result)).toEqual(['contents']);
    }
    client.close();
  });
});

describe('cache options are checked when the entry is defined', () => {
  function errorOf(define: () => unknown): string {
    try {
      define();
    } catch (err) {
      if (err instanceof DefinitionError) return err.message;
      throw err;
    }
    throw new Error('expected a DefinitionError');
  }

  it.each([[-1], [1.5], [Number.NaN], [Number.POSITIVE_INFINITY], [2 ** 53], ['5000']])('refuses ttlMs %p', (ttlMs) => {
    class S {
      @Resource({ uri: 'docs://x', cache: { ttlMs: ttlMs as number } })
      x() {
        return 'x';
      }
    }
    expect(errorOf(() => createEngine(new S(), silent))).toBe(`S.x: cache.ttlMs must be a whole number of milliseconds >= 0 (a safe integer), got ${JSON.stringify(ttlMs)}`);
  });

  it('refuses a cacheScope other than "public" or "private"', () => {
    class S {
      @ResourceTemplate({ uriTemplate: 'docs://t/{id}', cache: { cacheScope: 'shared' as 'public' } })
      t() {
        return 'x';
      }
    }
    expect(errorOf(() => createEngine(new S(), silent))).toBe('S.t: cache.cacheScope must be "public" or "private", got "shared"');
  });

  it('refuses an unknown option, so a typo does not silently drop the hint', () => {
    expect(errorOf(() => new Registry().addResource({ uri: 'docs://x', name: 'x', cache: { ttl: 5 } as never, handler: () => 'x' }))).toBe(
      'resource "docs://x": cache has an unknown option "ttl" (it takes ttlMs and cacheScope)',
    );
  });

  it('refuses a cache that is not an object', () => {
    expect(errorOf(() => new Registry().addResourceTemplate({ uriTemplate: 'docs://t/{id}', name: 't', cache: 60 as never, handler: () => 'x' }))).toBe(
      'resource template "docs://t/{id}": cache must be an object such as { ttlMs: 60000, cacheScope: \'public\' }, got 60',
    );
  });

  it('accepts ttlMs 0 and the largest safe integer', () => {
    const registry = new Registry();
    expect(registry.addResource({ uri: 'docs://a', name: 'a', cache: { ttlMs: 0 }, handler: () => 'a' }).cache).toEqual({ ttlMs: 0 });
    expect(registry.addResource({ uri: 'docs://b', name: 'b', cache: { ttlMs: Number.MAX_SAFE_INTEGER, cacheScope: 'public' }, handler: () => 'b' }).cache).toEqual({
      ttlMs: Number.MAX_SAFE_INTEGER,
      cacheScope: 'public',
    });
    expect(registry.addResource({ uri: 'docs://c', name: 'c', handler: () => 'c' }).cache).toBeUndefined();
  });
});
