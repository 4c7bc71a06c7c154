import type { Logger } from 'pino';
import type { Principal } from '../auth/principal';
import type { RequestContext } from './request-context';
import type { Era } from './request-env';
import type { ServerServices } from './services';
import type { Middleware } from './middleware';

/** What an extension declares about itself in capabilities: any JSON object (often empty). */
export type ExtensionSettings = Record<string, unknown>;

/**
 * A protocol extension added from outside core: its id and settings (declared in
 * `capabilities.extensions` to 2026-07-28 clients and `capabilities.experimental` to 2025-11-25
 * sessions), the request methods and notifications it adds, and middleware on every request.
 * Give it to `@Server({ extensions })` or the `extensions` option (docs/architecture.md).
 */
export interface McpExtension {
  /** The extension's identifier, a vendor prefix and a name: `com.example/audit`, `io.modelcontextprotocol/tasks`. */
  readonly id: string;
  /**
   * What the server declares for it. A function is asked whenever capabilities are derived
   * (a registry change derives them again); `undefined` from it means the extension is not offered
   * now, and its methods answer -32601. Default `{}`.
   */
  readonly settings?: ExtensionSettings | ((server: ExtensionServer) => ExtensionSettings | undefined);
  /** The eras it is offered in (default both). */
  readonly eras?: readonly Era[];
  /**
   * Where 2025-11-25 sessions find its declaration: `capabilities.experimental[id]` (the default),
   * or `capabilities.extensions[id]` for an extension whose clients read it there in both eras
   * (the skills extension, as the official SDK declares and reads it).
   */
  readonly legacyCapability?: 'experimental' | 'extensions';
  /** The request methods it adds. */
  readonly methods?: readonly ExtensionMethod[];
  /** The client-to-server notifications it handles. */
  readonly notifications?: readonly ExtensionNotification[];
  /** Middleware around every request, after the server's own (options, then `@Server`). */
  readonly middleware?: readonly Middleware[];
  /** Called once, when the server is built. */
  setup?(server: ExtensionServer): void;
}

/** One request method an extension adds. */
export interface ExtensionMethod {
  readonly name: string;
  /** A class whose class-validator rules the params must pass (-32602 listing each problem); `_meta` is never checked. */
  readonly params?: new () => object;
  /**
   * Answers the request: the result object, or a thrown McpError. It runs inside the pipeline like
   * any core method (admission, middleware, the request log, a span).
   */
  readonly handler: (params: Record<string, unknown>, ctx: RequestContext) => unknown;
  /**
   * 2026-07-28: the method answers only requests whose client declared the extension in
   * `capabilities.extensions` (-32021 otherwise, naming it). Default false.
   */
  readonly requiresClientDeclaration?: boolean;
}

/** One client-to-server notification an extension handles; it is never answered. */
export interface ExtensionNotification {
  readonly name: string;
  readonly params?: new () => object;
  readonly handler: (params: Record<string, unknown>, from: NotificationSource) => void | Promise<void>;
}

/** Who sent a notification: the 2025-11-25 session's id and principal, where there is one. */
export interface NotificationSource {
  readonly sessionId?: string;
  readonly principal?: Principal;
}

/** What an extension reaches of the server it is part of. */
export interface ExtensionServer {
  readonly registry: ServerServices['registry'];
  readonly logger: Logger;
  /** Whether this extension is offered right now (its settings are not undefined). */
  offered(id: string): boolean;
  /** Sends a notification to every client that can receive one (2025 sessions; 2026 subscriptions/listen streams do not carry extension notifications). */
  broadcast(method: string, params?: Record<string, unknown>): void;
  /** Tells every client subscribed to `uri` (2025 sessions and subscriptions/listen streams) that the resource changed. */
  resourceUpdated(uri: string): void;
}
