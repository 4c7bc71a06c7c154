import { ErrorCode, McpError } from '../protocol/errors';
import { isMcpxError } from '../errors';
import type { CallToolResult } from '../protocol/types';
import type { ToolEntry, ValidationVerdict } from '../registry/entry-types';
import { formatIssues } from '../schema/class-validation';
import { classTransformer } from '../schema/class-transformer';
import { text } from '../content/helpers';
import { toCallToolResult } from '../content/normalize';
import { toJsonValue } from '../content/json-value';
import type { RequestContext } from '../context/request-context';
import { checkArgumentLimits, resolveArgumentLimits, type ResolvedArgumentLimits } from '../schema/argument-limits';
import { InputNeeded } from '../protocol/input-required';
import { ClientCapabilityError } from '../context/client-requests';

/**
 * Where a tool is invoked: validate the arguments (a failure is a tool execution error the model
 * can act on, SEP-1303), call the user's method, and shape what it returns into a CallToolResult.
 * A tool that answers at once, with arguments checked at once, is answered at once: no promise is
 * made for the common synchronous call.
 */
export function invokeTool(entry: ToolEntry, args: Record<string, unknown>, ctx: RequestContext): CallToolResult | Promise<CallToolResult> {
  // The bounds first: nothing below may walk more of the arguments than they allow.
  const limits = limitsOf(entry, ctx.engine.argumentLimits);
  const excess = checkArgumentLimits(args, limits);
  if (excess) return { content: [text(formatIssues([excess]))], isError: true };
  const checked = entry.validateInput(args, limits.unknownProperties);
  return checked instanceof Promise ? checked.then((verdict) => callChecked(entry, verdict, ctx)) : callChecked(entry, checked, ctx);
}

function callChecked(entry: ToolEntry, checked: ValidationVerdict, ctx: RequestContext): CallToolResult | Promise<CallToolResult> {
  if (!checked.ok) return { content: [text(formatIssues(checked.issues))], isError: true };
  let value: unknown;
  try {
    value = entry.handler(checked.value, ctx);
  } catch (err) {
    return toolFailure(err, entry, ctx);
  }
  // A thenable is awaited, as `await` would: its failure is the tool's, its value the result.
  return isThenable(value)
    ? Promise.resolve(value).then(
        (settled) => resultOf(entry, settled, ctx),
        (err: unknown) => toolFailure(err, entry, ctx),
      )
    : resultOf(entry, value, ctx);
}

/** A failure inside the tool is a result the model can see, not a protocol error (but for the errors rethrown here). */
function toolFailure(err: unknown, entry: ToolEntry, ctx: RequestContext): CallToolResult {
  if (err instanceof McpError) throw err; // the author asked for a protocol error
  if (ctx.aborted) throw err; // the response is dropped anyway
  if (err instanceof InputNeeded) throw err; // not a failure: the call waits on the client
  // 2026-07-28 makes a missing client capability a protocol error (-32021), not a tool result.
  if (err instanceof ClientCapabilityError && ctx.env.era === 'modern') throw err.toMcpError();
  // The stack stays in the log (and on the span).
  if (ctx.trace?.span && err instanceof Error) ctx.trace.span.recordException(err);
  ctx.host.logger.warn({ err, tool: entry.definition.name, requestId: ctx.requestId }, 'tool failed');
  return { content: [text(failureMessage(err, entry, ctx))], isError: true };
}

/** What the tool returned, as a CallToolResult (checked against its output schema, if it has one). */
function resultOf(entry: ToolEntry, value: unknown, ctx: RequestContext): CallToolResult | Promise<CallToolResult> {
  if (entry.validateOutput) return structuredResult(entry, value, ctx).catch((err: unknown) => noJsonForm(err, entry, ctx));
  try {
    return toCallToolResult(value);
  } catch (err) {
    return noJsonForm(err, entry, ctx);
  }
}

/** A value with no JSON form (a Promise, binary data, a cycle, a huge BigInt): the tool's fault, told to the model. */
function noJsonForm(err: unknown, entry: ToolEntry, ctx: RequestContext): CallToolResult {
  if (!isMcpxError(err, 'MCPX_TOOL_ERROR')) throw err;
  ctx.host.logger.error(
    { tool: entry.definition.name, source: entry.source, requestId: ctx.requestId, reason: err.message },
    `tool "${entry.definition.name}" returned a value with no JSON form`,
  );
  return { content: [text(`Tool "${entry.definition.name}" returned a value with no JSON form: ${err.message}`)], isError: true };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value instanceof Promise || (typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function');
}

/** Errors whose message is written for the client: told as they are even with `maskErrors`. */
const TOLD_AS_IS = new Set<string>(['MCPX_TOOL_ERROR', 'MCPX_CLIENT_CAPABILITY', 'MCPX_CLIENT_UNREACHABLE', 'MCPX_CLIENT_REQUEST']);

/** What the model reads of a thrown error: its message, or with `maskErrors` a generic line unless the error is meant to be read. */
function failureMessage(err: unknown, entry: ToolEntry, ctx: RequestContext): string {
  if (ctx.engine.maskErrors && !(isMcpxError(err) && TOLD_AS_IS.has(err.code))) {
    return `Tool "${entry.definition.name}" failed with an unexpected error; the server's log has the details`;
  }
  const message = err instanceof Error ? err.message : String(err);
  return message || 'The tool failed';
}

/** A tool's own limits over the server's, merged once per tool and server. */
const merged = new WeakMap<ToolEntry, { base: ResolvedArgumentLimits; limits: ResolvedArgumentLimits }>();
function limitsOf(entry: ToolEntry, base: ResolvedArgumentLimits): ResolvedArgumentLimits {
  if (!entry.limits) return base;
  const known = merged.get(entry);
  if (known && known.base === base) return known.limits;
  const limits = resolveArgumentLimits(entry.limits, base);
  merged.set(entry, { base, limits });
  return limits;
}

/** A tool with an output schema returns structuredContent, checked against it, plus a text copy. */
async function structuredResult(entry: ToolEntry, value: unknown, ctx: RequestContext): Promise<CallToolResult> {
  let result: CallToolResult;
  let structured: unknown;
  if (isFullResult(value)) {
    if (value.isError) return value; // errors carry no structured content to check
    result = value;
    structured = value.structuredContent;
  } else {
    structured = isPlainJson(value) ? value : classTransformer().instanceToPlain(value);
    result = { content: [], structuredContent: structured as Record<string, unknown> };
  }
  // A raw schema describes JSON; an output class is checked on the value (its Dates, Maps) and made JSON after.
  if (entry.outputChecksJson) structured = toJsonValue(structured, 'structuredContent');
  const checked = await entry.validateOutput!(structured);
  if (!checked.ok || structured === null || typeof structured !== 'object' || Array.isArray(structured)) {
    const issues = checked.ok ? [{ path: '', message: 'structured content must be an object' }] : checked.issues;
    ctx.host.logger.error(
      { tool: entry.definition.name, source: entry.source, issues, requestId: ctx.requestId },
      `tool "${entry.definition.name}" returned a result that breaks its output schema`,
    );
    throw new McpError(ErrorCode.InternalError, `Tool "${entry.definition.name}" produced output that does not match its output schema`);
  }
  // A class output is checked on a copy without the properties it does not declare: send that copy,
  // so structuredContent matches the listed schema (additionalProperties: false) and leaks nothing else.
  const checkedValue = checked.value;
  const sent = toJsonValue(isPlainJson(checkedValue) ? checkedValue : classTransformer().instanceToPlain(checkedValue), 'structuredContent') as Record<string, unknown>;
  result = { ...result, structuredContent: sent };
  if (result.content.length === 0) result.content = [text(JSON.stringify(sent))];
  return result;
}

function isFullResult(value: unknown): value is CallToolResult {
  return typeof value === 'object' && value !== null && Array.isArray((value as CallToolResult).content);
}

function isPlainJson(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
