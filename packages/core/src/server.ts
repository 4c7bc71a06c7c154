import type { LoggingLevel } from './protocol/types';
import { McpEngine, type EngineOptions } from './engine/engine';
import type { Registry } from './registry/registry';
import type { Session } from './eras/legacy/session';
import { buildRegistry, serverInfoOf, type DefinitionWarning } from './scanner/scanner';
import { DefinitionError } from './definition-error';
import { envFlag } from './env-flag';
import { Namespace, mountRegistry } from './engine/mount';
import { SkillsExtension } from './skills/skills-extension';
import { SKILLS_EXTENSION_ID } from './skills/skill-constants';
import type { SkillChanges } from './skills/skill-catalog';

const engines = new WeakMap<object, McpEngine>();
const warningsOf = new WeakMap<McpEngine, readonly DefinitionWarning[]>();

/** Anything a transport can serve: an engine, a decorated object, or several composed into one server. */
export type Servable = McpEngine | object | readonly object[];

/**
 * Builds (once) the engine for a decorated object, or for several objects served as one server
 * (the first one's @Server gives the identity). Scanning errors surface here, at startup, and so
 * do the definition warnings: logged once through the engine's logger, or thrown together as a
 * DefinitionError with `strictDefinitions`.
 */
export function createEngine(target: Servable, options: EngineOptions = {}): McpEngine {
  if (target instanceof McpEngine) return target;
  const objects: readonly object[] = Array.isArray(target) ? target : [target];
  if (objects.length === 0) throw new TypeError('createEngine needs at least one decorated object');
  const primary = objects[0]!;
  const existing = engines.get(primary);
  if (existing) return existing;
  const warnings: DefinitionWarning[] = [];
  const registry = buildRegistry(objects, { onWarning: (warning) => warnings.push(warning) });
  if (warnings.length > 0 && strictDefinitions(options)) {
    throw new DefinitionError(
      `strictDefinitions makes ${warnings.length === 1 ? 'this warning an error' : `these ${warnings.length} warnings errors`}: ${warnings.map((w) => w.message).join('; ')}`,
    );
  }
  const engine = new McpEngine(serverInfoOf(objects), registry, options);
  engines.set(primary, engine);
  warningsOf.set(engine, Object.freeze(warnings));
  for (const warning of warnings) engine.logger.warn({ definition: warning.source }, warning.message);
  const info = serverInfoOf(objects);
  for (const [namespace, server] of Object.entries(info.mount ?? {})) {
    if (typeof server !== 'function')
      throw new DefinitionError(`@Server({ mount }): "${namespace}" must be a class (one instance is made per server that mounts it); mount an instance with mount()`);
    mount(engine, namespace, new server());
  }
  for (const object of objects) {
    const hooks = object as Partial<McpServer>;
    if (typeof hooks.onRootsListChanged === 'function') engine.onRootsListChanged((session) => hooks.onRootsListChanged!.call(object, session));
    hooks.onServerInit?.call(object);
  }
  return engine;
}

/**
 * Serves `server`'s tools, prompts, resources and templates inside `into`, under `namespace`: tools
 * and prompts as `<namespace>_<name>`, resource URIs as `scheme://<namespace>/...`, kept in step as
 * its registry changes. Its handlers, validation, scopes, visibility rules and middleware (its
 * `@Server` middleware included) still apply to them; its resource updates, visibility changes and
 * log lines reach `into`'s clients. A name either side already has is a startup error naming both.
 */
export function mount(into: Servable, namespace: string, server: Servable): void {
  const parent = createEngine(into);
  const ns = new Namespace(namespace);
  const child = createEngine(server, { logger: parent.logger.child({ mount: namespace }) });
  if (child === parent) throw new DefinitionError(`mount "${namespace}": a server cannot be mounted in itself`);
  if (child.mountedIn) throw new DefinitionError(`mount "${namespace}": ${child.serverInfo.name} is mounted already, as "${child.mountedIn.namespace.name}"`);
  child.mountedIn = { engine: parent, namespace: ns };
  mountRegistry(parent.registry, ns, { registry: child.registry, middleware: child.serverMiddleware }, `mount "${namespace}" (${child.serverInfo.name})`);
}

/** `strictDefinitions`, else MCPX_STRICT_DEFINITIONS (`true` or `1`), so `mcpx serve` can be strict without a flag. */
function strictDefinitions(options: EngineOptions): boolean {
  if (options.strictDefinitions !== undefined) return options.strictDefinitions;
  return envFlag(process.env.MCPX_STRICT_DEFINITIONS);
}

/**
 * Reads the server's skill folders again (the `skills` of `@Server` or of the options): digests
 * follow the files, and when a skill changed clients hear notifications/resources/list_changed.
 * Rejects when a folder cannot be loaded now (the skills served stay as they were), or when the
 * server serves no skills.
 */
export async function reloadSkills(server: Servable): Promise<SkillChanges> {
  const skills = createEngine(server).extensions.get(SKILLS_EXTENSION_ID);
  if (!(skills instanceof SkillsExtension)) throw new DefinitionError('reloadSkills: this server serves no skills (give @Server({ skills }) or the skills option)');
  return skills.reload();
}

/** The definition warnings found when the engine was built (what its schemas cannot check). */
export function definitionWarnings(engine: McpEngine): readonly DefinitionWarning[] {
  return warningsOf.get(engine) ?? [];
}

/**
 * An optional base class for servers: gives the methods of a decorated class access to the live
 * registry, resource-change notifications and session-wide logging.
 */
export class McpServer {
  /** The engine serving this object (built with default options if nothing serves it yet). */
  get engine(): McpEngine {
    return createEngine(this);
  }

  /** The live registry: add, remove, enable or disable entries; clients hear list_changed. */
  get registry(): Registry {
    return this.engine.registry;
  }

  /** Called once, when the engine serving this object has been built: register runtime entries here. */
  onServerInit(): void {}

  /** Override to hear when a client's roots change (then ask again with `ctx.roots()` or `session`). */
  onRootsListChanged?(session: Session): unknown;

  /** Serves another server inside this one under `namespace` (see `mount()`); call it from `onServerInit` or later. */
  mount(namespace: string, server: Servable): void {
    mount(this, namespace, server);
  }

  /** Reads the server's skill folders again (see `reloadSkills()`). */
  reloadSkills(): Promise<SkillChanges> {
    return reloadSkills(this);
  }

  /** Tells every client subscribed to `uri` that it changed. */
  notifyResourceUpdated(uri: string): void {
    engines.get(this)?.notifyResourceUpdated(uri);
  }

  /**
   * Says that what entries' `visible` rules answer may have changed (a tenant's plan, a role): the sessions and listen
   * streams, on every instance, are told their lists changed, so clients list again and see their new catalogs.
   */
  notifyVisibilityChanged(): void {
    engines.get(this)?.notifyVisibilityChanged();
  }

  /** Logs to pino and to every connected client at its session's level. */
  log(level: LoggingLevel, message: string, data?: Record<string, unknown>): void {
    engines.get(this)?.broadcastLog(level, message, data);
  }
}
