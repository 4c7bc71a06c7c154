import type { ServerRequests } from './call-answers';
import { CliError } from './errors';
import { PROTOCOL_VERSION, clientInfo, resultOf, type McpClient } from './client';

type Message = Record<string, unknown> & { id?: unknown; method?: unknown };

/** How often a stream closed before its answer is resumed (GET with Last-Event-ID) before giving up. */
const MAX_RESUMES = 5;

/** Why fetch could not reach the server, in a few words. */
function unreachable(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  switch (cause?.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'ECONNRESET':
      return 'connection reset';
    default:
      return cause?.message ?? (err instanceof Error ? err.message : String(err));
  }
}

/**
 * A small Streamable HTTP client for one-shot commands: initialize, notifications/initialized,
 * the requests, DELETE. Answers come as one JSON body or on an SSE stream; both are read.
 */
export class HttpClient implements McpClient {
  private sessionId?: string;
  private protocolVersion?: string;
  private nextId = 1;
  private readonly abort = new AbortController();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly url: URL,
    private readonly headers: Record<string, string>,
    private readonly timeoutMs: number,
    private readonly requests: ServerRequests,
  ) {
    this.timer = setTimeout(() => this.abort.abort(), timeoutMs);
  }

  async connect(): Promise<void> {
    const result = await this.request('initialize', { protocolVersion: PROTOCOL_VERSION, capabilities: this.requests.capabilities(), clientInfo: clientInfo() });
    this.protocolVersion = typeof result.protocolVersion === 'string' ? result.protocolVersion : PROTOCOL_VERSION;
    const res = await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await res.body?.cancel();
  }

  async request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const res = await this.post({ jsonrpc: '2.0', id, method, params });
    if (method === 'initialize') this.sessionId = res.headers.get('mcp-session-id') ?? undefined;
    const type = res.headers.get('content-type') ?? '';
    let reply: Message | undefined;
    if (type.includes('text/event-stream')) reply = await this.fromStream(res, id);
    else if (type.includes('application/json')) reply = (await this.read(() => res.json())) as Message;
    else throw new CliError(`${this.url} answered ${method} with ${type || 'no content type'}, not JSON or an event stream`, 1);
    return resultOf(method, reply ?? {});
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    if (!this.sessionId) return;
    try {
      // The server may refuse (405) to let clients end sessions: its idle timeout ends it then.
      const res = await fetch(this.url, { method: 'DELETE', headers: this.headersFor(), signal: AbortSignal.timeout(2000) });
      await res.body?.cancel();
    } catch {
      // gone already: nothing to end
    }
  }

  private headersFor(extra: Record<string, string> = {}): Record<string, string> {
    return {
      ...this.headers,
      ...(this.sessionId ? { 'mcp-session-id': this.sessionId } : {}),
      ...(this.protocolVersion ? { 'mcp-protocol-version': this.protocolVersion } : {}),
      ...extra,
    };
  }

  private async send(init: RequestInit & { headers: Record<string, string> }): Promise<Response> {
    try {
      return await fetch(this.url, { ...init, signal: this.abort.signal });
    } catch (err) {
      if (this.abort.signal.aborted) throw this.timedOut();
      throw new CliError(`cannot reach ${this.url}: ${unreachable(err)}`, 1);
    }
  }

  private async post(message: Message): Promise<Response> {
    const res = await this.send({
      method: 'POST',
      headers: this.headersFor({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' }),
      body: JSON.stringify(message),
    });
    if (!res.ok) throw await this.refused(res, typeof message.method === 'string' ? message.method : 'a reply');
    return res;
  }

  /** An HTTP error status as one line: what the server said, and what to do about the usual ones. */
  private async refused(res: Response, method: string): Promise<CliError> {
    let detail = '';
    try {
      const text = (await res.text()).trim();
      const body = JSON.parse(text) as { error?: { message?: unknown } | string; error_description?: unknown };
      detail = typeof body.error === 'object' && typeof body.error?.message === 'string' ? body.error.message : typeof body.error_description === 'string' ? body.error_description : '';
    } catch {
      // not JSON: the status says enough
    }
    const said = detail ? `: ${detail}` : '';
    if (res.status === 401) {
      const hint = Object.keys(this.headers).some((h) => h.toLowerCase() === 'authorization') ? 'the token was refused' : "pass a token with --header 'Authorization: Bearer <token>'";
      return new CliError(`${this.url} needs authorization (401)${said}; ${hint}`, 1);
    }
    if (res.status === 404 && method === 'initialize') return new CliError(`no MCP endpoint at ${this.url} (404)`, 1);
    if (res.status === 404 && this.sessionId) return new CliError(`${this.url} ended the session during ${method} (404)`, 1);
    return new CliError(`${this.url} answered ${method} with ${res.status} ${res.statusText}${said}`, 1);
  }

  private timedOut(): CliError {
    return new CliError(`no answer from ${this.url} within ${this.timeoutMs} ms (raise --timeout)`, 1);
  }

  /** Runs a body read under the timeout's terms. */
  private async read<T>(reading: () => Promise<T>): Promise<T> {
    try {
      return await reading();
    } catch (err) {
      if (this.abort.signal.aborted) throw this.timedOut();
      throw new CliError(`${this.url} broke off its answer: ${err instanceof Error ? err.message : String(err)}`, 1);
    }
  }

  /**
   * Reads SSE events until the reply to `id`. Requests from the server on the way are answered
   * as ServerRequests says (ping, forms). A stream closed early is resumed.
   */
  private async fromStream(first: Response, id: number): Promise<Message | undefined> {
    let res = first;
    let lastEventId: string | undefined;
    let retryMs = 1000;
    for (let resumes = 0; ; resumes++) {
      const reply = await this.read(async () => {
        for await (const event of sseEvents(res.body!)) {
          if (event.id !== undefined) lastEventId = event.id;
          if (event.retry !== undefined) retryMs = event.retry;
          if (!event.data.trim()) continue; // the priming event
          const message = JSON.parse(event.data) as Message;
          if (message.id === id && message.method === undefined) return message;
          if (typeof message.method === 'string' && message.id !== undefined) await this.answer(message);
        }
        return undefined;
      });
      if (reply) return reply;
      if (lastEventId === undefined || resumes >= MAX_RESUMES) throw new CliError(`${this.url} closed the stream without answering`, 1);
      await new Promise((resolve) => setTimeout(resolve, retryMs));
      res = await this.send({ method: 'GET', headers: this.headersFor({ accept: 'text/event-stream', 'last-event-id': lastEventId }) });
      if (!res.ok) throw await this.refused(res, 'resuming its stream');
    }
  }

  private async answer(request: Message): Promise<void> {
    const reply = await this.requests.answer(request);
    const res = await this.post({ jsonrpc: '2.0', id: request.id, ...reply });
    await res.body?.cancel();
  }
}

interface SseEvent {
  id?: string;
  retry?: number;
  data: string;
}

/** Server-sent events from a body, per the HTML spec's parsing rules (fields, multi-line data, comments). */
async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event: SseEvent = { data: '' };
  let hasData = false;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
      if (newline === buffer.length - 1 && buffer.endsWith('\r')) break; // may be the first half of \r\n
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
      if (line === '') {
        if (hasData || event.id !== undefined || event.retry !== undefined) yield event;
        event = { data: '' };
        hasData = false;
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') {
        event.data = hasData ? `${event.data}\n${value}` : value;
        hasData = true;
      } else if (field === 'id') event.id = value;
      else if (field === 'retry' && /^\d+$/.test(value)) event.retry = Number(value);
    }
  }
}
