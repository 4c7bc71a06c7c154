import { type Session } from '@mcpx/core';
import { ErrorCode } from '@mcpx/core/errors';
import { parseMessage, type JsonRpcMessage, type McpEngine } from '@mcpx/core/transport';
import { CliError } from './errors';
import type { ServerRequests } from './call-answers';
import { PROTOCOL_VERSION, clientInfo, resultOf, type McpClient } from './client';

type Reply = { id?: unknown; result?: Record<string, unknown>; error?: { code?: unknown; message?: unknown } };

/**
 * A client of an engine in this process: each message goes through JSON text, as on a wire, so
 * the entry answers exactly as it would when served.
 */
export class LocalClient implements McpClient {
  private readonly session: Session;
  private nextId = 1;
  private readonly pending = new Map<unknown, (reply: Reply) => void>();

  constructor(
    engine: McpEngine,
    private readonly timeoutMs: number,
    private readonly requests: ServerRequests,
  ) {
    this.session = engine.createSession({ send: (message) => this.deliver(message) });
  }

  async connect(): Promise<void> {
    await this.request('initialize', { protocolVersion: PROTOCOL_VERSION, capabilities: this.requests.capabilities(), clientInfo: clientInfo() });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  async request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    let timer: NodeJS.Timeout | undefined;
    const reply = await new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, resolve);
      timer = setTimeout(() => reject(new CliError(`no answer to ${method} within ${this.timeoutMs} ms (raise --timeout)`, 1)), this.timeoutMs);
      this.send({ jsonrpc: '2.0', id, method, params });
    }).finally(() => clearTimeout(timer));
    return resultOf(method, reply);
  }

  async close(): Promise<void> {
    this.session.close();
  }

  private send(message: Record<string, unknown>): void {
    void this.session.receive(parseMessage(JSON.stringify(message)), { send: (reply) => this.deliver(reply) });
  }

  private deliver(message: JsonRpcMessage): void {
    const parsed = JSON.parse(JSON.stringify(message)) as Reply & { method?: unknown };
    if (parsed.method === undefined) {
      const resolve = this.pending.get(parsed.id);
      this.pending.delete(parsed.id);
      resolve?.(parsed);
      return;
    }
    // The server asks something (ping, a form to fill): answered as ServerRequests says.
    if (parsed.id !== undefined) {
      const id = parsed.id;
      void this.requests.answer(parsed as Record<string, unknown>).then(
        (reply) => this.send({ jsonrpc: '2.0', id, ...reply }),
        (err: unknown) => this.send({ jsonrpc: '2.0', id, error: { code: ErrorCode.InternalError, message: String(err) } }),
      );
    }
  }
}
