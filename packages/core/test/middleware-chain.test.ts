/**
 * The middleware runner and its edges: runChain's onion order, short-circuits, a second next(), a
 * synchronous throw; the checks on middleware lists; @UseMiddleware stacked and inherited; and
 * what a faulty middleware comes to in a request, in both eras (the in-process test client).
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { connect, quietOptions, rpcErrorOf, type TestClient } from '@mcpx/testing';
import { Field, Prompt, Resource, ResourceTemplate, Server, Tool, UseMiddleware, type Middleware, type MiddlewareContext, type RequestContext } from '../src';
// The runner and the list check are internal: taken from their source file.
import { checkMiddleware, runChain } from '../src/context/middleware';

/** runChain never reads the context: any object stands in for one. */
const CTX = {} as MiddlewareContext;

describe('runChain', () => {
  it('runs the chain in onion order around the last step, and resolves with what the first returned', async () => {
    const seen: string[] = [];
    const layer =
      (name: string): Middleware =>
      async (_ctx, next) => {
        seen.push(`${name} before`);
        const value = await next();
        seen.push(`${name} after`);
        return `${name}(${String(value)})`;
      };
    const result = await runChain([layer('a'), layer('b')], CTX, async () => {
      seen.push('last');
      return 'x';
    });
    expect(result).toBe('a(b(x))');
    expect(seen).toEqual(['a before', 'b before', 'last', 'b after', 'a after']);
  });

  it('calls the last step alone when the chain is empty', async () => {
    await expect(runChain([], CTX, async () => 'only')).resolves.toBe('only');
  });

  it('stops where a middleware answers without next(): the rest of the chain and the last step never run', async () => {
    const last = jest.fn(async () => 'handler');
    const later = jest.fn<Promise<unknown>, Parameters<Middleware>>(async (_ctx, next) => next());
    const outer: Middleware = async (_ctx, next) => `outer saw ${String(await next())}`;
    const cache: Middleware = async () => 'cached';
    await expect(runChain([outer, cache, later], CTX, last)).resolves.toBe('outer saw cached');
    expect(later).not.toHaveBeenCalled();
    expect(last).not.toHaveBeenCalled();
  });

  it('fails a second next() from the same middleware (at once or after the first settled), running the rest once', async () => {
    const last = jest.fn(async () => 'handler');
    const twiceAtOnce: Middleware = (_ctx, next) => Promise.all([next(), next()]);
    await expect(runChain([twiceAtOnce], CTX, last)).rejects.toThrow('a middleware called next() more than once');
    expect(last).toHaveBeenCalledTimes(1);

    last.mockClear();
    const retrying: Middleware = async (_ctx, next) => {
      await next();
      return next();
    };
    const inner = jest.fn<Promise<unknown>, Parameters<Middleware>>(async (_ctx, next) => next());
    await expect(runChain([retrying, inner], CTX, last)).rejects.toThrow('a middleware called next() more than once');
    expect(inner).toHaveBeenCalledTimes(1);
    expect(last).toHaveBeenCalledTimes(1);
  });

  it('fails a next() after an inner middleware answered without it', async () => {
    const last = jest.fn(async () => 'handler');
    const again: Middleware = async (_ctx, next) => {
      const first = await next();
      return [first, await next()];
    };
    const cache: Middleware = async () => 'cached';
    await expect(runChain([again, cache], CTX, last)).rejects.toThrow('a middleware called next() more than once');
    expect(last).not.toHaveBeenCalled();
  });

  it('turns a synchronous throw (a middleware that is not async) into a rejection, never a throw', async () => {
    const sync = (() => {
      throw new Error('thrown synchronously');
    }) as unknown as Middleware;
    let chained!: Promise<unknown>;
    expect(() => (chained = runChain([sync], CTX, async () => 'handler'))).not.toThrow();
    await expect(chained).rejects.toThrow('thrown synchronously');

    // The same deeper in the chain: the outer middleware sees it as next()'s rejection.
    const seen: unknown[] = [];
    const observer: Middleware = async (_ctx, next) => {
      try {
        return await next();
      } catch (err) {
        seen.push((err as Error).message);
        throw err;
      }
    };
    await expect(runChain([observer, sync], CTX, async () => 'handler')).rejects.toThrow('thrown synchronously');
    expect(seen).toEqual(['thrown synchronously']);
  });

  it('takes a middleware that returns a plain value (not a promise)', async () => {
    const plain = ((_ctx: MiddlewareContext, _next: () => Promise<unknown>) => 'plain value') as unknown as Middleware;
    await expect(runChain([plain], CTX, async () => 'handler')).resolves.toBe('plain value');
  });
});

describe('checkMiddleware and @UseMiddleware', () => {
  it('accepts an array of functions, as a frozen copy; undefined is none', () => {
    const fn: Middleware = async (_ctx, next) => next();
    const given = [fn];
    const checked = checkMiddleware(given, 'the middleware option');
    expect(checked).toEqual([fn]);
    expect(checked).not.toBe(given);
    expect(Object.isFrozen(checked)).toBe(true);
    expect(checkMiddleware(undefined, 'the middleware option')).toEqual([]);
  });

  it('refuses what is not an array of functions, naming where it came from and which entry', () => {
    expect(() => checkMiddleware('nope', 'the middleware option')).toThrow(new TypeError('the middleware option: middleware must be an array of functions'));
    expect(() => checkMiddleware([async () => 1, null], '@Server middleware')).toThrow(new TypeError('@Server middleware: middleware[1] is null, not a function'));
    expect(() => UseMiddleware('x' as unknown as Middleware)).toThrow(new TypeError('@UseMiddleware: middleware[0] is string, not a function'));
  });
});

// -------------------------------------------------------------------------------------------
// In requests: stacking, inheritance, and what a faulty middleware comes to.

const seen: string[] = [];
const mark =
  (name: string): Middleware =>
  async (ctx, next) => {
    seen.push(`${name}:${ctx.method}`);
    return next();
  };

class NoteInput {
  @Field()
  @IsString()
  note!: string;
}

@UseMiddleware(mark('base'))
class BaseTools {
  @Tool({ description: 'Declared on the base class' })
  inherited() {
    seen.push('handler inherited');
    return 'inherited';
  }
}

@Server({ name: 'chain-edges', version: '1.0.0' })
@UseMiddleware(mark('derived'))
class EdgeServer extends BaseTools {
  @Tool({ description: 'Two @UseMiddleware stacked: they run top to bottom' })
  @UseMiddleware(mark('top'))
  @UseMiddleware(mark('bottom'))
  stacked() {
    seen.push('handler stacked');
    return 'stacked';
  }

  @Tool({ description: 'Its middleware calls next() twice' })
  @UseMiddleware(async (_ctx, next) => {
    await next();
    return next();
  })
  twice() {
    seen.push('handler twice');
    return 'twice';
  }

  @Prompt({ description: 'Its middleware calls next() twice' })
  @UseMiddleware(async (_ctx, next) => {
    await next();
    return next();
  })
  twicePrompt() {
    seen.push('handler twicePrompt');
    return 'twice';
  }

  @Tool({ description: 'Its middleware is not async and throws' })
  @UseMiddleware((() => {
    throw new Error('sync middleware failure');
  }) as unknown as Middleware)
  syncThrow() {
    seen.push('handler syncThrow');
    return 'never';
  }

  @Tool({ description: 'Its middleware sets params to something that is not an object' })
  @UseMiddleware(async (ctx, next) => {
    ctx.params = 'not params' as unknown as Record<string, unknown>;
    return next();
  })
  badParams() {
    seen.push('handler badParams');
    return 'never';
  }

  @Tool({ description: 'Its middleware sends the call to a tool that needs a scope' })
  @UseMiddleware(async (ctx, next) => {
    ctx.params = { ...ctx.params, name: 'secret' };
    return next();
  })
  redirect() {
    return 'not redirected';
  }

  @Tool({ description: 'Its middleware sends the call to a tool anyone may use' })
  @UseMiddleware(async (ctx, next) => {
    ctx.params = { ...ctx.params, name: 'inherited' };
    return next();
  })
  forward() {
    return 'not forwarded';
  }

  @Tool({ description: 'Needs a scope', scopes: ['admin'] })
  secret() {
    seen.push('handler secret');
    return 'the secret';
  }

  @Resource({ uri: 'mem://guarded', mimeType: 'text/plain' })
  @UseMiddleware(mark('resource'))
  guarded() {
    seen.push('handler guarded');
    return 'guarded content';
  }

  @ResourceTemplate({ uriTemplate: 'mem://items/{id}', name: 'item', mimeType: 'text/plain' })
  @UseMiddleware(mark('template'))
  item({ id }: { id: string }) {
    seen.push(`handler item ${id}`);
    return `item ${id}`;
  }

  @Tool({ description: 'Reads the note its middleware changed' })
  @UseMiddleware(async (ctx, next) => {
    ctx.state.set('original', (ctx.params.arguments as { note: string }).note);
    ctx.params = { ...ctx.params, arguments: { note: 'rewritten' } };
    return next();
  })
  note(input: NoteInput, ctx: RequestContext) {
    return `${String(ctx.state.get('original'))} -> ${input.note}`;
  }
}

/** A server-wide middleware that answers tools/list with something that is not a result object. */
const listAsString: Middleware = async (ctx, next) => (ctx.method === 'tools/list' && ctx.params.cursor === 'as-string' ? 'a string' : next());

/** A server-wide middleware that turns a call of `sneak` (no such tool) into one of `secret`. */
const sneakIn: Middleware = async (ctx, next) => {
  if (ctx.toolName === 'sneak') ctx.params = { ...ctx.params, name: 'secret' };
  return next();
};

const textOf = (result: { content: unknown }) => (result.content as { type: string; text?: string }[]).map((c) => c.text).join('\n');

describe.each([
  ['2025-11-25', undefined],
  ['2026-07-28', '2026-07-28'],
] as const)('faulty and unusual middleware in requests (%s)', (_name, protocolVersion) => {
  let client: TestClient;

  beforeAll(async () => {
    client = await connect(new EdgeServer(), {
      ...quietOptions(),
      middleware: [listAsString, sneakIn],
      protocolVersion,
      principal: { subject: 'reader', scopes: ['read'], claims: {} },
    });
  });
  beforeEach(() => void (seen.length = 0));

  it("runs the base class's middleware, then the class's, then stacked decorators top to bottom", async () => {
    expect(textOf(await client.callTool('stacked'))).toBe('stacked');
    expect(seen).toEqual(['base:tools/call', 'derived:tools/call', 'top:tools/call', 'bottom:tools/call', 'handler stacked']);
    seen.length = 0;
    expect(textOf(await client.callTool('inherited'))).toBe('inherited');
    expect(seen).toEqual(['base:tools/call', 'derived:tools/call', 'handler inherited']);
  });

  it('fails a tools/call whose middleware calls next() twice as an isError result; the handler ran once', async () => {
    const result = await client.callTool('twice');
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'a middleware called next() more than once' }] });
    expect(seen.filter((s) => s.startsWith('handler'))).toEqual(['handler twice']);
  });

  it('fails a prompts/get whose middleware calls next() twice with -32603', async () => {
    const error = await rpcErrorOf(client.getPrompt('twicePrompt'));
    expect(error.code).toBe(-32603);
    expect(error.message).toBe('Internal error while handling prompts/get');
    expect(seen.filter((s) => s.startsWith('handler'))).toEqual(['handler twicePrompt']);
  });

  it('answers a synchronous throw in a tool middleware as an isError result with its message', async () => {
    expect(await client.callTool('syncThrow')).toMatchObject({ isError: true, content: [{ type: 'text', text: 'sync middleware failure' }] });
    expect(seen).not.toContain('handler syncThrow');
  });

  it('fails a call whose middleware set params to a non-object, without running the handler', async () => {
    expect(await client.callTool('badParams')).toMatchObject({ isError: true, content: [{ type: 'text', text: 'a middleware set params to something that is not an object' }] });
    expect(seen).not.toContain('handler badParams');
  });

  it('answers -32603 when a server-wide middleware answers a list with something that is not a result object', async () => {
    const error = await rpcErrorOf(client.request('tools/list', { cursor: 'as-string' }));
    expect(error.code).toBe(-32603);
    expect(error.message).toBe('A middleware answered tools/list with string, not a result object');
  });

  it('checks the scopes of the tool a server-wide middleware redirected a call to', async () => {
    // sneak → secret: the caller lacks `admin`, so the rewritten call is refused.
    const refused = await rpcErrorOf(client.callTool('sneak'));
    expect(refused.code).toBe(-32003);
    expect(refused.data).toEqual({ requiredScopes: ['admin'] });
    expect(seen).not.toContain('handler secret');
  });

  it("checks the scopes of the tool a tool's own middleware redirected a call to", async () => {
    // redirect → secret, by redirect's @UseMiddleware: refused as well.
    const refused = await rpcErrorOf(client.callTool('redirect'));
    expect(refused.code).toBe(-32003);
    expect(refused.data).toEqual({ requiredScopes: ['admin'] });
    expect(seen).not.toContain('handler secret');
    // A redirect to a tool the caller may use is served by that tool's handler.
    seen.length = 0;
    expect(textOf(await client.callTool('forward'))).toBe('inherited');
    expect(seen).toEqual(['base:tools/call', 'derived:tools/call', 'handler inherited']);
  });

  it("runs a resource's and a template's own middleware (after the class's) for resources/read of them only", async () => {
    expect((await client.readResource('mem://guarded')).contents).toEqual([{ uri: 'mem://guarded', mimeType: 'text/plain', text: 'guarded content' }]);
    expect(seen).toEqual(['base:resources/read', 'derived:resources/read', 'resource:resources/read', 'handler guarded']);
    seen.length = 0;
    expect((await client.readResource('mem://items/7')).contents).toEqual([{ uri: 'mem://items/7', mimeType: 'text/plain', text: 'item 7' }]);
    expect(seen).toEqual(['base:resources/read', 'derived:resources/read', 'template:resources/read', 'handler item 7']);
    seen.length = 0;
    await client.listResources();
    await client.listResourceTemplates();
    expect(seen).toEqual([]);
  });

  it('gives the handler the rewritten arguments, and what the middleware kept of the originals in ctx.state', async () => {
    expect(textOf(await client.callTool('note', { note: 'original' }))).toBe('original -> rewritten');
  });
});
