import { ErrorCode, McpError, type RequestContext } from '@mcpx/core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/**
 * The downstream requests an upstream's calls are running for, so that what the upstream asks its
 * client (elicitation, sampling, roots) reaches the person or model behind the call. An upstream's
 * request does not say which of its calls it belongs to, so it goes to the caller of the calls in
 * flight on that upstream, and is refused when callers of different sessions or principals have
 * calls in flight: a question is never put to the wrong person.
 */
export class Downstream {
  private readonly inFlight = new Set<RequestContext>();

  /** Runs `work` as one of the calls in flight for `ctx`. */
  async during<T>(ctx: RequestContext, work: () => Promise<T>): Promise<T> {
    this.inFlight.add(ctx);
    try {
      return await work();
    } finally {
      this.inFlight.delete(ctx);
    }
  }

  /** Installs the handlers of the upstream's requests on a new connection. */
  install(client: Client, label: string): void {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const ctx = this.caller(label, 'elicitation/create');
      const params = request.params as { mode?: string; message: string; requestedSchema?: Record<string, unknown>; url?: string; elicitationId?: string };
      if (params.mode === 'url') {
        return (await ctx.elicitUrl({ message: params.message, url: params.url!, ...(params.elicitationId ? { elicitationId: params.elicitationId } : {}) })) as never;
      }
      return (await ctx.elicit(params.message, (params.requestedSchema ?? { type: 'object', properties: {} }) as never)) as never;
    });
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      const ctx = this.caller(label, 'sampling/createMessage');
      return (await ctx.sample(request.params as never)) as never;
    });
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      const ctx = this.caller(label, 'roots/list');
      return { roots: await ctx.roots() };
    });
  }

  /** The one caller of every call in flight, when there is one (where an upstream's log lines go). */
  soleCaller(): RequestContext | undefined {
    let latest: RequestContext | undefined;
    for (const ctx of this.inFlight) {
      if (latest && !sameCaller(latest, ctx)) return undefined;
      latest = ctx;
    }
    return latest;
  }

  /** The downstream request to ask through: the latest in flight, when all in flight share one caller. */
  private caller(label: string, method: string): RequestContext {
    let latest: RequestContext | undefined;
    for (const ctx of this.inFlight) {
      if (latest && !sameCaller(latest, ctx)) {
        throw new McpError(ErrorCode.InternalError, `${method} from the upstream server ${label}: calls of several clients are in flight on it, so the gateway cannot tell whom to ask`);
      }
      latest = ctx;
    }
    if (!latest) throw new McpError(ErrorCode.InternalError, `${method} from the upstream server ${label}: no call of a client is in flight on it to ask through`);
    return latest;
  }
}

function sameCaller(a: RequestContext, b: RequestContext): boolean {
  if (a.sessionId !== undefined || b.sessionId !== undefined) return a.sessionId === b.sessionId;
  // 2026-07-28 has no sessions: the same principal (or both anonymous) is the same caller only with auth on.
  return a.principal !== undefined && a.principal.subject === b.principal?.subject;
}
