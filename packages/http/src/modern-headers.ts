import type { IncomingHttpHeaders } from 'node:http';
import type { HeaderParameter, JsonRpcRequest } from '@mcpx/core/transport';

/**
 * The request metadata headers of protocol 2026-07-28 (transports/streamable-http.md, "Request
 * Metadata"): the body's method, name and annotated tool parameters mirrored into headers so
 * intermediaries can route without parsing the body. The server checks each against the body.
 */

export const PROTOCOL_VERSION_HEADER = 'mcp-protocol-version';
export const METHOD_HEADER = 'mcp-method';
export const NAME_HEADER = 'mcp-name';
export const PARAM_HEADER_PREFIX = 'mcp-param-';

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
/** What a header value may carry as is (RFC 9110 field values, as the spec restricts them): visible ASCII, space, tab. */
const PLAIN_VALUE = /^[\t\x20-\x7e]*$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** An HTTP field-name token (RFC 9110 5.1): what `x-mcp-header` must be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Where the Mcp-Name header's value comes from, per method (a Map: the method comes off the wire, and may be `constructor`). */
const NAME_SOURCE: ReadonlyMap<string, 'name' | 'uri'> = new Map<string, 'name' | 'uri'>([
  ['tools/call', 'name'],
  ['prompts/get', 'name'],
  ['resources/read', 'uri'],
]);

/**
 * A header value as the client meant it: a `=?base64?…?=` value decoded (UTF-8), any other value
 * as it is. Undefined when the value holds characters a header may not carry, or its Base64 does
 * not decode to UTF-8 text.
 */
export function decodeHeaderValue(raw: string): string | undefined {
  if (!PLAIN_VALUE.test(raw)) return undefined;
  if (!(raw.startsWith(SENTINEL_PREFIX) && raw.endsWith(SENTINEL_SUFFIX) && raw.length >= SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length)) return raw;
  const encoded = raw.slice(SENTINEL_PREFIX.length, raw.length - SENTINEL_SUFFIX.length);
  // Canonical, padded Base64 only (RFC 4648): Node's decoder would skip stray characters silently.
  if (!BASE64.test(encoded) || encoded.length % 4 !== 0) return undefined;
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.toString('base64') !== encoded) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The value at `path` in the call's arguments; undefined when any step is missing or not an object. */
export function valueAt(args: unknown, path: readonly string[]): unknown {
  let value = args;
  for (const key of path) {
    if (!isObject(value) || !Object.prototype.hasOwnProperty.call(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

/**
 * Whether a header value (decoded) says the same as the body's value: strings as they are,
 * booleans as `true`/`false`, numbers numerically (`42.0` equals `42`).
 */
export function headerMatches(decoded: string, value: string | number | boolean): boolean {
  if (typeof value === 'string') return decoded === value;
  if (typeof value === 'boolean') return decoded === String(value);
  const text = decoded.trim();
  return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) && Number(text) === value;
}

/** A refusal of the request's headers: the message of its -32020 HeaderMismatch error. */
export type HeaderMismatch = string;

/**
 * Checks a modern request's metadata headers against its body (transports/streamable-http.md,
 * "Server Validation"), once the version header is known to match (checkVersionHeader): Mcp-Method to the
 * method, Mcp-Name (tools/call, prompts/get, resources/read) to the name or URI, and each
 * Mcp-Param-{Name} the called tool declares to its argument. Returns why they do not match.
 * `toolHeaders` gives the header parameters a tool declares (ToolEntry.headerParameters, worked out
 * once when the tool was defined; none for a tool that does not exist).
 */
export function checkModernHeaders(headers: IncomingHttpHeaders, request: JsonRpcRequest, toolHeaders: (name: string) => readonly HeaderParameter[] | undefined): HeaderMismatch | undefined {
  const method = headers[METHOD_HEADER];
  if (method === undefined) return `Header mismatch: the Mcp-Method header is required (the body's method is ${JSON.stringify(request.method)})`;
  if (method !== request.method) return `Header mismatch: Mcp-Method header value ${quote(method)} does not match the body's method ${JSON.stringify(request.method)}`;

  const source = NAME_SOURCE.get(request.method);
  if (source) {
    const bodyValue = request.params?.[source];
    const field = `params.${source}`;
    const raw = headers[NAME_HEADER];
    if (typeof raw !== 'string') return `Header mismatch: the Mcp-Name header is required for ${request.method} (it mirrors ${field})`;
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return `Header mismatch: the Mcp-Name header value ${quote(raw)} has invalid characters or invalid =?base64?…?= encoding`;
    if (typeof bodyValue !== 'string') return `Header mismatch: Mcp-Name header value ${quote(decoded)} has no ${field} string in the body to match`;
    if (decoded !== bodyValue) return `Header mismatch: Mcp-Name header value ${quote(decoded)} does not match the body's ${field} ${JSON.stringify(bodyValue)}`;
  }

  if (request.method === 'tools/call' && typeof request.params?.name === 'string') {
    const params = toolHeaders(request.params.name);
    if (params && params.length > 0) return checkParamHeaders(headers, params, request.params.arguments);
  }
  return undefined;
}

/** MCP-Protocol-Version: required, and equal to the version the body's `_meta` claims. */
export function checkVersionHeader(headers: IncomingHttpHeaders, protocolVersion: string): HeaderMismatch | undefined {
  const version = headers[PROTOCOL_VERSION_HEADER];
  if (version === undefined) return `Header mismatch: the MCP-Protocol-Version header is required (the body's _meta says ${JSON.stringify(protocolVersion)})`;
  if (version === protocolVersion) return undefined;
  return `Header mismatch: MCP-Protocol-Version header value ${quote(version)} does not match the body's _meta protocol version ${JSON.stringify(protocolVersion)}`;
}

function checkParamHeaders(headers: IncomingHttpHeaders, params: readonly HeaderParameter[], args: unknown): HeaderMismatch | undefined {
  for (const param of params) {
    const value = valueAt(args, param.path);
    // Node hands request header names over in lower case.
    const raw = headers[PARAM_HEADER_PREFIX + param.header.toLowerCase()];
    const display = `Mcp-Param-${param.header}`;
    const argument = `arguments.${param.path.join('.')}`;
    // Only primitives are mirrored; a null or missing value (or one no header can carry) has no header.
    const mirrored = typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
    if (!mirrored) {
      if (raw === undefined) continue;
      return `Header mismatch: the ${display} header is present but the body has no value for ${argument}`;
    }
    if (typeof raw !== 'string') return `Header mismatch: the ${display} header is required, as ${argument} is ${JSON.stringify(value)}`;
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return `Header mismatch: the ${display} header value ${quote(raw)} has invalid characters or invalid =?base64?…?= encoding`;
    if (!headerMatches(decoded, value)) {
      return `Header mismatch: ${display} header value ${quote(decoded)} does not match the body's ${argument} ${JSON.stringify(value)}`;
    }
  }
  return undefined;
}

/** The request headers a CORS preflight asks for that are tool parameter headers (`Mcp-Param-*`), as asked. */
export function requestedParamHeaders(accessControlRequestHeaders: string | undefined): string[] {
  if (!accessControlRequestHeaders) return [];
  const out: string[] = [];
  for (const part of accessControlRequestHeaders.split(',')) {
    const name = part.trim();
    if (name.toLowerCase().startsWith(PARAM_HEADER_PREFIX) && name.length > PARAM_HEADER_PREFIX.length && TOKEN.test(name)) out.push(name);
  }
  return out;
}

function quote(value: string | string[]): string {
  const text = Array.isArray(value) ? value.join(', ') : value;
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
