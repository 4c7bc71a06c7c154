import type { ClientCapabilities } from '../protocol/types';
import { ErrorCode, McpError } from '../protocol/errors';
import { text } from '../content/helpers';
import { ClientCapabilityError } from './client-requests';
import type { RequestContext } from './request-context';
import type { MethodHandler } from './handler-types';
import { InputRequired, capabilityFor, type InputRequest } from '../protocol/input-required';

/** How many times a legacy request runs its handler again for an InputRequired before giving up. */
export const MAX_INPUT_ROUNDS = 16;

/** Refuses an input request the client's capabilities do not declare (form elicitation: a bare `elicitation: {}` counts). */
export function checkInputCapability(capabilities: ClientCapabilities, request: InputRequest): void {
  const needed = capabilityFor(request);
  if (!needed) throw new TypeError(`InputRequired: unknown input request method ${JSON.stringify(request.method)}`);
  const [head, sub] = needed.split('.') as [keyof ClientCapabilities, string | undefined];
  const declared = capabilities[head] as Record<string, unknown> | undefined;
  const ok = !!declared && (sub === undefined ? head !== 'elicitation' || declared.form !== undefined || declared.url === undefined : declared[sub] !== undefined);
  if (!ok) throw new ClientCapabilityError(`The client does not support ${request.method}${sub ? ` (${sub})` : ''}: no "${needed}" capability was declared`, needed);
}

/**
 * The legacy era's way through an InputRequired (the lower-level form of multi round-trip
 * requests; `first` is what the handler's first run threw): the server asks the client each input
 * request on the call's own stream, then runs the handler again with the answers and the state it
 * gave, until it completes. The same handler
 * thus serves 2026-07-28 clients (as InputRequiredResults) and 2025 sessions.
 */
export async function answerInputRounds(handler: MethodHandler, params: Record<string, unknown>, ctx: RequestContext, first: InputRequired): Promise<Record<string, unknown>> {
  let asked = first;
  // `round` counts the handler's runs so far, each ended by an InputRequired.
  for (let round = 1; ; round++) {
    if (ctx.aborted) throw asked;
    if (round >= MAX_INPUT_ROUNDS) throw new Error(`${ctx.method} asked the client for input ${MAX_INPUT_ROUNDS} times without completing`);
    const requests = Object.entries(asked.input.inputRequests ?? {});
    try {
      for (const [, request] of requests) checkInputCapability(ctx.clientCapabilities, request);
    } catch (missing) {
      if (!(missing instanceof ClientCapabilityError)) throw missing;
      // As from ctx.elicit() in a tool: a result the model can act on; elsewhere, the request fails.
      if (ctx.method === 'tools/call') return { content: [text(missing.message)], isError: true };
      throw new McpError(ErrorCode.InvalidRequest, missing.message);
    }
    const responses: Record<string, unknown> = {};
    for (const [key, request] of requests) responses[key] = await ctx.host.ask(request.method, request.params, ctx.channel, { signal: ctx.signal });
    ctx.input = { responses, state: asked.input.state };
    try {
      return await handler(params, ctx);
    } catch (err) {
      if (!(err instanceof InputRequired)) throw err;
      asked = err;
    }
  }
}
