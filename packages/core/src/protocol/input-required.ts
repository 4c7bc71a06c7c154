/**
 * Input a request waits on from the client (sampling, elicitation, roots), whatever the era. In
 * 2026-07-28 it becomes an InputRequiredResult, answered by the client's retry; in the legacy era,
 * requests to the client on the call's stream.
 */
import { McpxError } from '../errors';

/** One request for the client to fulfil, as InputRequests holds it. */
export interface InputRequest {
  method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  params: Record<string, unknown>;
}

/** What a handler that keeps its own state between rounds (the lower-level form) hands back. */
export interface InputRequiredOptions {
  /** The requests for the client, keyed by names the handler chooses (unique within the request). */
  inputRequests?: Record<string, InputRequest>;
  /** Anything JSON the handler wants back on the retry, as `ctx.requestState` (sealed on the way out). */
  state?: unknown;
}

/** Thrown past a tool's own error handling: the request is not done until the client answers. */
export abstract class InputNeeded extends McpxError {}

/**
 * Throw from a tool, prompt or resource to ask the client for input and end this round: the
 * lower-level form of MRTR, for handlers that hold their own state. The retry runs the handler
 * again with `ctx.inputResponses` (the client's answers by key) and `ctx.requestState` (the
 * `state` given here). In the legacy era the server asks the client on the call's stream and runs
 * the handler again with the answers, so the same code serves both eras.
 */
export class InputRequired extends InputNeeded {
  constructor(readonly input: InputRequiredOptions) {
    super('MCPX_INPUT_REQUIRED', 'The request needs input from the client');
    if (!input.inputRequests && input.state === undefined) throw new TypeError('InputRequired needs inputRequests, state, or both');
  }
}

/** Raised by `ctx.elicit()`, `ctx.sample()` and `ctx.roots()` in the modern era when the answer is not in yet. */
export class InputPending extends InputNeeded {
  constructor() {
    super('MCPX_INPUT_PENDING', 'Waiting for the client to answer');
  }
}

/** Which client capability each kind of input request needs, as a path into ClientCapabilities. */
export function capabilityFor(request: InputRequest): string | undefined {
  switch (request.method) {
    case 'elicitation/create':
      return request.params.mode === 'url' ? 'elicitation.url' : 'elicitation';
    case 'sampling/createMessage':
      return 'sampling';
    case 'roots/list':
      return 'roots';
    default:
      return undefined;
  }
}

/** The short names input keys start with: `elicit-1`, `sample-2`, `roots-3`. */
const KEY_PREFIX: Record<string, string> = { 'elicitation/create': 'elicit', 'sampling/createMessage': 'sample', 'roots/list': 'roots' };

/** The key of the `n`-th question a handler asks (modern requests and tasks alike). */
export function inputKey(method: string, n: number): string {
  return `${KEY_PREFIX[method] ?? 'input'}-${n}`;
}
