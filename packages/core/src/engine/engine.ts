import { randomUUID } from 'node:crypto';
import pino, { type LevelWithSilent, type Logger } from 'pino';
import type { ServerOptions } from '../metadata/options';
import type { Implementation, LoggingLevel, ServerCapabilities } from '../protocol/types';
import { compact } from '../registry/entries';
import type { ListKind } from '../registry/entry-list';
import type { Registry } from '../registry/registry';
import type { MessageChannel } from './channel';
import type { RequestContext } from './context';
import { methodTable } from './methods';
import { Session } from './session';
import { writeToPino } from './mcp-logger';

export type MethodHandler = (params: Record<string, unknown>, ctx: RequestContext) => Promise<Record<string, unknown>> | Record<string, unknown>;
export type NotificationHandler = (params: Record<string, unknown>, session: Session) => void;

export interface EngineOptions {
  /** The framework's logger. Defaults to pino writing JSON to stderr (stdout may be the protocol). */
  logger?: Logger;
  /** The level of the default logger (ignored when `logger` is given). Defaults to MCPX_LOG_LEVEL or info. */
  logLevel?: LevelWithSilent;
  /** Entries per page of every list method. */
  pageSize?: number;
  /** The level a session logs to its client at until it calls logging/setLevel. */
  clientLogLevel?: LoggingLevel;
  /** Merged over the capabilities derived from the registry. */
  capabilities?: ServerCapabilities;
}

const LIST_CHANGED: Record<ListKind, { method: string; capability: 'tools' | 'resources' | 'prompts' }> = {
  tools: { method: 'notifications/tools/list_changed', capability: 'tools' },
  resources: { method: 'notifications/resources/list_changed', capability: 'resources' },
  resourceTemplates: { method: 'notifications/resources/list_changed', capability: 'resources' },
  prompts: { method: 'notifications/prompts/list_changed', capability: 'prompts' },
};

/**
 * The protocol engine: one per server. Owns the registry and the sessions, answers every MCP
 * method through the method table, and fans registry changes out to the sessions.
 */
export class McpEngine {
  readonly logger: Logger;
  readonly options: Required<Pick<EngineOptions, 'pageSize' | 'clientLogLevel'>> & EngineOptions;
  readonly serverInfo: Implementation;
  readonly instructions?: string;
  readonly methods: ReadonlyMap<string, MethodHandler> = methodTable;
  readonly notificationHandlers = new Map<string, NotificationHandler>();
  private readonly sessions = new Map<string, Session>();
  private pendingListChanges = new Set<string>();
  private flushScheduled = false;

  constructor(
    info: ServerOptions,
    readonly registry: Registry,
    options: EngineOptions = {},
  ) {
    const pageSize = options.pageSize ?? 50;
    if (!Number.isSafeInteger(pageSize) || pageSize < 1) throw new RangeError(`pageSize must be a positive integer, got ${pageSize}`);
    this.options = { ...options, pageSize, clientLogLevel: options.clientLogLevel ?? 'info' };
    this.logger =
      options.logger ??
      pino({ name: info.name, level: options.logLevel ?? process.env.MCPX_LOG_LEVEL ?? 'info' }, pino.destination({ fd: 2, sync: false }));
    const { instructions, ...identity } = info;
    this.serverInfo = compact({ ...identity });
    this.instructions = instructions;
    registry.onChange((kind) => this.listChanged(kind));
  }

  /**
   * Opens a session. `outlet` carries what no request asked for (see MessageChannel); pass
   * `unsolicited: false` when nothing can reach the client outside its own requests.
   */
  createSession(outlet: MessageChannel, id: string = randomUUID(), options: { unsolicited?: boolean } = {}): Session {
    const session = new Session(this, id, outlet, options.unsolicited ?? true);
    this.sessions.set(id, session);
    return session;
  }

  getSession(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Called by Session.close. */
  forget(session: Session): void {
    this.sessions.delete(session.id);
  }

  /**
   * What this server declares at initialize: derived from what the registry holds. A session that
   * can receive nothing unsolicited (stateless HTTP) is not offered list_changed or subscriptions.
   */
  capabilities(options: { unsolicited?: boolean } = {}): ServerCapabilities {
    const r = this.registry;
    const live = options.unsolicited ?? true;
    const caps: ServerCapabilities = { logging: {} };
    const hasPrompts = r.prompts.size > 0;
    const hasResources = r.resources.size > 0 || r.templates.size > 0;
    if (hasPrompts || r.templates.size > 0) caps.completions = {};
    if (hasPrompts) caps.prompts = { listChanged: live };
    if (hasResources) caps.resources = { subscribe: live, listChanged: live };
    if (r.tools.size > 0) caps.tools = { listChanged: live };
    return { ...caps, ...this.options.capabilities };
  }

  /** Tells every session subscribed to `uri` that the resource changed. */
  notifyResourceUpdated(uri: string): void {
    for (const session of this.sessions.values()) {
      if (session.initialized && session.subscriptions.has(uri)) session.notify('notifications/resources/updated', { uri });
    }
  }

  /** Logs to pino once and to every initialized session at its own level. */
  broadcastLog(level: LoggingLevel, message: string, data?: Record<string, unknown>): void {
    writeToPino(this.logger, level, message, data);
    for (const session of this.sessions.values()) session.log.forward(level, message, data);
  }

  /** Closes every session. */
  close(): void {
    for (const session of [...this.sessions.values()]) session.close();
  }

  // Coalesces a burst of registry changes into one notification per list, sent after the burst.
  private listChanged(kind: ListKind): void {
    this.pendingListChanges.add(kind);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    queueMicrotask(() => {
      this.flushScheduled = false;
      const kinds = this.pendingListChanges;
      this.pendingListChanges = new Set();
      const sent = new Set<string>();
      for (const k of kinds) {
        const { method, capability } = LIST_CHANGED[k as ListKind];
        if (sent.has(method)) continue;
        sent.add(method);
        for (const session of this.sessions.values()) {
          if (session.initialized && session.serverCapabilities[capability]?.listChanged) session.notify(method);
        }
      }
    });
  }
}
