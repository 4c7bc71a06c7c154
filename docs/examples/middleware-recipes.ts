import 'reflect-metadata';
import { metrics } from '@opentelemetry/api';
import {
  Field,
  McpError,
  McpServer,
  Server,
  Tool,
  UseMiddleware,
  isMcpxError,
  type CallToolResult,
  type Middleware,
  type MiddlewareContext,
  type RequestContext,
  type ToolDefinition,
} from '@mcpx/core';
import { mcpx } from '@mcpx/http';
import { serveStdio } from '@mcpx/stdio';
import Fastify from 'fastify';
import { IsString } from 'class-validator';

/** An application-defined JSON-RPC code: any integer outside -32768..-32000 is free for an application. */
export const FORBIDDEN = 4003;
/** The `_meta` key a tenant's own tools carry in their definition. */
export const TENANT = 'com.example/tenant';
/** The `_meta` key of the support ticket a refund must name. */
export const TICKET = 'com.example/ticket';

// 1. Audit log: one entry per tools/call with the tool, its arguments, the outcome and the duration.

export interface AuditEntry {
  tool: string | undefined;
  arguments: unknown;
  subject: string | undefined;
  outcome: 'ok' | 'tool error' | 'task' | 'protocol error' | 'input required' | 'cancelled' | 'failed';
  code?: number;
  durationMs: number;
}

export function auditLog(write: (entry: AuditEntry) => void): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'tools/call') return next();
    const startedAt = performance.now();
    const seen = { tool: ctx.toolName, arguments: ctx.params.arguments, subject: ctx.principal?.subject };
    try {
      const result = (await next()) as CallToolResult & { task?: unknown; resultType?: unknown };
      const outcome = result.isError ? 'tool error' : result.task !== undefined || result.resultType === 'task' ? 'task' : 'ok';
      write({ ...seen, outcome, durationMs: performance.now() - startedAt });
      return result;
    } catch (err) {
      write({ ...seen, ...failure(ctx, err), durationMs: performance.now() - startedAt });
      throw err; // observed, not handled: the pipeline answers it as it would have
    }
  };
}

function failure(ctx: MiddlewareContext, err: unknown): Pick<AuditEntry, 'outcome' | 'code'> {
  if (ctx.signal.aborted) return { outcome: 'cancelled' };
  // 2026-07-28: the handler asked the client something; this round ends and the client retries.
  if (isMcpxError(err, 'MCPX_INPUT_PENDING') || isMcpxError(err, 'MCPX_INPUT_REQUIRED')) return { outcome: 'input required' };
  if (err instanceof McpError) return { outcome: 'protocol error', code: err.code };
  return { outcome: 'failed' }; // a later middleware threw: the caller gets an isError result
}

// 2. Per-tool checks: on the caller's claims, and on the request's _meta.

/** Lets a request through only when the caller's token carries `claim` with `value`. */
export function requireClaim(claim: string, value: unknown): Middleware {
  return async (ctx, next) => {
    if (ctx.principal?.claims[claim] !== value) {
      throw new McpError(FORBIDDEN, `${ctx.toolName ?? ctx.method} needs the claim ${claim}=${JSON.stringify(value)}`);
    }
    return next();
  };
}

/** Lets a request through only when its `_meta` names a string under `key`, and hands the value to the handler. */
export function requireMeta(key: string): Middleware {
  return async (ctx, next) => {
    const value = ctx.request.meta?.[key];
    if (typeof value !== 'string') throw McpError.invalidParams(`${ctx.toolName ?? ctx.method} needs _meta["${key}"]`);
    ctx.state.set(key, value); // the handler reads it as ctx.state.get(key)
    return next();
  };
}

// 3. Tenant gate: a tool of one tenant refuses every other.

export function tenantOnly(tenant: string): Middleware {
  return async (ctx, next) => {
    if (ctx.principal?.claims.tenant !== tenant) throw new McpError(FORBIDDEN, `${ctx.toolName ?? ctx.method} belongs to another tenant`);
    return next();
  };
}

// 4. Redaction: rewrite what tools return, and what tools/list shows.

const SECRET = /\b[sp]k_(?:live|test)_[A-Za-z0-9]{8,}\b/g;

/** Masks API keys in the text content of every tool result. */
export const redactSecrets: Middleware = async (ctx, next) => {
  if (ctx.method !== 'tools/call') return next();
  const result = (await next()) as CallToolResult;
  if (!Array.isArray(result.content)) return result; // a task: its result is read later (tasks/result, tasks/get)
  return {
    ...result,
    content: result.content.map((block) => (block.type === 'text' ? { ...block, text: block.text.replace(SECRET, '[redacted]') } : block)),
  };
};

/** Leaves out of tools/list the tools whose `_meta` names another tenant than the caller's. */
export const hideOtherTenants: Middleware = async (ctx, next) => {
  if (ctx.method !== 'tools/list') return next();
  const page = (await next()) as { tools: ToolDefinition[]; nextCursor?: string };
  const tenant = ctx.principal?.claims.tenant;
  return { ...page, tools: page.tools.filter((tool) => tool._meta?.[TENANT] === undefined || tool._meta[TENANT] === tenant) };
};

// 5. Timing: a histogram by method and tenant, and an attribute on the request's span.

const handlerDuration = metrics.getMeter('billing').createHistogram('billing.handler.duration', {
  unit: 's',
  description: 'Time from @Server middleware to the answer, by MCP method and tenant',
});

export const timing: Middleware = async (ctx, next) => {
  const startedAt = performance.now();
  try {
    return await next();
  } finally {
    const ms = performance.now() - startedAt;
    ctx.request.span.setAttribute('billing.handler_ms', ms);
    handlerDuration.record(ms / 1000, { 'mcp.method.name': ctx.method, 'billing.tenant': String(ctx.principal?.claims.tenant ?? 'none') });
  }
};

// The server: @Server middleware, class and method middleware, and a runtime entry's own.

export class InvoiceRef {
  @Field({ description: 'Invoice number' })
  @IsString()
  id!: string;
}

@Server({ name: 'billing', version: '1.0.0', middleware: [timing] })
@UseMiddleware(requireClaim('email_verified', true)) // every tool this class declares
export class BillingServer extends McpServer {
  @Tool({ description: 'Shows an invoice' })
  invoice(input: InvoiceRef) {
    return `Invoice ${input.id}: 120.00 EUR, charged with key sk_live_4eC39HqLyjWDarjtT1zdp7dc`;
  }

  @Tool({ description: 'Refunds an invoice; the request names a support ticket in _meta' })
  @UseMiddleware(requireMeta(TICKET))
  refund(input: InvoiceRef, ctx: RequestContext) {
    return `Refunded ${input.id} under ticket ${String(ctx.state.get(TICKET))}`;
  }

  @Tool({ description: "Exports Acme's ledger", _meta: { [TENANT]: 'acme' } })
  @UseMiddleware(tenantOnly('acme'))
  acme_export(_input: void) {
    return 'acme-ledger.csv';
  }

  override onServerInit(): void {
    // A runtime entry has no decorators: its middleware comes in its spec.
    this.registry.addTool({
      name: 'globex_export',
      description: "Exports Globex's ledger",
      _meta: { [TENANT]: 'globex' },
      middleware: [tenantOnly('globex')],
      handler: () => 'globex-ledger.csv',
    });
  }
}

/** The server-wide chain, outermost first; listen() and the Fastify plugin take the same option. */
export const middleware: Middleware[] = [
  auditLog((entry) => process.stderr.write(`${JSON.stringify({ audit: entry })}\n`)),
  redactSecrets,
  hideOtherTenants,
];

// 6. HTTP headers never reach middleware: check them in a hook of the Fastify app that registers the plugin.

export async function buildApp(apiKeys: ReadonlySet<string>) {
  const app = Fastify({ logger: true });
  // Added before the plugin, the hook runs for the endpoint's routes too, before the body is read.
  app.addHook('onRequest', async (request, reply) => {
    const key = request.headers['x-api-key'];
    if (typeof key !== 'string' || !apiKeys.has(key)) return reply.code(401).send({ error: 'X-Api-Key is missing or unknown' });
  });
  await app.register(mcpx, { server: new BillingServer(), middleware });
  return app;
}

if (require.main === module) {
  serveStdio(new BillingServer(), {
    middleware,
    // Over stdio the principal is configured; over HTTP it comes from the bearer token (docs/authorization.md).
    principal: { subject: 'ada', scopes: [], claims: { tenant: 'acme', email_verified: true } },
  });
}
