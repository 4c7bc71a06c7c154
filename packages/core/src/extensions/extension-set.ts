import { ErrorCode, McpError } from '../protocol/errors';
import type { ClientCapabilities } from '../protocol/types';
import { formatIssues, validateInput } from '../schema/class-validation';
import type { MethodHandler } from '../context/handler-types';
import type { Era } from '../context/request-env';
import { DefinitionError } from '../definition-error';
import { checkMiddleware, type Middleware } from '../context/middleware';
import type { MethodTables } from '../pipeline/pipeline';
import type { ExtensionMethod, ExtensionNotification, ExtensionServer, ExtensionSettings, McpExtension, NotificationSource } from '../context/extension';

/** `vendor.prefix/name`: what the spec's extension identifiers look like. */
const EXTENSION_ID = /^[a-z0-9]+(?:[.-][a-z0-9]+)*\/[A-Za-z0-9][A-Za-z0-9._-]*$/;
const BOTH_ERAS: readonly Era[] = ['legacy', 'modern'];
/** Not knowing yet: a settings function is asked again after a registry change. */
const UNKNOWN = Symbol('unknown');

/**
 * The extensions one server is built with: checked once at startup (ids, method names, clashes
 * with core), merged into each era's method table, declared in capabilities while offered, and
 * their middleware added to the server-wide chain.
 */
export class ExtensionSet {
  readonly middleware: readonly Middleware[];
  private readonly byId = new Map<string, McpExtension>();
  private readonly settings = new Map<string, ExtensionSettings | undefined | typeof UNKNOWN>();
  private readonly notifications = new Map<string, { extension: McpExtension; notification: ExtensionNotification }>();
  private server?: ExtensionServer;

  constructor(list: readonly McpExtension[]) {
    const middleware: Middleware[] = [];
    for (const extension of list) {
      if (extension === null || typeof extension !== 'object') throw new DefinitionError(`extensions: ${String(extension)} is not an extension object`);
      const { id } = extension;
      if (typeof id !== 'string' || !EXTENSION_ID.test(id)) throw new DefinitionError(`extension id ${JSON.stringify(id)} must read vendor-prefix/name (e.g. "com.example/audit")`);
      if (this.byId.has(id)) throw new DefinitionError(`extension "${id}" is given twice`);
      this.byId.set(id, extension);
      this.settings.set(id, UNKNOWN);
      middleware.push(...checkMiddleware(extension.middleware, `extension "${id}"`));
      for (const notification of extension.notifications ?? []) {
        if (this.notifications.has(notification.name)) throw new DefinitionError(`extension "${id}": notification ${notification.name} is handled by another extension too`);
        this.notifications.set(notification.name, { extension, notification });
      }
    }
    this.middleware = Object.freeze(middleware);
  }

  get size(): number {
    return this.byId.size;
  }

  /** Runs each extension's setup, once the server exists. */
  start(server: ExtensionServer): void {
    this.server = server;
    for (const extension of this.byId.values()) extension.setup?.(server);
  }

  /** Each era's table with the extensions' methods added; a method core (or another extension) has is a startup error. */
  methodTables(core: MethodTables): MethodTables {
    const tables = { legacy: new Map(core.legacy), modern: new Map(core.modern) };
    for (const extension of this.byId.values()) {
      for (const method of extension.methods ?? []) {
        if (typeof method?.name !== 'string' || typeof method.handler !== 'function') throw new DefinitionError(`extension "${extension.id}": each method needs a name and a handler`);
        for (const era of extension.eras ?? BOTH_ERAS) {
          if (tables[era].has(method.name)) throw new DefinitionError(`extension "${extension.id}": method ${method.name} already exists in the ${era} era`);
          tables[era].set(method.name, this.wrap(extension, method));
        }
      }
    }
    return tables;
  }

  /**
   * What `era` declares at `place`: `{ id: settings }` for each extension offered there now; undefined
   * when none is. 2026-07-28 declares every extension in `extensions`; 2025-11-25 in `experimental`,
   * except those whose `legacyCapability` is `extensions`.
   */
  declared(era: Era, place: 'experimental' | 'extensions' = era === 'modern' ? 'extensions' : 'experimental'): Record<string, ExtensionSettings> | undefined {
    let out: Record<string, ExtensionSettings> | undefined;
    for (const extension of this.byId.values()) {
      if (!(extension.eras ?? BOTH_ERAS).includes(era)) continue;
      if ((era === 'modern' ? 'extensions' : (extension.legacyCapability ?? 'experimental')) !== place) continue;
      const settings = this.settingsOf(extension);
      if (settings !== undefined) (out ??= {})[extension.id] = settings;
    }
    return out;
  }

  /** The extension with this id, if the server has it. */
  get(id: string): McpExtension | undefined {
    return this.byId.get(id);
  }

  /** Whether extension `id` is offered now. */
  offered(id: string): boolean {
    const extension = this.byId.get(id);
    return extension !== undefined && this.settingsOf(extension) !== undefined;
  }

  /** The registry changed: settings functions are asked again when next needed. */
  invalidate(): void {
    for (const id of this.settings.keys()) this.settings.set(id, UNKNOWN);
  }

  /** Hands a client notification to the extension that handles it; false when none does. */
  notify(method: string, params: Record<string, unknown>, from: NotificationSource): boolean {
    const found = this.notifications.get(method);
    if (!found || !this.offered(found.extension.id)) return false;
    const { notification } = found;
    const run = async () => {
      if (notification.params) {
        const checked = await validateInput(notification.params, withoutMeta(params));
        if (!checked.ok) throw new McpError(ErrorCode.InvalidParams, formatIssues(checked.issues, `Invalid ${method} params`));
      }
      await notification.handler(params, from);
    };
    run().catch((err) => this.server?.logger.warn({ err, method, extension: found.extension.id }, 'extension notification failed'));
    return true;
  }

  private settingsOf(extension: McpExtension): ExtensionSettings | undefined {
    const known = this.settings.get(extension.id);
    if (known !== UNKNOWN) return known;
    const given = extension.settings ?? {};
    const settings = typeof given === 'function' ? (this.server ? given(this.server) : undefined) : given;
    this.settings.set(extension.id, settings);
    return settings;
  }

  private wrap(extension: McpExtension, method: ExtensionMethod): MethodHandler {
    return async (params, ctx) => {
      if (!this.offered(extension.id)) throw McpError.methodNotFound(ctx.method);
      if (method.requiresClientDeclaration && ctx.env.era === 'modern' && !declares(ctx.env.clientCapabilities, extension.id)) {
        throw new McpError(ErrorCode.MissingRequiredClientCapability, `${ctx.method} needs the ${extension.id} extension: declare it in this request's client capabilities`, {
          requiredCapabilities: { extensions: { [extension.id]: {} } },
        });
      }
      if (method.params) {
        const checked = await validateInput(method.params, withoutMeta(params));
        if (!checked.ok) throw McpError.invalidParams(formatIssues(checked.issues, `Invalid ${ctx.method} params`));
      }
      const result = await method.handler(params, ctx);
      if (result === undefined) return {};
      if (result === null || typeof result !== 'object' || Array.isArray(result)) {
        throw new McpError(ErrorCode.InternalError, `extension "${extension.id}" answered ${ctx.method} with ${result === null ? 'null' : typeof result}, not a result object`);
      }
      return result as Record<string, unknown>;
    };
  }
}

function withoutMeta(params: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(params, '_meta')) return params;
  const { _meta: _ignored, ...rest } = params;
  return rest;
}

/** Whether a 2026-07-28 request's client declared extension `id` in its capabilities. */
function declares(capabilities: ClientCapabilities, id: string): boolean {
  const extensions = (capabilities as { extensions?: unknown }).extensions;
  if (extensions === null || typeof extensions !== 'object') return false;
  const declared = Object.hasOwn(extensions, id) ? (extensions as Record<string, unknown>)[id] : undefined;
  return declared !== null && typeof declared === 'object';
}

declare module '../context/services' {
  interface ServerServices {
    /** The protocol extensions the server serves. */
    readonly extensions: ExtensionSet;
  }
}
