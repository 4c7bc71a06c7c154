import type { Principal } from '../auth/principal';
import { randomUUID } from 'node:crypto';
import { envFlag } from '../env-flag';
import pino, { type LevelWithSilent, type Logger } from 'pino';
import { implementationOf, type ServerOptions, type SkillsEngineOptions } from '../metadata/options';
import type { Implementation, LoggingLevel, ServerCapabilities } from '../protocol/types';
import type { Registry } from '../registry/registry';
import { tagFilterOf, toolSearchOf } from '../registry/entry-visibility';
import type { MessageChannel } from '../context/channel';
import type { NotificationHandler } from '../context/handler-types';
import { Session } from '../eras/legacy/session';
import { markShared } from '../eras/legacy/shared-client-values';
import { InMemoryTaskStore, type TaskStore } from '../stores/task-store';
import { TaskManager, type TaskOptions } from '../tasks/task-manager';
import { writeToPino } from '../context/mcp-logger';
import { LOGGING_LEVELS, isLoggingLevel } from '../protocol/log-levels';
import { resolveArgumentLimits, type ArgumentLimits, type ResolvedArgumentLimits } from '../schema/argument-limits';
import { resolveMessageLimits, type MessageLimits, type ResolvedMessageLimits } from '../protocol/message-limits';
import { ModernRequests, type ModernOptions } from '../eras/modern/modern-requests';
import { ListenSubscriptions } from '../eras/modern/subscriptions';
import type { Cluster } from '../cluster/cluster';
import { ClusterLink } from './cluster-link';
import { ListChanges } from './list-changes';
import { RateLimiter } from '../pipeline/rate-limits';
import { InMemoryRateLimitStore, rateLimitRules, type RateLimitStore } from '../policies/rate-limit';
import type { Namespace } from './mount';
import { Telemetry } from '../telemetry/telemetry';
import type { RequestOrigin } from '../telemetry/origin';
import { legacyMethods } from '../eras/legacy/methods';
import { modernMethods } from '../eras/modern/methods';
import { RequestPipeline } from '../pipeline/pipeline';
import { checkMiddleware, type Middleware } from '../context/middleware';
import { ExtensionSet } from '../extensions/extension-set';
import type { McpExtension } from '../context/extension';
import { serverExtensions } from './server-extensions';
import { positiveInteger } from '../metadata/check-options';

/** Notifications a client may send, as telemetry names them (any other is `_OTHER`). */
const CLIENT_NOTIFICATIONS = new Set(['notifications/initialized', 'notifications/cancelled', 'notifications/progress', 'notifications/roots/list_changed', 'notifications/tasks/status']);

export type { MethodHandler, NotificationHandler } from '../context/handler-types';

export interface EngineOptions extends ModernOptions, SkillsEngineOptions {
  /** Middleware around every request's handler, outermost first; they run before `@Server`'s (docs/middleware.md). */
  middleware?: readonly Middleware[];
  /** Protocol extensions to serve (their methods, notifications, capabilities and middleware), before `@Server`'s. */
  extensions?: readonly McpExtension[];
  /** The framework's logger. Defaults to pino writing JSON to stderr (stdout may be the protocol). */
  logger?: Logger;
  /** The level of the default logger (ignored when `logger` is given). Defaults to MCPX_LOG_LEVEL or info. */
  logLevel?: LevelWithSilent;
  /**
   * At debug, every message in and out is logged, secrets redacted, its JSON cut to this many
   * bytes (default 2048); the line's `bytes` says how long it was.
   */
  debugMessageBytes?: number;
  /** Entries per page of every list method. */
  pageSize?: number;
  /**
   * The level a session logs to its client at until it calls logging/setLevel. Default: none, so
   * a client that never asked for log notifications gets none.
   */
  clientLogLevel?: LoggingLevel;
  /** What one call's arguments may carry, for every tool (each tool may set its own: `@Tool({ limits })`). */
  argumentLimits?: ArgumentLimits;
  /** The shape budget of every message that reaches the server, over any transport (docs/transports.md). */
  messageLimits?: MessageLimits;
  /** Requests one session may have in flight at once (default 100); more are refused with -32004. */
  maxRequestsInFlight?: number;
  /** Tasks one principal (or, without auth, one session) may have running at once (default 100); more are refused with -32004. */
  maxTasksPerPrincipal?: number;
  /** How long a request to the client (sampling, elicitation, roots) may wait for its answer (default 5 min). */
  clientRequestTimeoutMs?: number;
  /** Where tasks live (default: the cluster's, else in memory). */
  taskStore?: TaskStore;
  /** Where rate limit counters live (default: the cluster's, else in this process). */
  rateLimitStore?: RateLimitStore;
  /**
   * State shared with other instances of this server (sessions, event log, tasks, a bus), started
   * already: see Cluster. Transports give it (`redis` on listen()); without one, all stays here.
   */
  cluster?: Cluster;
  /** Task ttl and polling defaults. */
  tasks?: TaskOptions;
  /** Merged over the capabilities derived from the registry. */
  capabilities?: ServerCapabilities;
  /**
   * Whether list methods show a caller only the entries its scopes allow (default true); when
   * false, lists show everything and only using an entry needs its scopes.
   */
  listOnlyPermitted?: boolean;
  /** Only entries carrying one of these tags are served (to anyone); docs/policies.md. */
  includeTags?: readonly string[];
  /** Entries carrying any of these tags are served to no one. */
  excludeTags?: readonly string[];
  /**
   * Makes definition warnings (what an input class's schema cannot check: a union typed property,
   * `unknown`, an undecorated property...) errors at startup, like the definitions that cannot
   * work at all. Default: MCPX_STRICT_DEFINITIONS (`true` or `1`), else false (logged once as warnings).
   */
  strictDefinitions?: boolean;
  /**
   * Hides the message of an unexpected error thrown by a tool: the client reads a generic tool
   * error, the log keeps the whole error. A `ToolError`, an `McpError`, a returned `toolError(…)`,
   * invalid arguments and the client errors (`ClientCapabilityError`...) still say what they say.
   * Default: MCPX_MASK_ERRORS (`true` or `1`), else false (docs/errors.md).
   */
  maskErrors?: boolean;
}

/**
 * The protocol engine: one per server. Owns the registry and the sessions, answers every MCP
 * method through the method table, and fans registry changes out to the sessions.
 */
export class McpEngine {
  readonly logger: Logger;
  readonly options: Required<Pick<EngineOptions, 'pageSize' | 'clientRequestTimeoutMs' | 'maxRequestsInFlight'>> & EngineOptions;
  /** Whether an unexpected tool error reaches the client as a generic message (`maskErrors`). */
  readonly maskErrors: boolean;
  /** Server-wide argument limits, resolved. */
  readonly argumentLimits: ResolvedArgumentLimits;
  /** The message budget, resolved; transports check it before parsing. */
  readonly messageLimits: ResolvedMessageLimits;
  /** How much of each message's JSON a debug line carries. */
  readonly debugMessageBytes: number;
  readonly serverInfo: Implementation;
  readonly instructions?: string;
  readonly notificationHandlers = new Map<string, NotificationHandler>();
  /** Task-augmented tool calls and the tasks/* methods. */
  readonly tasks: TaskManager;
  /** Where modern (2026-07-28) requests are served: no session, everything from the request's `_meta`. */
  readonly modern: ModernRequests;
  /** The open subscriptions/listen streams (2026-07-28): list changes and resource updates reach them as they reach sessions. */
  readonly subscriptions: ListenSubscriptions;
  /** Set when other instances share this server's state: fan-out and routing go through it. */
  readonly cluster?: ClusterLink;
  /** OpenTelemetry spans and metrics (docs/observability.md): through the global providers unless given others with `telemetry.use()`. */
  readonly telemetry: Telemetry;
  /** Server-wide middleware, outermost first: the options', `@Server`'s, then extensions'. */
  readonly serverMiddleware: readonly Middleware[];
  /** Set when this server is mounted in another (`mount()`): its notifications go out through that one. */
  mountedIn?: { readonly engine: McpEngine; readonly namespace: Namespace };
  /** Where every request of either era goes: admission, middleware, handler, answer. */
  readonly pipeline: RequestPipeline;
  /** The protocol extensions this server serves (tasks and the application's own). */
  readonly extensions: ExtensionSet;
  private readonly sessions = new Map<string, Session>();
  private readonly rootsListeners: ((session: Session) => unknown)[] = [];
  private readonly listChanges: ListChanges;

  constructor(
    info: ServerOptions,
    readonly registry: Registry,
    options: EngineOptions = {},
  ) {
    const pageSize = options.pageSize ?? 50;
    if (!Number.isSafeInteger(pageSize) || pageSize < 1) throw new RangeError(`pageSize must be a positive integer, got ${pageSize}`);
    this.options = {
      ...options,
      pageSize,
      clientRequestTimeoutMs: options.clientRequestTimeoutMs ?? 300_000,
      maxRequestsInFlight: positiveInteger(options.maxRequestsInFlight, 100, 'maxRequestsInFlight'),
    };
    if (options.clientLogLevel !== undefined && !isLoggingLevel(options.clientLogLevel)) {
      throw new RangeError(`clientLogLevel must be one of ${LOGGING_LEVELS.join(', ')}, got ${JSON.stringify(options.clientLogLevel)}`);
    }
    this.maskErrors = options.maskErrors ?? envFlag(process.env.MCPX_MASK_ERRORS);
    this.argumentLimits = resolveArgumentLimits(options.argumentLimits);
    this.messageLimits = resolveMessageLimits(options.messageLimits);
    this.debugMessageBytes = positiveInteger(options.debugMessageBytes, 2048, 'debugMessageBytes');
    this.logger = options.logger ?? pino({ name: info.name, level: options.logLevel ?? process.env.MCPX_LOG_LEVEL ?? 'info' }, pino.destination({ fd: 2, sync: false }));
    // Only the spec's Implementation fields: nothing else @Server holds is ever sent to a client.
    this.serverInfo = implementationOf(info);
    this.instructions = info.instructions;
    this.tasks = new TaskManager(
      options.taskStore ?? options.cluster?.tasks ?? new InMemoryTaskStore(),
      options.tasks,
      positiveInteger(options.maxTasksPerPrincipal, 100, 'maxTasksPerPrincipal'),
    );
    this.modern = new ModernRequests(this, options, options.cluster);
    const tasks = this.tasks;
    this.telemetry = new Telemetry({
      isKnownMethod: (method) => legacyMethods.has(method) || modernMethods.has(method) || CLIENT_NOTIFICATIONS.has(method),
      isKnownTool: (name) => registry.tools.has(name),
      isKnownPrompt: (name) => registry.prompts.has(name),
      taskCounts: () => tasks.countByStatus(),
    });
    this.subscriptions = new ListenSubscriptions(this.logger);
    this.extensions = new ExtensionSet(serverExtensions(options, info));
    const rateLimiter = new RateLimiter(
      options.rateLimitStore ?? options.cluster?.rateLimits ?? new InMemoryRateLimitStore(),
      rateLimitRules(info.rateLimit, 'server'),
      registry,
      this.logger,
    );
    this.pipeline = new RequestPipeline(
      { logger: this.logger, registry, telemetry: this.telemetry, debugMessageBytes: this.debugMessageBytes, maxRequestsInFlight: this.options.maxRequestsInFlight, rateLimiter },
      this.extensions.methodTables({ legacy: legacyMethods, modern: modernMethods }),
      (this.serverMiddleware = [...checkMiddleware(options.middleware, 'the middleware option'), ...checkMiddleware(info.middleware, '@Server middleware'), ...this.extensions.middleware]),
    );
    if (options.cluster) {
      this.cluster = new ClusterLink(options.cluster, {
        logger: this.logger,
        subscriptions: this.subscriptions,
        getSession: (id) => this.sessions.get(id),
        taskChanged: (taskId) => tasks.wake(taskId),
        cancelTask: (taskId) => tasks.abortRunning(taskId),
        answerTask: (taskId, responses) => void tasks.answerRunning(taskId, responses).catch((err) => this.logger.error({ err, taskId }, 'could not answer a task')),
      });
      this.tasks.cluster = this.cluster;
    }
    registry.tagFilter = tagFilterOf(options.includeTags, options.excludeTags);
    registry.toolSearch = toolSearchOf(info.toolSearch);
    this.listChanges = new ListChanges({
      registry,
      subscriptions: this.subscriptions,
      cluster: this.cluster,
      capabilities: () => this.capabilities(),
      sessions: () => this.sessions.values(),
    });
    registry.onChange((kind) => {
      // What is offered may change with the entries (an extension's settings function): derived again when next asked.
      this.quietCapabilities = this.liveCapabilities = undefined;
      this.extensions.invalidate();
      this.modern.invalidateCapabilities();
      this.listChanges.raise(kind, false);
    });
    this.notificationHandlers.set('notifications/roots/list_changed', (_params, session) => {
      for (const listener of this.rootsListeners) {
        Promise.resolve()
          .then(() => listener(session as Session))
          .catch((err) => session.logger.error({ err }, 'roots list_changed handler failed'));
      }
    });
    this.extensions.start({
      registry,
      logger: this.logger,
      offered: (id) => this.extensions.offered(id),
      broadcast: (method, params) => {
        for (const session of this.sessions.values()) if (session.initialized) session.notify(method, params);
      },
      resourceUpdated: (uri) => this.notifyResourceUpdated(uri),
    });
  }

  /** Opens a session. `outlet` carries what no request asked for (see MessageChannel); pass `unsolicited: false` when nothing can reach the client outside its own requests. */
  /** `principal`: who the session acts for (bound for its life; a request may bring a newer token of the same principal). */
  /** `stateless`: the session serves one request (stateless HTTP): nothing unsolicited, and no requests to the client. */
  /** `origin`: where the client is (telemetry's `network.*`), unless a request brings its own. */
  createSession(outlet: MessageChannel, id: string = randomUUID(), options: { unsolicited?: boolean; stateless?: boolean; principal?: Principal; origin?: RequestOrigin } = {}): Session {
    const stateless = options.stateless ?? false;
    const session = new Session(this, id, outlet, !stateless && (options.unsolicited ?? true), stateless);
    session.principal = options.principal;
    session.origin = options.origin;
    this.sessions.set(id, session);
    return session;
  }

  /**
   * The scopes a request needs for the entry it names (tools/call, resources/read, prompts/get),
   * so a transport can refuse it before any work starts; empty for everything else.
   */
  requiredScopes(method: string, params: Record<string, unknown> | undefined): readonly string[] {
    const registry = this.registry;
    switch (method) {
      case 'tools/call':
        return typeof params?.name === 'string' ? (registry.tools.get(params.name)?.scopes ?? []) : [];
      case 'prompts/get':
        return typeof params?.name === 'string' ? (registry.prompts.get(params.name)?.scopes ?? []) : [];
      case 'completion/complete': {
        const ref = params?.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
        if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') return registry.prompts.get(ref.name)?.scopes ?? [];
        if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') return registry.templates.get(ref.uri)?.scopes ?? [];
        return [];
      }
      case 'resources/read':
      case 'resources/subscribe': {
        if (typeof params?.uri !== 'string') return [];
        return registry.entryForUri(params.uri)?.scopes ?? [];
      }
      default:
        return [];
    }
  }

  getSession(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** The open sessions, of every transport (a transport finds its own through each session's channel). */
  openSessions(): IterableIterator<Session> {
    return this.sessions.values();
  }

  /** Called by Session.close (and by release, which keeps the tasks: the session lives on elsewhere). */
  forget(session: Session, options: { keepTasks?: boolean } = {}): void {
    if (this.sessions.get(session.id) === session) this.sessions.delete(session.id);
    if (options.keepTasks) return;
    void this.tasks.dropOwner(session).catch((err) => this.logger.error({ err }, 'could not drop the tasks of a closed session'));
  }

  /** What this server declares at initialize, derived from the registry; a session that can receive nothing unsolicited (stateless HTTP) gets no list_changed or subscriptions. */
  capabilities(options: { unsolicited?: boolean } = {}): ServerCapabilities {
    const r = this.registry;
    const live = options.unsolicited ?? true;
    const hasPrompts = r.offers('prompts');
    const hasResources = r.offers('resources');
    const hasTools = r.offers('tools');
    // Without unsolicited messages (stateless HTTP: one session per request) only what kinds of
    // entries exist matters: the answer is kept for as long as that stays the same.
    const shape = (hasPrompts ? 1 : 0) | (hasResources ? 2 : 0) | (r.templates.size > 0 ? 4 : 0) | (hasTools ? 8 : 0);
    if (!live && this.quietCapabilities?.shape === shape) return this.quietCapabilities.caps;
    if (live && this.liveCapabilities) return this.liveCapabilities;
    const caps: ServerCapabilities = { logging: {} };
    if (hasPrompts || r.templates.size > 0 || r.offered.has('resources')) caps.completions = {};
    if (hasPrompts) caps.prompts = { listChanged: live };
    if (hasResources) caps.resources = { subscribe: live, listChanged: live };
    if (hasTools) caps.tools = { listChanged: live };
    // Tasks are offered only when some tool can run as one, and only to sessions that outlive a request.
    for (const tool of live ? r.tools.values() : []) {
      if (tool.definition.execution?.taskSupport) {
        caps.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
        break;
      }
    }
    if (live && r.offered.has('tasks')) caps.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
    const declared = { ...caps, ...this.options.capabilities };
    // 2025-11-25 has no `extensions` capability: extensions are declared under `experimental`.
    const extensions = this.extensions.declared('legacy');
    if (extensions) declared.experimental = { ...extensions, ...this.options.capabilities?.experimental };
    const backported = this.extensions.declared('legacy', 'extensions'); // McpExtension.legacyCapability
    if (backported) declared.extensions = { ...backported, ...this.options.capabilities?.extensions };
    markShared(declared); // held by every session offered it (session-terms.ts)
    if (live) this.liveCapabilities = declared;
    else this.quietCapabilities = { shape, caps: declared };
    return declared;
  }

  /** What sessions with (live) and without unsolicited messages are offered: one object all share, derived again after a change. */
  private quietCapabilities?: { shape: number; caps: ServerCapabilities };
  private liveCapabilities?: ServerCapabilities;

  /**
   * What this server offers modern (2026-07-28) clients: the same derivation as capabilities(),
   * with change notifications delivered through subscriptions/listen, and no 2025 `tasks`
   * capability: tasks are the tasks extension instead, offered when some tool can run as one.
   */
  modernCapabilities(): ServerCapabilities {
    const { tasks: _legacyTasks, ...caps } = this.capabilities({ unsolicited: true });
    // Extensions are declared as this era declares them, not under `experimental` as 2025 sessions see them.
    if (this.options.capabilities?.experimental) caps.experimental = this.options.capabilities.experimental;
    else delete caps.experimental;
    const extensions = this.extensions.declared('modern');
    if (extensions) caps.extensions = { ...extensions, ...caps.extensions };
    return caps;
  }

  /** Called whenever a client says its roots changed (notifications/roots/list_changed). */
  onRootsListChanged(listener: (session: Session) => unknown): void {
    this.rootsListeners.push(listener);
  }

  /** Tells every session and subscriptions/listen stream subscribed to `uri` that the resource changed. */
  notifyResourceUpdated(uri: string): void {
    if (this.mountedIn) return this.mountedIn.engine.notifyResourceUpdated(this.mountedIn.namespace.uri(uri));
    if (this.cluster) return this.cluster.resourceUpdated(uri);
    this.subscriptions.resourceUpdated(uri);
    for (const session of this.sessions.values()) {
      if (session.initialized && session.isSubscribed(uri)) session.notify('notifications/resources/updated', { uri });
    }
  }

  /** What `visible` rules answer may have changed: list_changed for each list holding a rule, on every instance. */
  notifyVisibilityChanged(): void {
    if (this.mountedIn) return this.mountedIn.engine.notifyVisibilityChanged();
    for (const list of [this.registry.tools, this.registry.resources, this.registry.templates, this.registry.prompts]) if (list.hasVisibilityRules) this.listChanges.raise(list.kind, true);
  }

  /** Logs to pino once and to every initialized session at its own level. */
  broadcastLog(level: LoggingLevel, message: string, data?: Record<string, unknown>): void {
    if (this.mountedIn) return this.mountedIn.engine.broadcastLog(level, message, data);
    writeToPino(this.logger, level, message, data);
    if (this.cluster) return this.cluster.log(level, message, data);
    for (const session of this.sessions.values()) session.log.forward(level, message, data);
  }

  /** Ends every subscriptions/listen stream gracefully, and closes every session. */
  close(): void {
    this.subscriptions.closeAll();
    for (const session of [...this.sessions.values()]) session.close();
    this.tasks.close();
    this.modern.close();
  }
}
