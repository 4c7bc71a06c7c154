/**
 * The servers the middleware and extension tests drive over every transport and both eras: a shop
 * whose middleware records what ran (server-wide, class, method), short-circuits, rewrites params
 * and list results, fails each way, wraps an elicitation and hands a value to its handler; and a
 * protocol extension defined here, outside core, as an application would write one.
 * Not a test file itself.
 */
import 'reflect-metadata';
import { IsBoolean, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { Field, McpError, Prompt, Server, Tool, UseMiddleware, text, type McpExtension, type Middleware, type RequestContext } from '../src';

/** What ran, in order ("<who> <method>"), and how often the interesting parts ran. Tests reset it. */
export const probe = {
  seen: [] as string[],
  priceRuns: 0,
  confirmMiddlewareRuns: 0,
  confirmRuns: 0,
  reset(): void {
    this.seen.length = 0;
    this.priceRuns = 0;
    this.confirmMiddlewareRuns = 0;
    this.confirmRuns = 0;
  },
};

/** A middleware that only records that it ran. */
export const record =
  (who: string): Middleware =>
  async (ctx, next) => {
    probe.seen.push(`${who} ${ctx.method}`);
    return next();
  };

/** The tenant a request is made for: the principal's `tenant` claim (HTTP auth, or stdio's principal). */
const tenantOf = (principal: { claims: Record<string, unknown> } | undefined) => (typeof principal?.claims.tenant === 'string' ? principal.claims.tenant : undefined);

/** An entry named `<tenant>_...` is shown to that tenant only; the rest to everyone. */
const TENANTS = ['acme', 'globex'];
function visibleTo(tenant: string | undefined): (entry: { name: string }) => boolean {
  return ({ name }) => {
    const owner = TENANTS.find((t) => name.startsWith(`${t}_`));
    return owner === undefined || owner === tenant;
  };
}

/** Server-wide: rewrites the tools/list and prompts/list results for the caller's tenant. */
export const tenantLists: Middleware = async (ctx, next) => {
  const result = (await next()) as Record<string, unknown>;
  const tenant = tenantOf(ctx.principal);
  if (ctx.method === 'tools/list') return { ...result, tools: (result.tools as { name: string }[]).filter(visibleTo(tenant)) };
  if (ctx.method === 'prompts/list') return { ...result, prompts: (result.prompts as { name: string }[]).filter(visibleTo(tenant)) };
  return result;
};

/** Answers from a cache when it can: the handler never runs for a cached sku. */
const PRICE_CACHE = new Map<string, unknown>([
  ['gold', 'cached gold: 1900'],
  ['silver', { content: [text('cached silver: 24')] }],
]);
const cachedPrice: Middleware = async (ctx, next) => {
  const sku = (ctx.params.arguments as { sku?: unknown } | undefined)?.sku;
  if (typeof sku === 'string' && PRICE_CACHE.has(sku)) {
    // A string becomes text content; a result object is answered as it is.
    return PRICE_CACHE.get(sku);
  }
  return next();
};

/** Rewrites the arguments before the handler sees them. */
const upperCaseWord: Middleware = async (ctx, next) => {
  const args = (ctx.params.arguments ?? {}) as Record<string, unknown>;
  ctx.params = { ...ctx.params, arguments: { ...args, word: String(args.word).toUpperCase() } };
  return next();
};

/** A protocol error of the application's own. */
export const QUOTA_CODE = -32050;
const quota: Middleware = async () => {
  throw new McpError(QUOTA_CODE, 'quota exceeded', { retryAfterSeconds: 30 });
};

/** Anything but an McpError. */
const broken: Middleware = async () => {
  throw new Error('middleware broke');
};

const countConfirm: Middleware = async (ctx, next) => {
  probe.confirmMiddlewareRuns++;
  probe.seen.push(`confirm-middleware ${ctx.era}`);
  return next();
};

/** Turns any failure into an isError result: common, and must not swallow a 2026-07-28 question. */
const failuresAsResults: Middleware = async (_ctx, next) => {
  try {
    return await next();
  } catch (err) {
    return { content: [text(`failed: ${(err as Error).message}`)], isError: true };
  }
};

/** Leaves a value for the handler: who called, in which era, for which tool. */
const stamp: Middleware = async (ctx, next) => {
  ctx.state.set('stamp', `${ctx.era}/${ctx.toolName}/${ctx.principal?.subject ?? 'anonymous'}/${ctx.clientInfo?.name}`);
  return next();
};

export class SkuInput {
  @Field({ description: 'What to price' })
  @IsString()
  sku!: string;
}

export class WordInput {
  @Field({ description: 'A word to shout' })
  @IsString()
  word!: string;
}

export class Confirmation {
  @Field({ title: 'Confirm' })
  @IsBoolean()
  confirm!: boolean;
}

@Server({ name: 'pipeline-shop', version: '1.0.0', middleware: [record('server'), tenantLists] })
@UseMiddleware(record('class'))
export class Shop {
  @Tool({ description: 'Records the middleware around it' })
  @UseMiddleware(record('method'))
  ordered() {
    probe.seen.push('handler ordered');
    return 'ordered';
  }

  @Tool({ description: 'Has no middleware of its own' })
  plain() {
    probe.seen.push('handler plain');
    return 'plain';
  }

  @Tool({ description: 'Prices a sku, unless the cache knows it' })
  @UseMiddleware(cachedPrice)
  price(input: SkuInput) {
    probe.priceRuns++;
    return `computed ${input.sku}`;
  }

  @Tool({ description: 'Says what it heard' })
  @UseMiddleware(upperCaseWord)
  shout(input: WordInput) {
    return `heard ${input.word}`;
  }

  @Tool({ description: 'Refused by its middleware with a protocol error' })
  @UseMiddleware(quota)
  limited() {
    probe.seen.push('handler limited');
    return 'never';
  }

  @Tool({ description: 'Its middleware throws' })
  @UseMiddleware(broken)
  fragile() {
    probe.seen.push('handler fragile');
    return 'never';
  }

  @Prompt({ description: 'Its middleware throws' })
  @UseMiddleware(broken)
  brittle() {
    probe.seen.push('handler brittle');
    return 'never';
  }

  @Tool({ description: 'Asks before ordering' })
  @UseMiddleware(countConfirm)
  async confirmOrder(_input: void, ctx: RequestContext) {
    probe.confirmRuns++;
    const answer = await ctx.elicit('Place the order?', Confirmation);
    return `order ${answer.action} confirm=${String(answer.content?.confirm)}`;
  }

  @Tool({ description: 'Asks before ordering, behind a middleware that catches every failure' })
  @UseMiddleware(failuresAsResults)
  async guardedOrder(_input: void, ctx: RequestContext) {
    const answer = await ctx.elicit('Place the order?', Confirmation);
    return `guarded order ${answer.action}`;
  }

  @Tool({ description: 'Answers with what its middleware left in ctx.state' })
  @UseMiddleware(stamp)
  whoami(_input: void, ctx: RequestContext) {
    return String(ctx.state.get('stamp'));
  }

  @Tool({ description: "Acme's invoices" })
  acme_invoices() {
    return 'acme invoices';
  }

  @Tool({ description: "Globex's invoices" })
  globex_invoices() {
    return 'globex invoices';
  }

  @Prompt({ description: "Acme's brief" })
  acme_brief() {
    return 'acme brief';
  }

  @Prompt({ description: "Globex's brief" })
  globex_brief() {
    return 'globex brief';
  }

  @Prompt({ description: 'For everyone' })
  summary() {
    return 'summary';
  }
}

/** The tools every tenant sees, in the registry's order. */
export const SHARED_TOOLS = ['ordered', 'plain', 'price', 'shout', 'limited', 'fragile', 'confirmOrder', 'guardedOrder', 'whoami'];

// ---------------------------------------------------------------------------------------------
// A protocol extension, written as an application outside core would write it.

export const EXTENSION_ID = 'com.example/test';

export class EchoParams {
  @IsString()
  text!: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(5)
  times?: number;
}

export class PingParams {
  @IsString()
  note!: string;
}

/** What the extension saw. */
export interface ExtensionProbe {
  pings: { note: unknown; sessionId: string | undefined; subject: string | undefined }[];
  setups: number;
}

export function newExtensionProbe(): ExtensionProbe {
  return { pings: [], setups: 0 };
}

/**
 * The test extension: `example/echo` (params checked by EchoParams), `example/strict` (only for
 * 2026-07-28 clients that declare the extension), the `notifications/example/ping` notification,
 * and a middleware that records itself and leaves a value for the methods. `offered` decides the
 * settings: given a function, the extension is offered only while it says so.
 */
export function testExtension(seen: ExtensionProbe, offered?: (server: { registry: { tools: { has(name: string): boolean } } }) => boolean): McpExtension {
  return {
    id: EXTENSION_ID,
    settings: offered ? (server) => (offered(server) ? { flavour: 'gated' } : undefined) : { flavour: 'plain', level: 2 },
    methods: [
      {
        name: 'example/echo',
        params: EchoParams,
        handler: (params, ctx) => ({
          echoed: String(params.text).repeat(typeof params.times === 'number' ? params.times : 1),
          era: ctx.env.era,
          fromMiddleware: ctx.state.get('extension'),
        }),
      },
      { name: 'example/strict', requiresClientDeclaration: true, handler: (_params, ctx) => ({ strict: 'served', era: ctx.env.era }) },
    ],
    notifications: [
      {
        name: 'notifications/example/ping',
        params: PingParams,
        handler: (params, from) => void seen.pings.push({ note: params.note, sessionId: from.sessionId, subject: from.principal?.subject }),
      },
    ],
    middleware: [
      async (ctx, next) => {
        probe.seen.push(`extension ${ctx.method}`);
        ctx.state.set('extension', `extension saw ${ctx.method}`);
        return next();
      },
    ],
    setup: () => void seen.setups++,
  };
}

/** What the extension `Extended` declares through `@Server` saw. */
export const decoratedExtension = newExtensionProbe();

/** A server that serves the extension through `@Server`, with one tool. */
@Server({ name: 'extended', version: '1.0.0', middleware: [record('server')], extensions: [testExtension(decoratedExtension)] })
export class Extended {
  @Tool({ description: 'Says hello' })
  hello() {
    probe.seen.push('handler hello');
    return 'hello';
  }
}

/** A server without extensions of its own: tests give one in the engine options. */
@Server({ name: 'bare', version: '1.0.0', middleware: [record('server')] })
export class Bare {
  @Tool({ description: 'Says hello' })
  hello() {
    probe.seen.push('handler hello');
    return 'hello';
  }
}
