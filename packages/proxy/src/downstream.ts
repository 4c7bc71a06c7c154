import { ErrorCode, McpError, isMcpxError, type RequestContext } from '@mcpx/core';
import type { Client } from '@modelcontextprotocol/client';

/**
 * The downstream requests an upstream's calls are running for, so that what the upstream asks its
 * client (elicitation, sampling, roots) reaches the person or model behind the call. An upstream's
 * request does not say which of its calls it belongs to, so it goes to the caller of the calls in
 * flight on that upstream, and is refused when callers of different sessions or principals have
 * calls in flight: a question is never put to the wrong person.
 */
export class Downstream {
  private readonly inFlight = new Set<RequestContext>();
  /** How to end a call in flight early: a 2026-07-28 client answers a question on a retry of its request. */
  private readonly interrupts = new Map<RequestContext, (reason: unknown) => void>();

  /**
   * Runs `work` as one of the calls in flight for `ctx`, with a signal that aborts when the client
   * cancels or when the round ends early (see interrupt).
   */
  async during<T>(ctx: RequestContext, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const cancel = () => controller.abort(ctx.signal.reason);
    ctx.signal.addEventListener('abort', cancel, { once: true });
    let interrupt!: (reason: unknown) => void;
    const interrupted = new Promise<never>((_, reject) => (interrupt = reject));
    this.interrupts.set(ctx, (reason) => {
      controller.abort(reason);
      interrupt(reason);
    });
    this.inFlight.add(ctx);
    try {
      return await Promise.race([work(controller.signal), interrupted]);
    } finally {
      this.inFlight.delete(ctx);
      this.interrupts.delete(ctx);
      ctx.signal.removeEventListener('abort', cancel);
    }
  }

  /**
   * Installs the handlers of the upstream's requests on a new connection: what a 2025-11-25
   * upstream sends as requests and a 2026-07-28 one returns as input requests, which the client
   * answers through these same handlers before it retries the call.
   */
  install(client: Client, label: string): void {
    client.setRequestHandler('elicitation/create', async (request) => {
      const ctx = this.caller(label, 'elicitation/create');
      const params = request.params as { mode?: string; message: string; requestedSchema?: Record<string, unknown>; url?: string; elicitationId?: string };
      if (params.mode === 'url') {
        const url = { message: params.message, url: params.url!, ...(params.elicitationId ? { elicitationId: params.elicitationId } : {}) };
        return (await this.asking(ctx, () => ctx.elicitUrl(url))) as never;
      }
      return (await this.asking(ctx, () => ctx.elicit(params.message, (params.requestedSchema ?? { type: 'object', properties: {} }) as never))) as never;
    });
    client.setRequestHandler('sampling/createMessage', async (request) => {
      const ctx = this.caller(label, 'sampling/createMessage');
      return (await this.asking(ctx, () => ctx.sample(request.params as never))) as never;
    });
    client.setRequestHandler('roots/list', async () => {
      const ctx = this.caller(label, 'roots/list');
      return { roots: (await this.asking(ctx, () => ctx.roots())) as never };
    });
  }

  /**
   * Asks the client through `ctx`. A 2026-07-28 client is asked by ending its request's round
   * (input required): its answer comes with a retry of the whole request, which calls the upstream
   * again, and the upstream asks again. So this round's upstream call is cancelled and the round ends.
   */
  private async asking<T>(ctx: RequestContext, ask: () => Promise<T>): Promise<T> {
    try {
      return await ask();
    } catch (err) {
      if (isMcpxError(err, 'MCPX_INPUT_PENDING') || isMcpxError(err, 'MCPX_INPUT_REQUIRED')) this.interrupts.get(ctx)?.(err);
      throw err;
    }
  }

  /** The one caller of every call in flight: 'none' or 'several' when there is no such caller. */
  soleCaller(): RequestContext | 'none' | 'several' {
    let latest: RequestContext | undefined;
    for (const ctx of this.inFlight) {
      if (latest && !sameCaller(latest, ctx)) return 'several';
      latest = ctx;
    }
    return latest ?? 'none';
  }

  /** The downstream request to ask through: the latest in flight, when all in flight share one caller. */
  private caller(label: string, method: string): RequestContext {
    const ctx = this.soleCaller();
    if (ctx === 'several')
      throw new McpError(ErrorCode.InternalError, `${method} from the upstream server ${label}: calls of several clients are in flight on it, so the gateway cannot tell whom to ask`);
    if (ctx === 'none') throw new McpError(ErrorCode.InternalError, `${method} from the upstream server ${label}: no call of a client is in flight on it to ask through`);
    return ctx;
  }
}

function sameCaller(a: RequestContext, b: RequestContext): boolean {
  if (a.sessionId !== undefined || b.sessionId !== undefined) return a.sessionId === b.sessionId;
  // 2026-07-28 has no sessions: the same principal (or both anonymous) is the same caller only with auth on.
  return a.principal !== undefined && a.principal.subject === b.principal?.subject;
}
