import type { Logger } from 'pino';
import type { Principal } from '../auth/principal';
import type { JsonRpcResponse, RequestId } from '../protocol/jsonrpc';
import type { Implementation, LoggingLevel, ServerCapabilities } from '../protocol/types';
import type { ResolvedArgumentLimits } from '../schema/argument-limits';
import type { Telemetry } from '../telemetry/telemetry';
import type { MessageChannel } from './channel';
import type { AskOptions } from './request-env';

/**
 * The server a request runs in, as handlers, eras and tasks reach it (`ctx.engine`): narrow, so that
 * nothing below the engine imports it. Declared here with what this layer can name; each layer
 * above adds the service it provides by declaration merging (the registry, the pipeline, tasks,
 * extensions, the modern era), so the request context never imports upward. The engine implements it.
 */
export interface ServerServices {
  readonly logger: Logger;
  readonly telemetry: Telemetry;
  readonly options: ServerSettings;
  readonly serverInfo: Implementation;
  readonly instructions?: string;
  /** Server-wide argument limits, resolved. */
  readonly argumentLimits: ResolvedArgumentLimits;
  /** Whether an unexpected tool error reaches the client as a generic message. */
  readonly maskErrors: boolean;
  /** How much of each message's JSON a debug line carries. */
  readonly debugMessageBytes: number;
  /** Set when other instances share this server's sessions. */
  readonly cluster?: SessionRouting;
  /** Client notifications the server acts on, by method. */
  readonly notificationHandlers: ReadonlyMap<string, (params: Record<string, unknown>, session: SessionView) => void>;
  /** What a 2025-11-25 session is offered; `unsolicited: false` for one that can receive nothing unasked. */
  capabilities(options?: { unsolicited?: boolean }): ServerCapabilities;
  /** What 2026-07-28 clients are offered. */
  modernCapabilities(): ServerCapabilities;
  notifyResourceUpdated(uri: string): void;
  /** A session ended (or moved to another instance: `keepTasks`). */
  forget(session: SessionView, options?: { keepTasks?: boolean }): void;
}

/** The server's settings that requests read. */
export interface ServerSettings {
  readonly pageSize: number;
  readonly clientRequestTimeoutMs: number;
  readonly maxRequestsInFlight: number;
  readonly listOnlyPermitted?: boolean;
  readonly includeTags?: readonly string[];
  readonly excludeTags?: readonly string[];
  readonly clientLogLevel?: LoggingLevel;
}

/** How a session's messages reach the instance that needs them, when instances share sessions. */
export interface SessionRouting {
  /** This instance's id: the prefix of the ids of requests it sends clients. */
  readonly instanceId: string;
  /** A cancellation for a request this instance does not run. */
  routeCancel(session: SessionView, requestId: RequestId, reason: string | undefined): void;
  /** A client's answer to a request another instance sent. */
  routeAnswer(session: SessionView, asker: string, response: JsonRpcResponse): void;
}

/** Where a 2025-11-25 session is in its lifecycle. */
export type SessionState = 'new' | 'initializing' | 'ready' | 'closed';

/** The 2025-11-25 session a request came on, as handlers and tasks see it (`ctx.session`). */
export interface SessionView extends RequestHost {
  readonly id: string;
  readonly state: SessionState;
  /** The session lives for one request (stateless HTTP): the server cannot ask the client anything. */
  readonly stateless: boolean;
  /** `mcp.session.id` in telemetry. */
  readonly telemetrySessionId: string | undefined;
  /** Who the session acts for. */
  readonly principal?: Principal;
  /** Where messages tied to no request go. */
  readonly outlet: MessageChannel;
  /** Sends a notification tied to no request. */
  notify(method: string, params?: Record<string, unknown>): void;
  /** logging/setLevel. */
  setLogLevel(level: LoggingLevel): Promise<void>;
  /** resources/subscribe (`on`) and resources/unsubscribe. */
  setSubscribed(uri: string, on: boolean): Promise<void>;
}

/**
 * What a request runs within: the engine, the framework logger for its lines, and the way to ask
 * the client something (a request on the call's stream in the legacy era; an input request
 * returned to the client and answered on its retry in the modern era).
 */
export interface RequestHost {
  readonly engine: ServerServices;
  /** The framework's logger for this request's lines. */
  readonly logger: Logger;
  /** `logger` with these bindings besides its own, made as one child (absent: `logger.child(bindings)`). */
  loggerWith?(bindings: Record<string, unknown>): Logger;
  /** A logger at the level of those `loggerWith` makes, asked before one is made (absent: `logger`). */
  readonly loggerLevels?: Logger;
  /** The legacy session the request came on; absent in the modern era, which has none. */
  readonly session?: SessionView;
  /**
   * Whether the handler's next `method` question is answered already, so nothing goes to the client
   * (2026-07-28: a retry brings the answers to the last round); absent where every question is sent.
   */
  hasAnswerFor?(method: string): boolean;
  /** Sends the client a request and resolves with its result (or rejects with its error). */
  ask(method: string, params: Record<string, unknown>, channel: MessageChannel, options: AskOptions): Promise<Record<string, unknown>>;
}
