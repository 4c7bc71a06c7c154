import { OpenApiError } from './openapi-error';
import type { ToolSpec } from '@mcpx/core/registry';
import type { RequestContext } from '@mcpx/core';
import { callOperation, type ApiAnswer, type CallSettings } from './call';
import { operationsOf, type Operation, type OperationFilter } from './operations';

/** How an OpenAPI description becomes tools. */
export interface OpenApiToolOptions extends OperationFilter {
  /** The API's base URL: every call goes under it, and nowhere else (the description's `servers` are not used). */
  baseUrl: string;
  /** Headers sent with every call, e.g. `{ authorization: 'Bearer …' }`: credentials from configuration, never from the MCP client. */
  headers?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
  /** Query parameters sent with every call (an API key in the query). */
  query?: Record<string, string>;
  /** Per call (default 30 s). */
  timeoutMs?: number;
  /** The largest response read (default 10 MiB); a larger one is a tool error. */
  maxResponseBytes?: number;
  /** Prefixed to every tool name (e.g. `petstore_`). */
  namePrefix?: string;
  /** The fetch used for calls (default: the global one). */
  fetch?: typeof fetch;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
/** How much of an error body a tool error quotes. */
const ERROR_BODY_CHARS = 4_000;

/** The tools of a dereferenced OpenAPI 3.0/3.1 description (see loadOpenApi), ready for `registry.addTool`. */
export function openApiTools(document: object, options: OpenApiToolOptions): ToolSpec[] {
  let baseUrl: URL;
  try {
    baseUrl = new URL(options.baseUrl);
  } catch {
    throw new OpenApiError(`OpenAPI: baseUrl ${JSON.stringify(options.baseUrl)} is not a URL`);
  }
  if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:') throw new OpenApiError(`OpenAPI: baseUrl must be http(s), not ${baseUrl.protocol}`);
  const headers = options.headers;
  const settings: CallSettings = {
    baseUrl,
    headers: typeof headers === 'function' ? headers : () => headers ?? {},
    query: options.query ?? {},
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    fetch: options.fetch ?? fetch,
  };
  return operationsOf(document, options).map((operation) => toolOf(operation, settings, options.namePrefix ?? ''));
}

function toolOf(operation: Operation, settings: CallSettings, prefix: string): ToolSpec {
  const readOnly = operation.method === 'get' || operation.method === 'head' || operation.method === 'options';
  const description = [operation.description ?? operation.summary, `${operation.method.toUpperCase()} ${operation.path}`].filter(Boolean).join('\n\n');
  return {
    name: `${prefix}${operation.toolName}`.slice(0, 128),
    title: operation.summary,
    description: operation.deprecated ? `(Deprecated) ${description}` : description,
    inputSchema: operation.inputSchema as ToolSpec['inputSchema'],
    outputSchema: operation.outputSchema as ToolSpec['outputSchema'],
    annotations: {
      readOnlyHint: readOnly,
      destructiveHint: operation.method === 'delete',
      idempotentHint: readOnly || operation.method === 'put' || operation.method === 'delete',
      openWorldHint: true,
    },
    source: `OpenAPI ${operation.method.toUpperCase()} ${operation.path}`,
    handler: async (args: Record<string, unknown>, ctx: RequestContext) => {
      try {
        return resultOf(operation, await callOperation(operation, args ?? {}, settings, ctx.signal));
      } catch (err) {
        if (err instanceof OpenApiError) return { content: [{ type: 'text', text: err.message }], isError: true };
        throw err;
      }
    },
  };
}

/** The API's answer as a tool result: an HTTP error is a tool error with its status and body; JSON is structured content. */
function resultOf(operation: Operation, answer: ApiAnswer): unknown {
  if (answer.status < 200 || answer.status >= 300) {
    const body = answer.text.length > ERROR_BODY_CHARS ? `${answer.text.slice(0, ERROR_BODY_CHARS)}…` : answer.text;
    const status = `HTTP ${answer.status}${answer.statusText ? ` ${answer.statusText}` : ''}`;
    const redirect = answer.location ? ` (a redirect to ${answer.location}, not followed: calls stay under the base URL)` : '';
    return { content: [{ type: 'text', text: `${status}${redirect}${body ? `: ${body}` : ''}` }], isError: true };
  }
  const json = /^application\/(.+\+)?json\b/i.test(answer.contentType);
  if (!json || answer.text === '') {
    if (operation.outputSchema)
      return {
        content: [{ type: 'text', text: `HTTP ${answer.status}: the API answered ${answer.contentType || 'no content type'}, not the JSON its description promises` }],
        isError: true,
      };
    return { content: [{ type: 'text', text: answer.text }] };
  }
  let value: unknown;
  try {
    value = JSON.parse(answer.text);
  } catch {
    return { content: [{ type: 'text', text: `HTTP ${answer.status}: the API's JSON answer does not parse` }], isError: true };
  }
  if (!operation.outputSchema) return { content: [{ type: 'text', text: answer.text }] };
  const structured = operation.wrapsResult ? { result: value } : value;
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}
