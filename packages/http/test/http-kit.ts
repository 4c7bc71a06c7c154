/**
 * Raw HTTP helpers for the Streamable HTTP tests: plain node:http requests (no headers added
 * behind our back, unlike fetch), an incremental SSE reader, and MCP session set-up.
 * Not a test file itself (jest only runs *.test.ts).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import type { Servable } from '@mcpx/core';
import { listen, type ListenOptions, type McpHttpServer } from '@mcpx/http';

export const ACCEPT_BOTH = 'application/json, text/event-stream';
export const JSON_TYPE = 'application/json';
export const LATEST = '2025-11-25';

export type Headers = Record<string, string | undefined>;

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface RequestOptions {
  method?: string;
  headers?: Headers;
  body?: string | Buffer;
  agent?: http.Agent;
  /** Send the body in two chunks with chunked transfer encoding (no Content-Length). */
  chunked?: boolean;
}

function clean(headers: Headers = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = v;
  return out;
}

/** Sends one request and resolves with the response as a request was sent. */
function send(url: string, options: RequestOptions): Promise<{ req: http.ClientRequest; res: http.IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: clean(options.headers), agent: options.agent });
    req.once('response', (res) => resolve({ req, res }));
    req.on('error', reject); // after the response, a late error (the server stopped reading) changes nothing
    if (options.chunked && options.body !== undefined) {
      const body = Buffer.from(options.body);
      req.write(body.subarray(0, body.length >> 1));
      req.end(body.subarray(body.length >> 1));
    } else req.end(options.body);
  });
}

/** A request whose whole body is read. */
export async function request(url: string, options: RequestOptions = {}): Promise<RawResponse> {
  const { res } = await send(url, options);
  res.setEncoding('utf8');
  let body = '';
  for await (const chunk of res) body += chunk;
  return { status: res.statusCode!, headers: res.headers, body };
}

export function jsonOf(response: RawResponse): any {
  try {
    return JSON.parse(response.body);
  } catch {
    throw new Error(`expected a JSON body, got ${response.status} ${JSON.stringify(response.body)}`);
  }
}

/**
 * The JSON-RPC error object of an HTTP error answer: with no id at all (never `"id": null`), or
 * echoing `id` when the refused request's id is known.
 */
export function rpcErrorOf(response: RawResponse, id?: string | number): { code: number; message: string } {
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = jsonOf(response);
  expect(body.jsonrpc).toBe('2.0');
  if (id === undefined) expect(body).not.toHaveProperty('id');
  else expect(body.id).toBe(id);
  expect(body).not.toHaveProperty('result');
  return body.error;
}

export const rpc = (id: string | number, method: string, params?: Record<string, unknown>) =>
  JSON.stringify(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
export const notification = (method: string, params?: Record<string, unknown>) => JSON.stringify(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });

/** tools/call with a progress token, so the tool's ctx.progress reaches the client. */
export const callTool = (id: string | number, name: string, args: Record<string, unknown> = {}) => rpc(id, 'tools/call', { name, arguments: args, _meta: { progressToken: `p-${id}` } });

export const initializeBody = (version = LATEST) => rpc(0, 'initialize', { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw-test', version: '1.0.0' } });

/** Headers for a POST in a session. */
export function postHeaders(session?: string, extra: Headers = {}): Headers {
  return { accept: ACCEPT_BOTH, 'content-type': JSON_TYPE, 'mcp-session-id': session, 'mcp-protocol-version': session ? LATEST : undefined, ...extra };
}

export function post(url: string, body: string, session?: string, extra: Headers = {}, agent?: http.Agent): Promise<RawResponse> {
  return request(url, { method: 'POST', headers: postHeaders(session, extra), body, agent });
}

/** initialize + notifications/initialized; returns the session id. */
export async function openSession(url: string, agent?: http.Agent, version = LATEST): Promise<string> {
  const init = await post(url, initializeBody(version), undefined, {}, agent);
  if (init.status !== 200) throw new Error(`initialize answered ${init.status}: ${init.body}`);
  const session = init.headers['mcp-session-id'];
  if (typeof session !== 'string') throw new Error('initialize answered without Mcp-Session-Id');
  const initialized = await post(url, notification('notifications/initialized'), session, {}, agent);
  if (initialized.status !== 202) throw new Error(`notifications/initialized answered ${initialized.status}: ${initialized.body}`);
  return session;
}

export function deleteSession(url: string, session: string, agent?: http.Agent): Promise<RawResponse> {
  return request(url, { method: 'DELETE', headers: { 'mcp-session-id': session, 'mcp-protocol-version': LATEST }, agent });
}

/** One SSE block as written on the wire: an event (id/data), a retry hint, or a comment. */
export interface SseBlock {
  id?: string;
  data?: string;
  retry?: number;
  comments: string[];
  /** `data` parsed as JSON, when it is non-empty. */
  message?: any;
}

/** Reads an SSE response block by block as it arrives. */
export class SseReader {
  readonly blocks: SseBlock[] = [];
  ended = false;
  private buffer = '';
  private cursor = 0;
  private waiters: (() => void)[] = [];

  constructor(
    readonly res: http.IncomingMessage,
    private readonly req: http.ClientRequest,
  ) {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      this.buffer += chunk;
      let end: number;
      while ((end = this.buffer.indexOf('\n\n')) >= 0) {
        this.blocks.push(parseBlock(this.buffer.slice(0, end)));
        this.buffer = this.buffer.slice(end + 2);
      }
      this.wake();
    });
    const finish = () => {
      this.ended = true;
      this.wake();
    };
    res.once('end', finish);
    res.once('close', finish);
    res.once('error', finish);
  }

  get status(): number {
    return this.res.statusCode!;
  }

  /** Blocks that carry an event (id or data), in order: no comments, no bare retry hints. */
  get events(): SseBlock[] {
    return this.blocks.filter((b) => b.id !== undefined || b.data !== undefined);
  }

  /** The next block, or undefined once the stream has ended. */
  async next(timeoutMs = 5000): Promise<SseBlock | undefined> {
    const until = Date.now() + timeoutMs;
    while (this.cursor >= this.blocks.length) {
      if (this.ended) return undefined;
      const left = until - Date.now();
      if (left <= 0) throw new Error(`no SSE block within ${timeoutMs} ms (got ${JSON.stringify(this.blocks)})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.blocks[this.cursor++];
  }

  /** The next block carrying an event (skipping comments and bare retry hints). */
  async nextEvent(timeoutMs = 5000): Promise<SseBlock | undefined> {
    for (;;) {
      const block = await this.next(timeoutMs);
      if (!block || block.id !== undefined || block.data !== undefined) return block;
    }
  }

  /** Reads to the end of the stream; returns the blocks not read yet. */
  async rest(timeoutMs = 5000): Promise<SseBlock[]> {
    const out: SseBlock[] = [];
    for (let b = await this.next(timeoutMs); b; b = await this.next(timeoutMs)) out.push(b);
    return out;
  }

  /** The client drops the connection. */
  abort(): void {
    this.req.destroy();
    this.res.destroy();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

function parseBlock(text: string): SseBlock {
  const block: SseBlock = { comments: [] };
  for (const line of text.split('\n')) {
    if (line.startsWith(':')) {
      block.comments.push(line.slice(1).trim());
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'id') block.id = value;
    else if (field === 'data') block.data = block.data === undefined ? value : `${block.data}\n${value}`;
    else if (field === 'retry') block.retry = Number(value);
    else throw new Error(`unexpected SSE field ${JSON.stringify(field)} in ${JSON.stringify(text)}`);
  }
  if (block.data) block.message = JSON.parse(block.data);
  return block;
}

/**
 * Opens a request expected to answer with SSE. Resolves once the headers arrived: with an
 * SseReader on 200 text/event-stream, else throws with the status and body.
 */
export async function openSse(url: string, options: RequestOptions): Promise<SseReader> {
  const { req, res } = await send(url, options);
  if (res.statusCode !== 200 || !String(res.headers['content-type']).startsWith('text/event-stream')) {
    res.setEncoding('utf8');
    let body = '';
    for await (const chunk of res) body += chunk;
    throw new Error(`expected an SSE stream, got ${res.statusCode} ${res.headers['content-type']}: ${body}`);
  }
  return new SseReader(res, req);
}

/** POSTs a request into a session and reads its SSE stream. */
export function postSse(url: string, session: string, body: string): Promise<SseReader> {
  return openSse(url, { method: 'POST', headers: postHeaders(session), body });
}

/** GET: the standalone stream, or with `lastEventId`, a resumption. */
export function getSse(url: string, session: string, lastEventId?: string): Promise<SseReader> {
  return openSse(url, { method: 'GET', headers: getHeaders(session, lastEventId) });
}

export function getHeaders(session: string, lastEventId?: string): Headers {
  return { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': LATEST, 'last-event-id': lastEventId };
}

/** A promise the test resolves when it wants a tool to go on. */
export class Gate {
  open!: () => void;
  readonly promise = new Promise<void>((resolve) => (this.open = resolve));
}

/** Polls until `condition` holds; fails with `what` after `timeoutMs` (a bound on waiting, not a speed). */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000, everyMs = 5): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

export function startServer(server: Servable, options: ListenOptions = {}): Promise<McpHttpServer> {
  return listen(server, { host: '127.0.0.1', port: 0, handleSignals: false, logger: pino({ level: 'silent' }), ...options });
}

/** The seq of an event id `<stream>_<seq>`. */
export function seqOf(id: string): number {
  return Number(id.slice(id.lastIndexOf('_') + 1));
}

export function streamOf(id: string): string {
  return id.slice(0, id.lastIndexOf('_'));
}

/** What a list of event blocks carried, compactly: progress values, log lines, results. */
export function summarize(blocks: SseBlock[]): string[] {
  return blocks
    .filter((b) => b.message)
    .map((b) => {
      const m = b.message;
      if (m.method === 'notifications/progress') return `progress ${m.params.progress}`;
      if (m.method === 'notifications/message') return `log ${typeof m.params.data === 'string' ? m.params.data : m.params.data.message}`;
      if (m.method) return m.method;
      if ('result' in m) return `result ${m.id} ${m.result.content?.[0]?.text ?? ''}`.trim();
      return `error ${m.id} ${m.error.message}`;
    });
}

/** A loopback port that was free a moment ago: for servers whose configuration must name their URL before they listen. */
export async function freePort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
