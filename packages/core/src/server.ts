import type { LoggingLevel } from './protocol/types';
import { McpEngine, type EngineOptions } from './engine/engine';
import type { Registry } from './registry/registry';
import type { Session } from './engine/session';
import { buildRegistry, serverInfoOf } from './scanner/scanner';

const engines = new WeakMap<object, McpEngine>();

/** Anything a transport can serve: an engine, a decorated object, or several composed into one server. */
export type Servable = McpEngine | object | readonly object[];

/**
 * Builds (once) the engine for a decorated object, or for several objects served as one server
 * (the first one's @Server gives the identity). Scanning errors surface here, at startup.
 */
export function createEngine(target: Servable, options: EngineOptions = {}): McpEngine {
  if (target instanceof McpEngine) return target;
  const objects: readonly object[] = Array.isArray(target) ? target : [target];
  if (objects.length === 0) throw new TypeError('createEngine needs at least one decorated object');
  const primary = objects[0]!;
  const existing = engines.get(primary);
  if (existing) return existing;
  const engine = new McpEngine(serverInfoOf(objects), buildRegistry(objects), options);
  engines.set(primary, engine);
  for (const object of objects) {
    const hooks = object as Partial<McpServer>;
    if (typeof hooks.onRootsListChanged === 'function') engine.onRootsListChanged((session) => hooks.onRootsListChanged!.call(object, session));
    hooks.onServerInit?.call(object);
  }
  return engine;
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

  /** Tells every client subscribed to `uri` that it changed. */
  notifyResourceUpdated(uri: string): void {
    engines.get(this)?.notifyResourceUpdated(uri);
  }

  /** Logs to pino and to every connected client at its session's level. */
  log(level: LoggingLevel, message: string, data?: Record<string, unknown>): void {
    engines.get(this)?.broadcastLog(level, message, data);
  }
}
