import {
  ErrorCode,
  createEngine,
  type CallToolResult,
  type EngineOptions,
  type GetPromptResult,
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
import { type CompleteResult, type InitializeResult } from '@mcpx/core/protocol';
import { META, ModernStream, isModernProtocolVersion, parseMessage, type JsonRpcErrorObject, type JsonRpcMessage, type JsonRpcNotification, type McpEngine } from '@mcpx/core/transport';

/**
 * A JSON-RPC error the server answered with, or one a client handler throws to answer with. A wire
 * error like McpError, not an McpxError: `code` is the JSON-RPC code.
 */
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
  /**
   * The protocol version the client speaks (default 2025-11-25). A modern version (2026-07-28)
   * sends no initialize: every request carries the version, capabilities and client info in its
   * `_meta`, and input requests (elicitation, sampling, roots) are answered by retrying with the
   * answers, as a 2026 client does.
   */
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
  /** Set when the client speaks a modern version: its requests carry this `_meta`, and go to no session. */
  private modern?: { stream: ModernStream; meta: Record<string, unknown> };
  private readonly channel = {
    send: (message: JsonRpcMessage) => {
      const text = this.serialise(message);
      if (text !== undefined) this.deliver(text);
    },
  };

  constructor(
    readonly engine: McpEngine,
    principal?: Principal,
  ) {
    this.session = engine.createSession(this.channel, undefined, { principal });
    this.principal = principal;
  }

  private readonly principal?: Principal;

  /** Speaks a modern protocol version from now on: per-request `_meta` instead of a session. */
  useModern(options: ConnectOptions & { protocolVersion: string }): void {
    this.modern = {
      stream: new ModernStream(this.engine, { principal: this.principal }),
      meta: {
        [META.protocolVersion]: options.protocolVersion,
        [META.clientCapabilities]: options.capabilities ?? {},
        [META.clientInfo]: options.clientInfo ?? { name: 'mcpx-test-client', version: '0.0.0' },
      },
    };
  }

  /** The protocol era this client speaks. */
  get era(): 'legacy' | 'modern' {
    return this.modern ? 'modern' : 'legacy';
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

  /**
   * Sends a request and resolves with its result, or rejects with an RpcError. In the modern era,
   * an InputRequiredResult is answered with the onRequest handlers and the request retried with
   * the answers (up to 10 rounds), as a 2026 client does; the final result is what resolves.
   */
  async request<T = Record<string, unknown>>(method: string, params?: Record<string, unknown>, options: RequestOptions = {}): Promise<T> {
    if (!this.modern) return this.send1<T>(method, params, options);
    let round: Record<string, unknown> = { ...params, _meta: { ...(params?._meta as object), ...this.modern.meta } };
    for (let rounds = 0; ; rounds++) {
      const result = await this.send1<Record<string, unknown>>(method, round, options);
      if (result.resultType !== 'input_required') return result as T;
      if (rounds >= 10) throw new Error(`${method} still needs input after 10 rounds`);
      const inputResponses: Record<string, unknown> = {};
      for (const [key, input] of Object.entries((result.inputRequests ?? {}) as Record<string, { method: string; params?: Record<string, unknown> }>)) {
        const params = input.params ?? {};
        this.serverRequests.push({ method: input.method, params });
        const handler = this.handlers.get(input.method);
        if (!handler) throw new Error(`The server asked for ${input.method} and the test client has no onRequest handler for it`);
        inputResponses[key] = (await handler(params)) ?? {};
      }
      const { inputResponses: _a, requestState: _s, ...rest } = round;
      round = { ...rest, inputResponses, ...(result.requestState === undefined ? {} : { requestState: result.requestState }) };
    }
  }

  private send1<T>(method: string, params?: Record<string, unknown>, options: RequestOptions = {}): Promise<T> {
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
    if (!handler) reply = { jsonrpc: '2.0', id: request.id, error: { code: ErrorCode.MethodNotFound, message: `Method not found: ${request.method}` } };
    else {
      try {
        reply = { jsonrpc: '2.0', id: request.id, result: ((await handler(params)) ?? {}) as Record<string, unknown> };
      } catch (err) {
        const e = err instanceof RpcError ? err : new RpcError(ErrorCode.InternalError, err instanceof Error ? err.message : String(err));
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

  /** server/discover (2026-07-28): the versions, capabilities and identity of the server. */
  discover(): Promise<Record<string, any>> {
    return this.request('server/discover');
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
  complete(
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
    argument: { name: string; value: string },
    context?: Record<string, string>,
  ): Promise<CompleteResult> {
    return this.request('completion/complete', { ref, argument, ...(context ? { context: { arguments: context } } : {}) });
  }
  /** Legacy: logging/setLevel. Modern: every later request carries the level in its `_meta` (2026-07-28 has no setLevel). */
  setLogLevel(level: LoggingLevel): Promise<Record<string, never>> {
    if (this.modern) {
      this.modern.meta[META.logLevel] = level;
      return Promise.resolve({});
    }
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
    this.modern?.stream.close();
    this.session.close();
    for (const { reject } of this.pending.values()) reject(new Error('Client closed'));
    this.pending.clear();
  }

  private send(message: JsonRpcMessage): void {
    const text = JSON.stringify(message);
    // Delivered on a later tick, as a transport would.
    setImmediate(() => {
      const parsed = parseMessage(text);
      const modern = this.modern?.stream;
      if (modern && ModernStream.isModern(parsed)) void modern.receive(parsed.message, this.channel);
      else if (modern && parsed.kind === 'notification' && modern.cancel(parsed.message)) return;
      else void this.session.receive(parsed, this.session.outlet);
    });
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
  if (isModernProtocolVersion(options.protocolVersion)) client.useModern({ ...options, protocolVersion: options.protocolVersion });
  else if (options.initialize !== false) await client.initialize(options);
  return client;
}
