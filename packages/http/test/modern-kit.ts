/**
 * Helpers for the 2026-07-28 Streamable HTTP tests: request bodies with the per-request `_meta`,
 * the metadata headers mirrored from them, and reading an answer that may be JSON or SSE.
 * Not a test file itself (jest only runs *.test.ts).
 */
import { ACCEPT_BOTH, JSON_TYPE, jsonOf, request, type Headers, type RawResponse } from './http-kit';

export const MODERN = '2026-07-28';

export const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT = 'io.modelcontextprotocol/clientInfo';
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';

/** The per-request `_meta` of a 2026-07-28 client, with `extra` merged over it. */
export function modernMeta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { [META_VERSION]: MODERN, [META_CLIENT]: { name: 'modern-raw-test', version: '1.0.0' }, [META_CAPABILITIES]: {}, ...extra };
}

/** A request body whose params carry the modern `_meta` (params._meta, when given, replaces it). */
export function modernBody(id: string | number, method: string, params: Record<string, unknown> = {}): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params: { _meta: modernMeta(), ...params } });
}

/** The headers a conforming client sends for `method` (Mcp-Name from `name`, when given). */
export function modernHeaders(method: string, name?: string, extra: Headers = {}): Headers {
  return { accept: ACCEPT_BOTH, 'content-type': JSON_TYPE, 'mcp-protocol-version': MODERN, 'mcp-method': method, 'mcp-name': name, ...extra };
}

/** POSTs one modern request with the headers mirrored from its params (override any with `headers`). */
export function modernPost(url: string, id: string | number, method: string, params: Record<string, unknown> = {}, headers: Headers = {}): Promise<RawResponse> {
  const name = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
  return request(url, { method: 'POST', headers: modernHeaders(method, name, headers), body: modernBody(id, method, params) });
}

/** The Base64 sentinel form of a header value. */
export const sentinel = (value: string) => `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;

/** The SSE events of a whole response body, in order; fails on an event id (2026-07-28 streams do not resume). */
export function sseMessages(body: string): any[] {
  const out: any[] = [];
  for (const block of body.split('\n\n')) {
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('id:')) throw new Error(`unexpected event id in a 2026-07-28 stream: ${JSON.stringify(block)}`);
      if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
    }
    if (data.length > 0 && data.join('\n') !== '') out.push(JSON.parse(data.join('\n')));
  }
  return out;
}

/** The messages of an answer, JSON or SSE. */
export function messagesOf(res: RawResponse): any[] {
  const type = String(res.headers['content-type']);
  if (type.startsWith('application/json')) return [jsonOf(res)];
  if (type.startsWith('text/event-stream')) return sseMessages(res.body);
  throw new Error(`expected JSON or SSE, got ${res.status} ${type}: ${res.body}`);
}

/** The JSON-RPC response of an answer (the last message, the one with the id). */
export function responseOf(res: RawResponse, id: string | number): any {
  const response = messagesOf(res).find((m) => m.id === id && !('method' in m));
  if (!response) throw new Error(`no response with id ${JSON.stringify(id)} in ${res.status} ${res.body}`);
  return response;
}

/** A refusal of the request as a whole: status, JSON, the JSON-RPC error echoing the request's id. */
export function refusalOf(res: RawResponse, status: number, id: string | number): { code: number; message: string; data?: any } {
  expect({ status: res.status, type: res.headers['content-type'] }).toEqual({ status, type: expect.stringMatching(/^application\/json/) });
  const body = jsonOf(res);
  expect(body).toEqual({ jsonrpc: '2.0', id, error: expect.any(Object) });
  return body.error;
}
