import 'reflect-metadata';
import { ownWarnings, returnTypeWarning } from './return-type';
import { declaredMiddleware, declaredRateLimits, getOwnDeclaredEntries, getServerOptions, type DeclaredEntry } from '../metadata/decorators';
import { SERVER_OPTION_KEYS, type Completer, type ServerOptions } from '../metadata/options';
import { checkOptions } from '../metadata/check-options';
import { DefinitionError } from '../definition-error';
import type { InputClass, PromptEntry, ResourceEntry, TemplateEntry, ToolEntry } from '../registry/entry-types';
import { buildToolEntry } from '../registry/build-tool-entry';
import { buildResourceEntry, buildTemplateEntry } from '../registry/build-resource-entries';
import { buildPromptEntry } from '../registry/build-prompt-entry';
import { appResourceSpecs } from '../apps/app-resource';
import { checkToolViews } from '../apps/app-registry-check';
import type { EntryList } from '../registry/entry-list';
import { Registry } from '../registry/registry';
import { inputClassProblems } from '../schema/class-checks';

/** What one decorated object yields: its entries, ready for a registry, and what their schemas cannot check. */
export interface ScannedEntries {
  tools: ToolEntry[];
  resources: ResourceEntry[];
  templates: TemplateEntry[];
  prompts: PromptEntry[];
  warnings: DefinitionWarning[];
}

/**
 * Something an input class's schema cannot check, though calls can still succeed (a union typed
 * property accepts any value, say). Logged once at startup; `strictDefinitions` makes it an error.
 */
export interface DefinitionWarning {
  /** Where the entry was declared, `NotesServer.search`. */
  source: string;
  /** The whole message: the source, the class and property, what is lost and the way out. */
  message: string;
}

export interface BuildRegistryOptions {
  /** Hears each warning once (a class used by several tools is reported at its first). */
  onWarning?: (warning: DefinitionWarning) => void;
}

/** Design types that say nothing about an input's shape. */
const OPAQUE_TYPES = new Set<unknown>([Object, String, Number, Boolean, Array, Function, Promise, Symbol, BigInt]);

/**
 * Reads the decorators of an object's class and all its parents (base first, so a subclass can
 * override an entry by redeclaring its method or its name) and builds the registry entries.
 * Throws DefinitionError naming the class and method for anything that cannot be served.
 */
export function scanObject(instance: object): ScannedEntries {
  const chain: object[] = [];
  for (let p = Object.getPrototypeOf(instance); p && p !== Object.prototype; p = Object.getPrototypeOf(p)) chain.unshift(p);

  // kind:name → declaration; kind:method → kind:name, so an overriding method replaces its parent's entry.
  const byName = new Map<string, { decl: DeclaredEntry; owner: object }>();
  const byMethod = new Map<string, string>();
  for (const proto of chain) {
    const seenHere = new Map<string, string>();
    for (const decl of getOwnDeclaredEntries(proto)) {
      const key = `${decl.kind}:${declaredKey(decl)}`;
      const where = `${className(proto)}.${decl.method}`;
      const clash = seenHere.get(key);
      if (clash) throw new DefinitionError(`${where}: duplicate ${describeKey(decl)}, also declared by ${className(proto)}.${clash}`);
      seenHere.set(key, decl.method);
      const methodKey = `${decl.kind}:${decl.method}`;
      const previous = byMethod.get(methodKey);
      // Only if that entry is still this method's: another method may have taken its name over since.
      if (previous && byName.get(previous)?.decl.method === decl.method) byName.delete(previous);
      byMethod.set(methodKey, key);
      byName.set(key, { decl, owner: proto });
    }
  }

  const completers = new Map<string, Map<string, Completer>>();
  const completerSources = new Map<string, Map<string, string>>();
  for (const { decl, owner } of byName.values()) {
    if (decl.kind !== 'complete') continue;
    const target = 'prompt' in decl.options ? `prompt:${decl.options.prompt}` : `template:${decl.options.template}`;
    if (!byName.has(target)) {
      throw new DefinitionError(`${className(owner)}.${decl.method}: @Complete names ${target.replace(':', ' ')}, which this server does not declare`);
    }
    const map = completers.get(target) ?? new Map<string, Completer>();
    map.set(decl.options.argument, bindMethod(instance, decl.method, owner) as Completer);
    completers.set(target, map);
    const sources = completerSources.get(target) ?? new Map<string, string>();
    sources.set(decl.options.argument, `${className(owner)}.${decl.method}`);
    completerSources.set(target, sources);
  }

  const out: ScannedEntries = { tools: [], resources: [], templates: [], prompts: [], warnings: [] };
  for (const view of appResourceSpecs(instance.constructor)) out.resources.push(buildResourceEntry(view));
  for (const [key, { decl, owner }] of byName) {
    const source = `${className(owner)}.${decl.method}`;
    const handler = bindMethod(instance, decl.method, owner);
    const mw = declaredMiddleware(instance, owner, decl.method);
    const middleware = mw.length > 0 ? mw : undefined;
    const limits = declaredRateLimits(instance, owner, decl.method);
    const rateLimit = limits.length > 0 ? limits : undefined;
    switch (decl.kind) {
      case 'tool': {
        const o = decl.options;
        const input = o.input ?? (o.inputSchema ? undefined : inputClassOf(owner, decl.method, source, 'tool'));
        if (input) checkInputClass(input, source, out.warnings);
        const returned = returnTypeWarning(owner, decl.method, source);
        if (returned) out.warnings.push(returned);
        out.tools.push(buildToolEntry({ ...o, name: o.name ?? decl.method, input, handler, source, middleware, rateLimit }));
        break;
      }
      case 'resource':
        out.resources.push(buildResourceEntry({ ...decl.options, name: decl.options.name ?? decl.method, handler, source, middleware, rateLimit }));
        break;
      case 'template': {
        const complete = bindCompleters(instance, decl.options.complete);
        const spec = { ...decl.options, name: decl.options.name ?? decl.method, complete, handler, source, middleware, rateLimit };
        // Built first without the @Complete methods, so one naming no variable is reported at its own declaration.
        const entry = buildTemplateEntry(spec);
        checkCompleters(completerSources.get(key), entry.template.variableNames, `variable of ${decl.options.uriTemplate}`);
        const extra = completers.get(key);
        out.templates.push(extra ? buildTemplateEntry({ ...spec, complete: { ...spec.complete, ...Object.fromEntries(extra) } }) : entry);
        break;
      }
      case 'prompt': {
        const o = decl.options;
        const input = o.input ?? (o.arguments ? undefined : inputClassOf(owner, decl.method, source, 'prompt'));
        if (input) checkInputClass(input, source, out.warnings);
        const complete = bindCompleters(instance, o.complete);
        const spec = { ...o, name: o.name ?? decl.method, input, complete, handler, source, middleware, rateLimit };
        const entry = buildPromptEntry(spec);
        checkCompleters(
          completerSources.get(key),
          (entry.definition.arguments ?? []).map((a) => a.name),
          `argument of prompt "${spec.name}"`,
        );
        const extra = completers.get(key);
        out.prompts.push(extra ? buildPromptEntry({ ...spec, complete: { ...spec.complete, ...Object.fromEntries(extra) } }) : entry);
        break;
      }
      case 'complete':
        break; // gathered with their templates and prompts above
    }
  }
  return out;
}

/**
 * Errors in an input class (no call can succeed as intended) are thrown as one DefinitionError
 * naming the entry; warnings (the schema only loses checking) are collected.
 */
function checkInputClass(input: Function, source: string, warnings: DefinitionWarning[]): void {
  const problems = inputClassProblems(input);
  const errors = problems.filter((p) => p.severity === 'error');
  if (errors.length > 0) throw new DefinitionError(`${source}: ${errors.map((e) => e.message).join('; ')}`);
  for (const p of problems) warnings.push({ source, message: `${source}: ${p.message}` });
}

/** Builds one registry from several decorated objects; names must be unique across all of them. */
export function buildRegistry(instances: readonly object[], options: BuildRegistryOptions = {}): Registry {
  const registry = new Registry();
  const warned = new Set<string>();
  const origin = new Map<string, string>();
  const add = <T extends { source: string }>(list: EntryList<T>, entry: T, key: string, what: string) => {
    const other = origin.get(`${list.kind}:${key}`);
    if (other) throw new DefinitionError(`${entry.source}: duplicate ${what} "${key}", also declared by ${other}`);
    origin.set(`${list.kind}:${key}`, entry.source);
    list.add(key, entry);
  };
  for (const instance of instances) {
    const scanned = scanObject(instance);
    for (const warning of scanned.warnings) {
      // The same input class behind several tools is one thing to fix: said once.
      const what = ownWarnings.has(warning) ? warning.message : warning.message.slice(warning.source.length);
      if (warned.has(what)) continue;
      warned.add(what);
      options.onWarning?.(warning);
    }
    for (const e of scanned.tools) add(registry.tools, e, e.definition.name, 'tool name');
    for (const e of scanned.resources) add(registry.resources, e, e.definition.uri, 'resource URI');
    for (const e of scanned.templates) add(registry.templates, e, e.definition.uriTemplate, 'URI template');
    for (const e of scanned.prompts) add(registry.prompts, e, e.definition.name, 'prompt name');
  }
  checkToolViews(registry);
  return registry;
}

/**
 * The server identity: the first object whose class carries @Server, else a name from its class.
 * Every object's @Server options are checked, the ones not used for the identity included.
 */
export function serverInfoOf(instances: readonly object[]): ServerOptions {
  let found: ServerOptions | undefined;
  for (const instance of instances) {
    const options = getServerOptions(instance.constructor);
    if (!options) continue;
    checkOptions(`@Server() on ${instance.constructor.name}`, options, SERVER_OPTION_KEYS);
    found ??= options;
  }
  if (found) return found;
  const first = instances[0];
  return { name: first ? first.constructor.name : 'mcpx-server', version: '0.0.0' };
}

/** Completers given as options are documented to run with `this` bound to the server. */
function bindCompleters(instance: object, complete: Record<string, Completer> | undefined): Record<string, Completer> | undefined {
  if (!complete) return undefined;
  return Object.fromEntries(Object.entries(complete).map(([name, fn]) => [name, fn.bind(instance) as Completer]));
}

/** Each @Complete method must name an argument (or template variable) its target has. */
function checkCompleters(sources: ReadonlyMap<string, string> | undefined, known: readonly string[], what: string): void {
  for (const [argument, source] of sources ?? []) {
    if (!known.includes(argument)) throw new DefinitionError(`${source}: @Complete names "${argument}", which is not a ${what}`);
  }
}

function declaredKey(decl: DeclaredEntry): string {
  switch (decl.kind) {
    case 'tool':
    case 'prompt':
      return decl.options.name ?? decl.method;
    case 'resource':
      return decl.options.uri;
    case 'template':
      return decl.options.uriTemplate;
    case 'complete':
      return 'prompt' in decl.options ? `prompt:${decl.options.prompt}#${decl.options.argument}` : `template:${decl.options.template}#${decl.options.argument}`;
  }
}

function describeKey(decl: DeclaredEntry): string {
  const key = declaredKey(decl);
  switch (decl.kind) {
    case 'tool':
      return `tool name "${key}"`;
    case 'prompt':
      return `prompt name "${key}"`;
    case 'resource':
      return `resource URI "${key}"`;
    case 'template':
      return `URI template "${key}"`;
    case 'complete':
      return `completer for ${key}`;
  }
}

function inputClassOf(owner: object, method: string, source: string, what: 'tool' | 'prompt'): InputClass | undefined {
  const fn = (owner as Record<string, unknown>)[method] as Function;
  const types: unknown[] | undefined = Reflect.getMetadata('design:paramtypes', owner, method);
  const first = types?.[0];
  if (types === undefined) {
    if (fn.length === 0) return undefined;
    // TypeScript emits design:paramtypes for every decorated method when emitDecoratorMetadata is
    // on; its absence on a method that takes a parameter means the compiler dropped it. That
    // option cannot be read at run time: the compiler that ran is what can be told.
    const decorator = what === 'tool' ? '@Tool' : '@Prompt';
    throw new DefinitionError(
      `${source}: cannot tell the ${what}'s input class, because this code was compiled without decorator metadata ` +
        `(the method takes a parameter but has no design:paramtypes). tsx and esbuild never emit it, nor does vitest 3 or older ` +
        `(esbuild), even when tsconfig.json sets emitDecoratorMetadata. Either compile with tsc, ts-node, swc ` +
        `(jsc.transform.decoratorMetadata: true) or vitest 4 with emitDecoratorMetadata on, or name the class: ` +
        `${decorator}({ input: ${what === 'tool' ? 'InputClass' : 'ArgumentsClass'} }) (docs/toolchains.md)`,
    );
  }
  if (types.length === 0 || first === undefined) return undefined;
  if (OPAQUE_TYPES.has(first)) {
    throw new DefinitionError(
      `${source}: cannot determine the ${what}'s input type: the first parameter is typed as ${(first as Function).name ?? 'an interface'}; ` +
        `type it with a class decorated with class-validator rules, give "input"${what === 'tool' ? ' or "inputSchema"' : ' or "arguments"'}, ` +
        `or declare it as "_input: void" when there is no input`,
    );
  }
  if (typeof first !== 'function') throw new DefinitionError(`${source}: cannot determine the ${what}'s input type`);
  return first as InputClass;
}

function bindMethod(instance: object, method: string, owner: object): (...args: any[]) => unknown {
  const fn = (instance as Record<string, unknown>)[method];
  if (typeof fn !== 'function') throw new DefinitionError(`${className(owner)}.${method}: is not a method`);
  return fn.bind(instance);
}

function className(proto: object): string {
  return (proto as { constructor?: Function }).constructor?.name || '(anonymous class)';
}
