/**
 * Helpers for driving the official SDK client against a real, listening mcpx HTTP server: a
 * recording fetch that keeps a copy of every HTTP exchange (status, headers, SSE events, JSON-RPC
 * messages, which connection each rode), a connected-peer factory, and a polling helper.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, LoggingMessageNotificationSchema, McpError, type CallToolResult, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';

/** A JSON-RPC message as seen on the wire, loosely typed for inspection. */
export interface Wire {
  jsonrpc?: '2.0';
  id?: string | number | null;
  method?: string;
  params?: Record<string, any>;
  result?: Record<string, any>;
  error?: { code: number; message: string; data?: unknown };
}

export interface SseEvent {
  id?: string;
  retry?: number;
  data: string;
}

/** One HTTP request/response pair, as the client saw it. Bodies are read on a copy (tee) as they stream. */
export interface Exchange {
  method: string;
  requestHeaders: Headers;
  /** The POSTed JSON-RPC message. */
  request?: Wire;
  /** 0 until the response starts. */
  status: number;
  headers: Headers;
  /** SSE events in arrival order (priming and retry-only events included). */
  events: SseEvent[];
  /** JSON-RPC messages carried by the response, in arrival order (SSE data or a JSON body). */
  messages: Wire[];
  /** The response body has ended (or failed). */
  closed: boolean;
}

/** Wraps the global fetch so every exchange is recorded in `log` (as it is sent), without disturbing what the SDK reads. */
export function recordingFetch(log: Exchange[]): FetchLike {
  return async (url, init) => {
    const exchange: Exchange = {
      method: (init?.method ?? 'GET').toUpperCase(),
      requestHeaders: new Headers(init?.headers),
      request: typeof init?.body === 'string' ? (JSON.parse(init.body) as Wire) : undefined,
      status: 0,
      headers: new Headers(),
      events: [],
      messages: [],
      closed: false,
    };
    log.push(exchange);
    let response: Response;
    try {
      response = await fetch(url, init);
    } catch (err) {
      exchange.closed = true;
      throw err;
    }
    exchange.status = response.status;
    exchange.headers = response.headers;
    if (!response.body) {
      exchange.closed = true;
      return response;
    }
    const [forSdk, forLog] = response.body.tee();
    void readInto(forLog, exchange, (response.headers.get('content-type') ?? '').startsWith('text/event-stream'));
    // A status without a body (202) cannot be given a stream: the SDK only cancels it anyway.
    return new Response(response.status === 202 || response.status === 204 ? null : forSdk, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

async function readInto(body: ReadableStream<Uint8Array>, exchange: Exchange, sse: boolean): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      if (!sse) continue;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = parseEvent(block);
        if (!event) continue;
        exchange.events.push(event);
        if (event.data !== '') exchange.messages.push(JSON.parse(event.data) as Wire);
      }
    }
    if (!sse && buffer.trim() !== '') exchange.messages.push(JSON.parse(buffer) as Wire);
  } catch {
    // Aborted by the client (close) or cut by the server: what arrived is kept.
  } finally {
    exchange.closed = true;
  }
}

/** One SSE event block; undefined for a comment-only block (heartbeat). */
function parseEvent(block: string): SseEvent | undefined {
  const event: SseEvent = { data: '' };
  const data: string[] = [];
  let fields = 0;
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    fields++;
    if (field === 'id') event.id = value;
    else if (field === 'retry') event.retry = Number(value);
    else if (field === 'data') data.push(value);
  }
  if (fields === 0) return undefined;
  event.data = data.join('\n');
  return event;
}

export interface Peer {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** Every HTTP exchange, in the order the responses started. */
  wire: Exchange[];
  /** Everything the SDK reported through onerror. */
  errors: Error[];
  /** Every notifications/message received, in order. */
  logs: LoggingMessageNotification['params'][];
}

/** Connects a fresh SDK client (initialize + initialized) and waits until its GET attempt was answered. */
export async function connectPeer(url: string, sessionId?: string): Promise<Peer> {
  const wire: Exchange[] = [];
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch(wire), sessionId });
  // A client that can show forms and confirms whatever it is asked (the example's delete asks first).
  const client = new Client({ name: 'mcpx-sdk-http', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { confirm: true } }));
  const errors: Error[] = [];
  client.onerror = (error) => void errors.push(error);
  const logs: Peer['logs'] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  await client.connect(transport);
  // The SDK opens the standalone GET stream (or learns there is none: 405) after initialized, without awaiting it.
  if (sessionId === undefined) await until(() => wire.some((e) => e.method === 'GET' && e.status !== 0), 'the GET stream to be answered');
  return { client, transport, wire, errors, logs };
}

/** Polls `predicate` every few ms; fails with `what` after `timeoutMs` (a bound on waiting, not a speed). */
export async function until(predicate: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Every page of a paginated list, following nextCursor. */
export async function allPages<P extends { nextCursor?: string }, T>(list: (cursor?: string) => Promise<P>, items: (page: P) => T[]): Promise<T[][]> {
  const pages: T[][] = [];
  let cursor: string | undefined;
  do {
    const page = await list(cursor);
    pages.push(items(page));
    cursor = page.nextCursor;
  } while (cursor !== undefined && pages.length < 50);
  return pages;
}

export function textOf(result: CallToolResult | { content: unknown }): string {
  const content = result.content as { type: string; text?: string }[];
  return content
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
}

export async function expectMcpError(promise: Promise<unknown>, code: number, message: RegExp): Promise<McpError> {
  const err = await promise.then(
    () => {
      throw new Error(`expected an McpError ${code}, but the call succeeded`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(McpError);
  expect((err as McpError).code).toBe(code);
  expect((err as McpError).message).toMatch(message);
  return err as McpError;
}

/** Removes from `errors` those matching `pattern` and returns them. */
export function takeErrors(errors: Error[], pattern: RegExp): Error[] {
  const taken = errors.filter((e) => pattern.test(String(e)));
  for (const e of taken) errors.splice(errors.indexOf(e), 1);
  return taken;
}
