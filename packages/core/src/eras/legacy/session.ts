import type { Principal } from '../../auth/principal';
import type { RequestHost, ServerServices } from '../../context/services';
import type { Logger } from 'pino';
import { ErrorCode, McpError } from '../../protocol/errors';
import {
  errorResponse,
  resultResponse,
  type JsonRpcErrorResponse,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type ParsedMessage,
  type RequestId,
} from '../../protocol/jsonrpc';
import type { LoggingLevel } from '../../protocol/types';
import { SessionFlags } from './session-flags';
import { NO_TERMS } from './session-terms';
import type { MessageChannel } from '../../context/channel';
import { RequestContext } from '../../context/request-context';
import type { MethodHandler } from '../../context/handler-types';
import type { LazyAbort } from '../../context/lazy-abort';
import { McpLogger } from '../../context/mcp-logger';
import { loggedChannel, logMessage, type MessageLogTarget } from '../../context/message-log';
import type { AskOptions, RequestEnv } from '../../context/request-env';
import { logNotification, logRefused, sessionLogId } from '../../context/request-log';
import { CancelledError, errorResponseFor } from '../../context/error-responses';
import type { EraFront, InFlightScope, Inbound, Outcome } from '../../pipeline/era-front';
import { RequestsById } from '../../pipeline/in-flight';
import { PendingAnswers } from './pending-answers';
import { SessionExtras, type SessionSync } from './session-extras';
import { SessionEnv } from './session-env';
import { invokeAnsweringInput } from './invoke-answering-input';
import { streamWriter } from '../../cluster/cluster';
import type { RequestOrigin } from '../../telemetry/origin';
import type { RequestTrace } from '../../telemetry/telemetry';

export type { SessionSync } from './session-extras';

export type { SessionState } from '../../context/services';

/**
 * One legacy client connection's protocol state (2025-11-25 and earlier): lifecycle, negotiated
 * version, the client's capabilities, its log level, its subscriptions and its requests in flight.
 * Transports feed it messages; it answers through the channel each message came with. Its requests
 * run with a RequestEnv built from what `initialize` recorded here. As the pipeline's EraFront it says how
 * the legacy era admits, runs and answers a request.
 */
export class Session extends SessionFlags implements RequestHost, EraFront, InFlightScope {
  /** The transport's outlet, as given. */
  private readonly rawOutlet: MessageChannel;
  /** Its requests in flight, by id, made with the first and let go with the last: an idle session holds none. */
  private requests?: RequestsById;
  /** What few sessions ever need, made with the first of it: an idle session holds none. */
  private more?: SessionExtras;
  /** Where the session's client is (HTTP, stdio): its requests' telemetry records it unless a request brings its own. */
  origin?: RequestOrigin;

  constructor(
    readonly engine: ServerServices,
    readonly id: string,
    /** Where messages tied to no request go (list_changed, resources/updated, session-wide logs). */
    outlet: MessageChannel,
    /** Whether anything can reach the client outside its own requests (false for stateless HTTP). */
    unsolicited = true,
    /** The session lives for one request (stateless HTTP): the server cannot ask the client anything. */
    stateless = false,
  ) {
    super(unsolicited, stateless, engine.options.clientLogLevel);
    if (!stateless) engine.telemetry.sessionOpened();
    this.rawOutlet = outlet;
  }

  /** Who this session acts for (HTTP with auth: the token's principal at initialize; stdio: configured). Kept with the extras: most sessions have none. */
  get principal(): Principal | undefined {
    return this.more?.principal;
  }
  set principal(principal: Principal | undefined) {
    if (principal !== undefined || this.more !== undefined) this.extras.principal = principal;
  }

  /** Set when other instances share this session: its changes are written through it. */
  get sync(): SessionSync | undefined {
    return this.more?.sync;
  }
  set sync(sync: SessionSync | undefined) {
    this.extras.sync = sync;
  }

  private get extras(): SessionExtras {
    return (this.more ??= new SessionExtras());
  }

  /** As the pipeline's in-flight scope (the bound of admission; what notifications/cancelled finds): the session itself. */
  get inFlight(): InFlightScope {
    return this;
  }
  enter(id: RequestId, abort: LazyAbort, cap: number): 'ok' | 'taken' | 'full' {
    return (this.requests ??= new RequestsById()).enter(id, abort, cap);
  }
  leave(id: RequestId, abort: LazyAbort): void {
    if (this.requests?.leave(id, abort) === 0) this.requests = undefined;
  }

  get era(): 'legacy' {
    return 'legacy';
  }

  /** The `session` field of the request log (none in stateless HTTP), cut when a line is written: most sessions log nothing of their own. */
  private get logId(): string | undefined {
    return this.stateless ? undefined : sessionLogId(this.id);
  }

  /** `mcp.session.id` in telemetry: the id as logs show it (none in stateless HTTP and over stdio, which hold no session id). */
  get telemetrySessionId(): string | undefined {
    return this.id === 'stdio' ? undefined : this.logId;
  }

  /** The transport's outlet as it was given (what `outlet` wraps). */
  get channel(): MessageChannel {
    return this.rawOutlet;
  }

  /**
   * Where what no request asked for goes: the transport's outlet, its messages logged at debug, wrapped
   * on first use (most sessions never send such a message). A stateless session's reaches no one.
   */
  get outlet(): MessageChannel {
    return this.stateless ? this.rawOutlet : (this.extras.loggedOutlet ??= loggedChannel(this.rawOutlet, this.messageLog(this.engine.logger)));
  }

  /** The framework's logger for its lines (its id as `session`, but in stateless HTTP): made on each use, as its lines are few; held, it was most of an idle session at the default level. */
  get logger(): Logger {
    const id = this.logId;
    return id === undefined ? this.engine.logger : this.engine.logger.child({ session: id });
  }
  /** As a RequestHost: a request's logger (ctx.log), its bindings beside the session's id in one child rather than a child of a child. */
  loggerWith(bindings: Record<string, unknown>): Logger {
    const id = this.logId;
    return this.engine.logger.child(id === undefined ? bindings : { session: id, ...bindings });
  }
  /** The level of what `loggerWith` makes: the engine's logger's. */
  get loggerLevels(): Logger {
    return this.engine.logger;
  }
  /** The resources this session subscribed to (resources/subscribe). */
  get subscriptions(): Set<string> {
    return (this.extras.subscribed ??= new Set());
  }
  /** The URIs subscribed to, as a new array. */
  subscribedUris(): string[] {
    return this.more?.subscribed ? [...this.more.subscribed] : [];
  }
  /** Replaces the subscriptions with `uris` (a shared session's record). */
  resetSubscriptions(uris: readonly string[]): void {
    this.more?.subscribed?.clear();
    for (const uri of uris) this.subscriptions.add(uri);
  }
  isSubscribed(uri: string): boolean {
    return this.more?.subscribed?.has(uri) === true;
  }

  /** As a RequestHost: the session its requests came on is itself. */
  get session(): Session {
    return this;
  }

  /** As a RequestHost: a question to the client is a request on the call's own channel. */
  ask(method: string, params: Record<string, unknown>, channel: MessageChannel, options: AskOptions): Promise<Record<string, unknown>> {
    return this.request(method, params, channel, options);
  }

  /** What this session's requests see of the client; `principal`: the request's own token's, else the session's. */
  envFor(principal: Principal | undefined): RequestEnv {
    return new SessionEnv(this, principal ?? this.principal);
  }

  /** logging/setLevel: from now on, on every instance serving the session. */
  async setLogLevel(level: LoggingLevel): Promise<void> {
    this.logLevel = level;
    await this.sync?.update({ logLevel: level });
  }

  /** resources/subscribe (`on`) and resources/unsubscribe. */
  async setSubscribed(uri: string, on: boolean): Promise<void> {
    if (on) this.subscriptions.add(uri);
    else this.subscriptions.delete(uri);
    await this.sync?.subscribe(uri, on);
  }

  get initialized(): boolean {
    return this.state === 'initializing' || this.state === 'ready';
  }

  /** Session-wide logger: lines tied to no request, sent on the outlet at the session's level. */
  get log(): McpLogger {
    return (this.extras.clientLogger ??= new McpLogger(this.logger, this, this.outlet));
  }

  /**
   * For transports without sessions (stateless HTTP): serve this one exchange as if initialize
   * had happened, at the protocol version the request's transport header names.
   */
  assumeInitialized(protocolVersion: string): void {
    this.settle(protocolVersion, undefined, NO_TERMS.clientCapabilities, this.engine.capabilities({ unsolicited: this.unsolicited }));
    this.state = 'ready';
  }

  /** Handles one parsed message; a request's response (if any) is written to `channel`. */
  async receive(parsed: ParsedMessage, channel: MessageChannel): Promise<void> {
    switch (parsed.kind) {
      case 'request': {
        const response = await this.handleRequest(parsed.message, channel);
        if (response) channel.send(response);
        return;
      }
      case 'notification':
        this.handleNotification(parsed.message);
        return;
      case 'response':
        this.handleResponse(parsed.message);
        return;
      case 'invalid': {
        const logger = this.engine.logger;
        if (logger.isLevelEnabled('info')) {
          logRefused(logger, this.logId, parsed.error);
          if (logger.isLevelEnabled('debug')) logMessage(this.messageLog(logger), 'out', parsed.error);
        }
        channel.send(parsed.error);
        return;
      }
    }
  }

  /**
   * Runs one request through the pipeline to its response. Resolves to null when the request was
   * cancelled: the spec says a cancelled request gets no response. `log` is the transport's logger
   * for this request (a child carrying its own context, such as an HTTP request id).
   */
  handleRequest(request: JsonRpcRequest, channel: MessageChannel, principal?: Principal, log?: Logger, origin?: RequestOrigin): Promise<JsonRpcResponse | null> {
    return this.engine.pipeline.handle(this, { request, principal, logger: log, origin }, channel);
  }

  get logSessionId(): string | undefined {
    return this.logId;
  }

  /** Why a request is answered with an error before its handler runs, if it is. */
  refuse(request: JsonRpcRequest, handler: MethodHandler | undefined): JsonRpcErrorResponse | undefined {
    const { id, method } = request;
    if (this.state === 'closed') return errorResponse(id, ErrorCode.InvalidRequest, 'Session is closed');
    if (!handler) return errorResponse(id, ErrorCode.MethodNotFound, `Method not found: ${method}`);
    if (method !== 'initialize' && method !== 'ping' && !this.initialized) {
      return errorResponse(id, ErrorCode.InvalidRequest, `Session not initialized: send "initialize" before "${method}"`);
    }
    return undefined;
  }

  open(request: JsonRpcRequest, inbound: Inbound, channel: MessageChannel, abort: LazyAbort, _logger: Logger, trace: RequestTrace | undefined): RequestContext {
    const meta = request.params?._meta as Record<string, unknown> | undefined;
    // The request's own token (it may carry scopes granted since initialize), else the session's.
    const ctx = new RequestContext(this, this.envFor(inbound.principal), request.id, request.method, meta && typeof meta === 'object' ? meta : undefined, abort, channel);
    ctx.trace = trace;
    return ctx;
  }

  invoke(handler: MethodHandler, params: Record<string, unknown>, ctx: RequestContext): Record<string, unknown> | Promise<Record<string, unknown>> {
    return invokeAnsweringInput(handler, params, ctx);
  }

  answer(request: JsonRpcRequest, ctx: RequestContext, outcome: Outcome): JsonRpcResponse | null {
    if (ctx.aborted) return null;
    if (outcome.ok) return resultResponse(request.id, outcome.result);
    const traced = (ctx.trace as RequestTrace | undefined)?.logFields();
    return errorResponseFor(request.id, request.method, outcome.error, () => (traced ? this.loggerWith(traced) : this.logger));
  }

  handleNotification(notification: JsonRpcNotification, origin?: RequestOrigin): void {
    const trace = this.engine.telemetry.startRequest(notification.method, undefined, notification.params, { sessionId: this.telemetrySessionId, origin: origin ?? this.origin });
    try {
      this.applyNotification(notification);
    } finally {
      trace?.end(undefined, this.protocolVersion);
    }
  }

  private applyNotification(notification: JsonRpcNotification): void {
    const logger = this.engine.logger;
    if (logger.isLevelEnabled('debug')) {
      logMessage(this.messageLog(logger), 'in', notification);
      logNotification(logger, this.logId, notification);
    }
    const params = notification.params ?? {};
    switch (notification.method) {
      case 'notifications/initialized':
        if (this.state !== 'initializing') return;
        this.state = 'ready';
        this.sync?.update({ state: 'ready' }).catch((err) => this.logger.error({ err }, 'could not record that the session is ready'));
        return;
      case 'notifications/cancelled': {
        const requestId = params.requestId;
        if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
        const reason = typeof params.reason === 'string' ? params.reason : undefined;
        // Not running here: another instance sharing the session may run it.
        if (!this.cancelRequest(requestId, reason)) this.engine.cluster?.routeCancel(this, requestId, reason);
        return;
      }
      default: {
        const handler = this.engine.notificationHandlers.get(notification.method);
        if (handler) handler(params, this);
        else this.engine.extensions.notify(notification.method, params, { sessionId: this.id, principal: this.principal });
      }
    }
  }

  /**
   * Stops one of this session's requests running here (the client cancelled it); false when none
   * with that id runs here (already finished, never ours, or running on another instance).
   */
  cancelRequest(requestId: RequestId, reason: string | undefined): boolean {
    const abort = this.requests?.get(requestId);
    if (!abort) return false;
    this.logger.info({ requestId, reason }, 'request cancelled by client');
    abort.abort(new CancelledError(reason));
    return true;
  }

  /**
   * A client's answer to a request this server sent: settles the waiting call. An answer to a
   * request another instance sent (its id names that instance) is passed on to it, unless it came
   * from there already (`routed`).
   */
  handleResponse(response: JsonRpcResponse, routed = false): void {
    if (this.engine.logger.isLevelEnabled('debug')) logMessage(this.messageLog(this.engine.logger), 'in', response);
    if (this.more?.asked?.answer(response)) return;
    const cluster = this.engine.cluster;
    const asker = typeof response.id === 'string' ? streamWriter(response.id) : undefined;
    if (!routed && cluster && asker !== undefined && asker !== cluster.instanceId) return cluster.routeAnswer(this, asker, response);
    this.logger.debug({ id: response.id }, 'response to no pending request; ignored');
  }

  /** Sends the client a request on `channel` and resolves with its result (see PendingAnswers.ask). */
  request(method: string, params: Record<string, unknown>, channel: MessageChannel, options: AskOptions = {}): Promise<Record<string, unknown>> {
    if (this.state === 'closed') return Promise.reject(new McpError(ErrorCode.InvalidRequest, `Cannot send ${method}: the session is closed`));
    return (this.extras.asked ??= new PendingAnswers(this, this.engine.cluster?.instanceId, this.engine.options.clientRequestTimeoutMs)).ask(method, params, channel, options);
  }

  /** Sends a notification tied to no request. */
  notify(method: string, params?: Record<string, unknown>): void {
    if (this.outlet.open === false) return;
    this.outlet.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /**
   * Ends the session: aborts its requests in flight and stops its tasks. `endedHere` false: a copy
   * of a shared session another instance ended (that one records its duration).
   */
  close(endedHere = true): void {
    if (this.state === 'closed') return;
    this.end('session closed');
    this.engine.forget(this);
    if (!this.stateless) this.engine.telemetry.sessionEnded(endedHere, this.openedAt, this.protocolVersion, this.origin);
  }

  /**
   * Drops this instance's copy of a session other instances share (idle here, or gone): what runs
   * here stops, the session and its tasks live on in the shared store.
   */
  release(): void {
    if (this.state === 'closed') return;
    this.end('session released');
    this.engine.forget(this, { keepTasks: true });
    if (!this.stateless) this.engine.telemetry.sessionEnded(false, this.openedAt, this.protocolVersion, this.origin);
  }

  private end(reason: string): void {
    this.state = 'closed';
    const requests = this.requests;
    this.requests = undefined;
    requests?.abortAll(new CancelledError(reason));
    this.more?.asked?.abandonAll();
    this.rawOutlet.sessionEnded?.();
  }

  get requestsInFlight(): number {
    return this.requests?.size ?? 0;
  }

  /** Where this session's messages are logged at debug: `logger` (one without the session's binding), naming the session. */
  private messageLog(logger: Logger): MessageLogTarget {
    return { logger, session: this.logId, maxBytes: this.engine.debugMessageBytes };
  }
}
