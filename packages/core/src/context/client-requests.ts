import { randomUUID } from 'node:crypto';
import type { CreateMessageParams, CreateMessageResult, ElicitResult, Root } from '../protocol/types';
import type { JsonSchema } from '../schema/json-schema';
import { checkElicitationSchema } from '../schema/check-elicitation-schema';
import { toElicitationSchema } from '../schema/to-elicitation-schema';
import { validateElicitedContent } from '../schema/validate-elicited-content';
import { formatIssues } from '../schema/class-validation';
import { compileJsonSchema } from '../schema/json-schema-validation';
import { ErrorCode, McpError } from '../protocol/errors';
import { McpxError } from '../errors';
import type { Context } from '@opentelemetry/api';
import type { ClientCapabilities } from '../protocol/types';
import type { MessageChannel } from './channel';
import type { RequestEnv } from './request-env';
import type { RequestHost } from './services';
import type { ChildSpan as AskSpan, RequestTrace } from '../telemetry/telemetry';

/** What asking the client needs of a request's context (RequestContext has it all; kept structural so the two files do not import each other). */
export interface AskingContext {
  readonly host: RequestHost;
  readonly env: RequestEnv;
  readonly channel: MessageChannel;
  readonly signal: AbortSignal;
  readonly aborted: boolean;
  readonly clientCapabilities: ClientCapabilities;
  readonly session?: { readonly stateless: boolean; readonly telemetrySessionId: string | undefined };
  readonly engine: RequestHost['engine'];
  readonly traceContext: Context;
  readonly trace?: RequestTrace | AskSpan;
  readonly task?: { readonly id: string; inputRequired(waiting: boolean): void };
}
import { InputNeeded } from '../protocol/input-required';
import type { ChildSpan } from '../telemetry/telemetry';
import { ATTR_JSONRPC_REQUEST_ID } from '../telemetry/semconv';
import type { RequestId } from '../protocol/jsonrpc';

/**
 * Requests a handler makes of the client: sampling, elicitation, roots. Each checks what the
 * client declared first, rides the handler's own channel (so over HTTP it reaches the client on
 * the stream of the call that caused it), follows the handler's abort signal, and times out.
 */

export interface ClientRequestOptions {
  /** Overrides the engine's clientRequestTimeoutMs for this request. */
  timeoutMs?: number;
}

/**
 * Thrown when the client lacks what a request needs. Legacy era: shown to the model as a tool
 * error. Modern era: the request fails with -32021 naming the capability, as 2026-07-28 requires.
 */
export class ClientCapabilityError extends McpxError {
  constructor(
    message: string,
    /** The capability missing, as a path into ClientCapabilities (for example `elicitation.url`). */
    readonly capability: string,
  ) {
    super('MCPX_CLIENT_CAPABILITY', message);
  }

  toMcpError(): McpError {
    const [head, ...rest] = this.capability.split('.');
    const required: Record<string, unknown> = {};
    let at = required;
    let key = head!;
    for (const part of rest) {
      const next: Record<string, unknown> = {};
      at[key] = next;
      at = next;
      key = part;
    }
    at[key] = {};
    return new McpError(ErrorCode.MissingRequiredClientCapability, this.message, { requiredCapabilities: required });
  }
}

/**
 * Thrown when this server cannot ask the client anything: it runs stateless (stateless HTTP), so
 * no stream outlives the request and the client's answer would have nowhere to come back to.
 * Unlike ClientCapabilityError, the client may well support the request; the server's mode does not.
 */
export class ClientUnreachableError extends McpxError {
  constructor(readonly method: string) {
    super(
      'MCPX_CLIENT_UNREACHABLE',
      `This server runs stateless, so it cannot send ${method} to the client: the answer would have no session to come back to. ` +
        'Serve with sessions (stateless: false) to ask the client.',
    );
  }
}

/** Checked before the client's capabilities: a stateless server knows none, and could not ask anyway. */
function requireReachable(ctx: AskingContext, method: string): void {
  if (ctx.session?.stateless) throw new ClientUnreachableError(method);
}

/**
 * Thrown when the client answers a request with an error, or does not answer in time. It is a
 * failure of the tool, not of the tools/call request: a tool that does not catch it reports it to
 * the model as a tool error (isError), with the code and message. `rpcCode` and `data` are the client's.
 */
export class ClientRequestError extends McpxError {
  /** The client's JSON-RPC error code (`code` is this error's own, MCPX_CLIENT_REQUEST). */
  readonly rpcCode: number;
  readonly data?: unknown;
  constructor(
    readonly method: string,
    cause: McpError,
  ) {
    super('MCPX_CLIENT_REQUEST', `${method} failed with error ${cause.code}: ${cause.message}`, { cause });
    this.rpcCode = cause.code;
    this.data = cause.data;
  }
}

const RELATED_TASK = 'io.modelcontextprotocol/related-task';

async function send(ctx: AskingContext, method: string, params: Record<string, unknown>, options: ClientRequestOptions): Promise<Record<string, unknown>> {
  const task = ctx.task;
  if (task) params = { ...params, _meta: { ...(params._meta as object), [RELATED_TASK]: { taskId: task.id } } };
  // The question gets a CLIENT span of its own, its trace context in the request's _meta; not a
  // 2026-07-28 retry's replay of a question the client has answered already (nothing is sent).
  let span: ChildSpan | undefined;
  if (ctx.trace && !ctx.host.hasAnswerFor?.(method)) {
    const meta: Record<string, unknown> = { ...(params._meta as object) };
    span = ctx.engine.telemetry.startClientRequest(method, ctx.traceContext, meta, ctx.session?.telemetrySessionId);
    if (span) params = { ...params, _meta: meta };
  }
  // A task waiting on its client says so: input_required until the answer comes.
  task?.inputRequired(true);
  try {
    const onSent = span ? (id: RequestId) => span!.span.setAttribute(ATTR_JSONRPC_REQUEST_ID, String(id)) : undefined;
    const result = await ctx.host.ask(method, params, ctx.channel, { signal: ctx.signal, timeoutMs: options.timeoutMs, onSent });
    span?.end();
    return result;
  } catch (err) {
    // 2026-07-28: the question goes back to the client with the result (input_required); that is no failure.
    if (err instanceof InputNeeded) span?.end();
    else if (err instanceof McpError && !ctx.aborted) span?.end(String(err.code), err.message);
    else span?.end(ctx.aborted ? 'cancelled' : '_OTHER', err instanceof Error ? err.message : undefined);
    // An McpError here is the client's error reply or its silence (not a protocol error the tool
    // author chose to throw); an abort keeps its reason.
    if (err instanceof McpError && !ctx.aborted) throw new ClientRequestError(method, err);
    throw err;
  } finally {
    task?.inputRequired(false);
  }
}

export async function sample(ctx: AskingContext, params: CreateMessageParams, options: ClientRequestOptions = {}): Promise<CreateMessageResult> {
  requireReachable(ctx, 'sampling/createMessage');
  const sampling = ctx.clientCapabilities.sampling;
  if (!sampling) throw new ClientCapabilityError('The client does not support sampling (no "sampling" capability was declared)', 'sampling');
  if ((params.tools?.length || params.toolChoice) && !sampling.tools) {
    throw new ClientCapabilityError('The client does not support tools in sampling (no "sampling.tools" capability was declared)', 'sampling.tools');
  }
  if (params.includeContext && params.includeContext !== 'none' && !sampling.context) {
    throw new ClientCapabilityError(`The client does not support includeContext "${params.includeContext}" (no "sampling.context" capability)`, 'sampling.context');
  }
  if (!Array.isArray(params.messages) || !Number.isInteger(params.maxTokens) || params.maxTokens < 1) {
    throw new TypeError('sample() needs messages and a positive integer maxTokens');
  }
  return (await send(ctx, 'sampling/createMessage', params as unknown as Record<string, unknown>, options)) as unknown as CreateMessageResult;
}

/** Form mode is what a bare `elicitation: {}` capability means (the 2025-06-18 form). */
function supportsForm(ctx: AskingContext): boolean {
  const e = ctx.clientCapabilities.elicitation;
  return !!e && (e.form !== undefined || e.url === undefined);
}

export async function elicit<T extends object>(ctx: AskingContext, message: string, schema: (new () => T) | JsonSchema, options: ClientRequestOptions = {}): Promise<ElicitResult<T>> {
  requireReachable(ctx, 'elicitation/create');
  if (!supportsForm(ctx)) throw new ClientCapabilityError('The client does not support form elicitation (no "elicitation" capability was declared)', 'elicitation');
  const cls = typeof schema === 'function' ? (schema as new () => T) : undefined;
  let requestedSchema: JsonSchema;
  if (cls) requestedSchema = toElicitationSchema(cls) as JsonSchema;
  else {
    const problems = checkElicitationSchema(schema);
    if (problems.length) throw new TypeError(`elicit(): the schema is not a valid elicitation schema: ${problems.join('; ')}`);
    requestedSchema = schema as JsonSchema;
  }
  const result = (await send(ctx, 'elicitation/create', { mode: 'form', message, requestedSchema }, options)) as unknown as ElicitResult<T>;
  if (result.action !== 'accept') return result;
  // The answer is checked against what was asked: a class gives back a validated instance.
  if (!cls) {
    const issues = compileJsonSchema(requestedSchema)(result.content ?? {});
    if (issues) throw invalidAnswer(issues);
    return result;
  }
  const checked = await validateElicitedContent(cls, result.content ?? {});
  if (!checked.ok) throw invalidAnswer(checked.issues);
  return { ...result, content: checked.value };
}

/** A plain error, so a tool that does not catch it reports it to the model as a tool error. */
function invalidAnswer(issues: { path: string; message: string }[]): Error {
  return new Error(`The client's elicitation answer does not match the requested schema: ${formatIssues(issues, 'Invalid answer')}`);
}

export async function elicitUrl(
  ctx: AskingContext,
  request: { message: string; url: string; elicitationId?: string },
  options: ClientRequestOptions = {},
): Promise<ElicitResult<never> & { elicitationId: string }> {
  requireReachable(ctx, 'elicitation/create');
  if (!ctx.clientCapabilities.elicitation?.url) {
    throw new ClientCapabilityError('The client does not support URL elicitation (no "elicitation.url" capability was declared)', 'elicitation.url');
  }
  const elicitationId = request.elicitationId ?? randomUUID();
  // 2026-07-28 dropped elicitationId from the request: the client learns the outcome by retrying.
  const params = ctx.env.era === 'modern' ? { mode: 'url', message: request.message, url: request.url } : { mode: 'url', message: request.message, url: request.url, elicitationId };
  const result = await send(ctx, 'elicitation/create', params, options);
  return { ...(result as unknown as ElicitResult<never>), elicitationId };
}

export async function listRoots(ctx: AskingContext, options: ClientRequestOptions = {}): Promise<Root[]> {
  requireReachable(ctx, 'roots/list');
  if (!ctx.clientCapabilities.roots) throw new ClientCapabilityError('The client does not expose roots (no "roots" capability was declared)', 'roots');
  const result = await send(ctx, 'roots/list', {}, options);
  return Array.isArray(result.roots) ? (result.roots as Root[]) : [];
}
