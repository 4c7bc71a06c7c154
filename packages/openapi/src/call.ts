import { OpenApiError } from './openapi-error';
import type { Operation } from './operations';

/** How the generated tools reach the API. */
export interface CallSettings {
  /** Every call goes here and nowhere else: its origin, under its path. */
  readonly baseUrl: URL;
  /** Sent with every call (credentials from configuration); never taken from the MCP client. */
  readonly headers: () => Record<string, string> | Promise<Record<string, string>>;
  /** Query parameters sent with every call (an API key in the query, for one). */
  readonly query: Record<string, string>;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly fetch: typeof fetch;
}

/** What the API answered. */
export interface ApiAnswer {
  readonly status: number;
  readonly statusText: string;
  readonly contentType: string;
  readonly text: string;
  /** Where a redirect pointed (never followed). */
  readonly location?: string;
}

/**
 * A path parameter's value as one path segment. `.` and `..` are refused: URL parsing reads them,
 * percent-encoded or not, as steps within the path, and the call would reach another route.
 */
function segment(name: string, value: unknown): string {
  const text = scalar(value);
  if (text === '' || text === '.' || text === '..') throw new OpenApiError(`path parameter "${name}" may not be ${JSON.stringify(text)}`);
  return encodeURIComponent(text);
}

function scalar(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value as string | number | boolean);
}

/** The request URL: the base URL's path, then the operation's with its parameters filled in. Throws if it would leave the base URL. */
export function urlOf(operation: Operation, args: Record<string, unknown>, settings: CallSettings): URL {
  const filled = operation.path.replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    const p = operation.parameters.find((x) => x.in === 'path' && x.name === name);
    const value = p ? args[p.argument] : undefined;
    if (value === undefined) throw new OpenApiError(`path parameter "${name}" is missing`);
    return segment(name, value);
  });
  const base = settings.baseUrl;
  const url = new URL(base.href.replace(/\/+$/, '') + (filled.startsWith('/') ? filled : `/${filled}`));
  const basePath = base.pathname.replace(/\/+$/, '');
  if (url.origin !== base.origin || !(url.pathname === basePath || url.pathname.startsWith(`${basePath}/`))) {
    throw new Error(`${operation.method.toUpperCase()} ${operation.path} would leave ${base.href}`);
  }
  for (const [key, value] of Object.entries(settings.query)) url.searchParams.append(key, value);
  for (const p of operation.parameters) {
    if (p.in !== 'query') continue;
    const value = args[p.argument];
    if (value === undefined) continue;
    if (Array.isArray(value) && p.explode) for (const v of value) url.searchParams.append(p.name, scalar(v));
    else url.searchParams.append(p.name, Array.isArray(value) ? value.map(scalar).join(',') : scalar(value));
  }
  return url;
}

/** Calls the operation with the tool's arguments; resolves with the API's answer whatever its status. */
export async function callOperation(operation: Operation, args: Record<string, unknown>, settings: CallSettings, signal?: AbortSignal): Promise<ApiAnswer> {
  const url = urlOf(operation, args, settings);
  const headers = new Headers(await settings.headers());
  const cookies: string[] = [];
  for (const p of operation.parameters) {
    const value = args[p.argument];
    if (value === undefined) continue;
    if (p.in === 'header') headers.set(p.name, scalar(value));
    else if (p.in === 'cookie') cookies.push(`${encodeURIComponent(p.name)}=${encodeURIComponent(scalar(value))}`);
  }
  if (cookies.length > 0) headers.set('cookie', cookies.join('; '));
  let body: string | undefined;
  if (operation.body && args.body !== undefined) {
    headers.set('content-type', operation.body.mediaType);
    if (/x-www-form-urlencoded/i.test(operation.body.mediaType) && typeof args.body === 'object' && args.body !== null) {
      body = new URLSearchParams(Object.entries(args.body as Record<string, unknown>).map(([k, v]): [string, string] => [k, scalar(v)])).toString();
    } else body = typeof args.body === 'string' && !/json/i.test(operation.body.mediaType) ? args.body : JSON.stringify(args.body);
  }
  if (!headers.has('accept')) headers.set('accept', 'application/json, */*;q=0.5');
  const timeout = AbortSignal.timeout(settings.timeoutMs);
  const response = await settings.fetch(url, {
    method: operation.method.toUpperCase(),
    headers,
    body,
    // A redirect could lead anywhere: it is answered as it is, never followed.
    redirect: 'manual',
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
  });
  return {
    status: response.status,
    statusText: response.statusText,
    contentType: response.headers.get('content-type') ?? '',
    text: await boundedText(response, settings.maxResponseBytes),
    location: response.headers.get('location') ?? undefined,
  };
}

/** The body as text, refused past `max` bytes (read as it streams: a huge answer is never held whole). */
async function boundedText(response: Response, max: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new Error(`the response is larger than ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
