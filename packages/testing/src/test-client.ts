import {
  createEngine,
  type CallToolResult,
  type CompleteResult,
  type EngineOptions,
  type GetPromptResult,
  type InitializeResult,
  type LoggingLevel,
  type Principal,
  type PromptDefinition,
  type ReadResourceResult,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
  type Servable,
  type Session,
  type ToolDefinition,
} from '@mcpx/core';
import { parseMessage, type JsonRpcErrorObject, type JsonRpcMessage, type JsonRpcNotification, type McpEngine } from '@mcpx/core/transport';

/** A JSON-RPC error the server answered with. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

export interface ConnectOptions extends EngineOptions {
  clientInfo?: { name: string; version: string };
  capabilities?: Record<string, unknown>;
  protocolVersion?: string;
  /** Send initialize and notifications/initialized on connect (default true). */
  initialize?: boolean;
  /** Who the session acts for: entries' scopes apply, and handlers see it as ctx.principal. */
  principal?: Principal;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Called for each notifications/progress of this request; asks for progress when set. */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

/**
 * An MCP client wired to a server in the same process. Every message goes through JSON text,
 * as on a real wire, so results that would not serialise show up in tests.
 */
export class TestClient {
  /** Every notification the server sent, in order. */
  readonly notifications: JsonRpcNotification[] = [];
  initializeResult?: InitializeResult;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void; onProgress?: RequestOptions['onProgress'] }>();
  private readonly waiters: { method: string; resolve: (n: JsonRpcNotification) => void }[] = [];
  private readonly handlers = new Map<string, (params: Record<string, unknown>) => unknown>();
  private readonly recorders: JsonRpcMessage[][] = [];
  /** Every request the server sent this client (sampling, elicitation, roots), in order. */
  readonly serverRequests: { method: string; params: Record<string, unknown> }[] = [];
  /** Notifications already handed out by nextNotification. */
  private readonly awaited = new WeakSet<JsonRpcNotification>();
  readonly session: Session;

  constructor(
    readonly engine: McpEngine,
    principal?: Principal,
  ) {
    const channel = {
      send: (message: JsonRpcMessage) => {
        const text = this.serialise(message);
        if (text !== undefined) this.deliver(text);
      },
    };
    this.session = engine.createSession(channel, undefined, { principal });
  }

  async initialize(options: ConnectOptions = {}): Promise<InitializeResult> {
    this.initializeResult = await this.request<InitializeResult>('initialize', {
      protocolVersion: options.protocolVersion ?? '2025-11-25',
      capabilities: options.capabilities ?? {},
      clientInfo: options.clientInfo ?? { name: 'mcpx-test-client', version: '0.0.0' },
    });
    this.notify('notifications/initialized');
    return this.initializeResult;
  }

  /** Sends a request and resolves with its result, or rejects with an RpcError. */
  request<T = Record<string, unknown>>(method: string, params?: Record<string, unknown>, options: RequestOptions = {}): Promise<T> {
    const id = this.nextId++;
    let sendParams = params;
    if (options.onProgress) sendParams = { ...params, _meta: { ...(params?._meta as object), progressToken: id } };
    const message = { jsonrpc: '2.0' as const, id, method, ...(sendParams ? { params: sendParams } : {}) };
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress: options.onProgress });
      options.signal?.addEventListener('abort', () => {
        if (!this.pending.delete(id)) return;
        this.notify('notifications/cancelled', { requestId: id, reason: String(options.signal?.reason ?? 'aborted') });
        reject(new Error('Request aborted by the client'));
      });
      this.send(message);
    });
  }

  notify(method: string, params?: Record<string, unknown>): void {
    this.send({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
  }

  /** Records every message the server sends from now on (responses included), in order, as received. */
  record(): JsonRpcMessage[] {
    const messages: JsonRpcMessage[] = [];
    this.recorders.push(messages);
    return messages;
  }

  /**
   * Answers the server's `method` requests (sampling/createMessage, elicitation/create, roots/list)
   * with what `handler` returns; a thrown RpcError becomes an error reply. Declare the matching
   * capability at connect (`capabilities`), as a real client would.
   */
  onRequest(method: string, handler: (params: Record<string, unknown>) => unknown): this {
    this.handlers.set(method, handler);
    return this;
  }

  private async answer(request: { id: number | string; method: string; params?: Record<string, unknown> }): Promise<void> {
    const params = request.params ?? {};
    this.serverRequests.push({ method: request.method, params });
    const handler = this.handlers.get(request.method);
    let reply: JsonRpcMessage;
    if (!handler) reply = { jsonrpc: '2.0', id: request.id, error: { code: -32601, message: `Method not found: ${request.method}` } };
    else {
      try {
        reply = { jsonrpc: '2.0', id: request.id, result: ((await handler(params)) ?? {}) as Record<string, unknown> };
      } catch (err) {
        const e = err instanceof RpcError ? err : new RpcError(-32603, err instanceof Error ? err.message : String(err));
        reply = { jsonrpc: '2.0', id: request.id, error: { code: e.code, message: e.message, ...(e.data === undefined ? {} : { data: e.data }) } };
      }
    }
    this.send(reply);
  }

  /** Resolves with the next notification of this method (or one already received and not yet awaited). */
  nextNotification(method: string): Promise<JsonRpcNotification> {
    const received = this.notifications.find((n) => n.method === method && !this.awaited.has(n));
    if (received) {
      this.awaited.add(received);
      return Promise.resolve(received);
    }
    return new Promise((resolve) => this.waiters.push({ method, resolve }));
  }

  ping(): Promise<Record<string, never>> {
    return this.request('ping');
  }
  listTools(cursor?: string): Promise<{ tools: ToolDefinition[]; nextCursor?: string }> {
    return this.request('tools/list', cursor ? { cursor } : undefined);
  }
  callTool(name: string, args?: Record<string, unknown>, options?: RequestOptions): Promise<CallToolResult> {
    return this.request('tools/call', args === undefined ? { name } : { name, arguments: args }, options);
  }
  listResources(cursor?: string): Promise<{ resources: ResourceDefinition[]; nextCursor?: string }> {
    return this.request('resources/list', cursor ? { cursor } : undefined);
  }
  listResourceTemplates(cursor?: string): Promise<{ resourceTemplates: ResourceTemplateDefinition[]; nextCursor?: string }> {
    return this.request('resources/templates/list', cursor ? { cursor } : undefined);
  }
  readResource(uri: string): Promise<ReadResourceResult> {
    return this.request('resources/read', { uri });
  }
  subscribe(uri: string): Promise<Record<string, never>> {
    return this.request('resources/subscribe', { uri });
  }
  unsubscribe(uri: string): Promise<Record<string, never>> {
    return this.request('resources/unsubscribe', { uri });
  }
  listPrompts(cursor?: string): Promise<{ prompts: PromptDefinition[]; nextCursor?: string }> {
    return this.request('prompts/list', cursor ? { cursor } : undefined);
  }
  getPrompt(name: string, args?: Record<string, string>): Promise<GetPromptResult> {
    return this.request('prompts/get', args ? { name, arguments: args } : { name });
  }
  complete(ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string }, argument: { name: string; value: string }, context?: Record<string, string>): Promise<CompleteResult> {
    return this.request('completion/complete', { ref, argument, ...(context ? { context: { arguments: context } } : {}) });
  }
  setLogLevel(level: LoggingLevel): Promise<Record<string, never>> {
    return this.request('logging/setLevel', { level });
  }

  /** Follows nextCursor through every page of a list method and returns all items. */
  async listAll<K extends 'tools' | 'resources' | 'resourceTemplates' | 'prompts'>(key: K): Promise<any[]> {
    const method = { tools: 'tools/list', resources: 'resources/list', resourceTemplates: 'resources/templates/list', prompts: 'prompts/list' }[key];
    const items: any[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.request<Record<string, any>>(method, cursor ? { cursor } : undefined);
      items.push(...page[key]);
      cursor = page.nextCursor;
    } while (cursor);
    return items;
  }

  close(): void {
    this.session.close();
    for (const { reject } of this.pending.values()) reject(new Error('Client closed'));
    this.pending.clear();
  }

  private send(message: JsonRpcMessage): void {
    const text = JSON.stringify(message);
    // Delivered on a later tick, as a transport would.
    setImmediate(() => void this.session.receive(parseMessage(text), this.session.outlet));
  }

  /** A response that cannot go over the wire fails its request (instead of leaving it pending for ever). */
  private serialise(message: JsonRpcMessage): string | undefined {
    try {
      return JSON.stringify(message);
    } catch (err) {
      const id = 'id' in message && !('method' in message) ? message.id : undefined;
      const waiter = typeof id === 'number' ? this.pending.get(id) : undefined;
      if (!waiter) throw err;
      this.pending.delete(id as number);
      waiter.reject(new Error(`The server's response to request ${id} does not serialise to JSON: ${(err as Error).message}`));
      return undefined;
    }
  }

  private deliver(text: string): void {
    const message = JSON.parse(text) as Record<string, any>;
    for (const recorder of this.recorders) recorder.push(JSON.parse(text) as JsonRpcMessage);
    if ('id' in message && !('method' in message)) {
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      if (message.error) {
        const e = message.error as JsonRpcErrorObject;
        waiter.reject(new RpcError(e.code, e.message, e.data));
      } else waiter.resolve(message.result);
      return;
    }
    if ('method' in message && 'id' in message) {
      void this.answer(message as { id: number | string; method: string; params?: Record<string, unknown> });
      return;
    }
    if (!('method' in message)) return;
    const notification = message as JsonRpcNotification;
    this.notifications.push(notification);
    if (notification.method === 'notifications/progress') {
      const token = notification.params?.progressToken;
      const waiter = typeof token === 'number' ? this.pending.get(token) : undefined;
      waiter?.onProgress?.(notification.params as { progress: number; total?: number; message?: string });
    }
    const index = this.waiters.findIndex((w) => w.method === notification.method);
    if (index >= 0) {
      this.awaited.add(notification);
      this.waiters.splice(index, 1)[0]!.resolve(notification);
    }
  }
}

/**
 * Serves `target` to a fresh in-process client and initializes the session:
 * `const client = await connect(new NotesServer())`.
 */
export async function connect(target: Servable, options: ConnectOptions = {}): Promise<TestClient> {
  const client = new TestClient(createEngine(target, options), options.principal);
  if (options.initialize !== false) await client.initialize(options);
  return client;
}
