import 'reflect-metadata';
import { isStandardDecoratorContext, standardDecoratorError } from '../decorator-form';

export { isStandardDecoratorContext, standardDecoratorError } from '../decorator-form';
import { ENTRIES_KEY, MIDDLEWARE_KEY, RATE_LIMIT_KEY, SERVER_KEY } from './keys';
import { rateLimitRules, type RateLimitOptions } from '../policies/rate-limit';
import { checkMiddleware, type Middleware } from '../context/middleware';
import { callerFolder, resolveSkillFolders } from './skills-options';
import type { CompleteOptions, PromptOptions, ResourceOptions, ResourceTemplateOptions, ServerOptions, ToolOptions } from './options';

/** One decorated method, as written. The scanner turns these into registry entries. */
export type DeclaredEntry =
  | { kind: 'tool'; method: string; options: ToolOptions }
  | { kind: 'resource'; method: string; options: ResourceOptions }
  | { kind: 'template'; method: string; options: ResourceTemplateOptions }
  | { kind: 'prompt'; method: string; options: PromptOptions }
  | { kind: 'complete'; method: string; options: CompleteOptions };

const DECORATOR_NAMES: Record<DeclaredEntry['kind'], string> = {
  tool: 'Tool',
  resource: 'Resource',
  template: 'ResourceTemplate',
  prompt: 'Prompt',
  complete: 'Complete',
};

function declare(entry: DeclaredEntry['kind'], options: unknown): MethodDecorator {
  return (target, propertyKey) => {
    if (isStandardDecoratorContext(propertyKey)) throw standardDecoratorError(DECORATOR_NAMES[entry], propertyKey);
    if (typeof propertyKey !== 'string') {
      throw new TypeError(`mcpx: @${entry} needs a string method name, got ${String(propertyKey)}`);
    }
    const own: DeclaredEntry[] = Reflect.getOwnMetadata(ENTRIES_KEY, target) ?? [];
    own.push({ kind: entry, method: propertyKey, options } as DeclaredEntry);
    Reflect.defineMetadata(ENTRIES_KEY, own, target);
  };
}

/** Marks a class as an MCP server and gives its identity (serverInfo) and instructions. */
export function Server(options: ServerOptions): ClassDecorator {
  // Relative skill folders are relative to the file that declares the class (read from the stack now), not the working directory.
  const declared = options?.skills === undefined ? options : { ...options, skills: resolveSkillFolders(options.skills, callerFolder(Server) ?? process.cwd()) };
  return (target, ...rest: unknown[]) => {
    if (isStandardDecoratorContext(rest[0])) throw standardDecoratorError('Server', rest[0]);
    Reflect.defineMetadata(SERVER_KEY, declared, target);
  };
}

/** Exposes a method as a tool. Its first parameter's class is the input; the second is the context. */
export function Tool(options: ToolOptions = {}): MethodDecorator {
  return declare('tool', options);
}

/** Exposes a method as a resource with a fixed URI. */
export function Resource(options: ResourceOptions): MethodDecorator {
  return declare('resource', options);
}

/** Exposes a method as a resource template: it reads every URI the RFC 6570 template matches. */
export function ResourceTemplate(options: ResourceTemplateOptions): MethodDecorator {
  return declare('template', options);
}

/** Exposes a method as a prompt. Its first parameter's class (or `arguments`) gives the arguments. */
export function Prompt(options: PromptOptions = {}): MethodDecorator {
  return declare('prompt', options);
}

/** Marks a method as the completer for one prompt argument or template variable. */
export function Complete(options: CompleteOptions): MethodDecorator {
  return declare('complete', options);
}

export function getServerOptions(target: Function): ServerOptions | undefined {
  return Reflect.getMetadata(SERVER_KEY, target);
}

export function getOwnDeclaredEntries(prototype: object): readonly DeclaredEntry[] {
  return Reflect.getOwnMetadata(ENTRIES_KEY, prototype) ?? [];
}

/**
 * Puts middleware around the handlers of a class (every tool, resource, template and prompt it
 * declares) or of one method: they run after the server-wide middleware, the class's before the
 * method's, and only for requests of those handlers (tools/call, resources/read, prompts/get).
 * Stacked decorators run top to bottom.
 */
export function UseMiddleware(...middleware: Middleware[]): ClassDecorator & MethodDecorator {
  const list = checkMiddleware(middleware, '@UseMiddleware');
  return ((target: object, propertyKey?: string | symbol) => {
    if (isStandardDecoratorContext(propertyKey)) throw standardDecoratorError('UseMiddleware', propertyKey);
    prependOwn(MIDDLEWARE_KEY, list, target, propertyKey);
  }) as ClassDecorator & MethodDecorator;
}

/** Puts `items` before what a class (or one of its methods) holds under `key`: decorators apply bottom-up, so the list reads as written. */
function prependOwn<T>(key: symbol, items: readonly T[], target: object, propertyKey: string | symbol | undefined): void {
  const own: readonly T[] = (propertyKey === undefined ? Reflect.getOwnMetadata(key, target) : Reflect.getOwnMetadata(key, target, propertyKey)) ?? [];
  if (propertyKey === undefined) Reflect.defineMetadata(key, [...items, ...own], target);
  else Reflect.defineMetadata(key, [...items, ...own], target, propertyKey);
}

/** What `key` holds on a class and its parents (base first), then on `method` where the owner declares it. */
function declaredAlong<T>(key: symbol, instance: object, owner: object, method: string): T[] {
  const found: T[] = [];
  const classes: object[] = [];
  for (let p = Object.getPrototypeOf(instance); p && p !== Object.prototype; p = Object.getPrototypeOf(p)) classes.unshift(p.constructor);
  for (const ctor of classes) found.push(...((Reflect.getOwnMetadata(key, ctor) as T[] | undefined) ?? []));
  found.push(...((Reflect.getOwnMetadata(key, owner, method) as T[] | undefined) ?? []));
  return found;
}

/** The middleware `@UseMiddleware` put on a class and its parents (base first), then on `method` where the owner declares it. */
export function declaredMiddleware(instance: object, owner: object, method: string): readonly Middleware[] {
  return declaredAlong<Middleware>(MIDDLEWARE_KEY, instance, owner, method);
}

/**
 * At most `limit` requests in any `windowMs` (docs/policies.md): on a method, for that handler; on a
 * class, for each of its handlers, counted apart. Stack them for several limits (10 a second and
 * 1,000 a day); `@Server({ rateLimit })` limits every request to the server.
 */
export function RateLimit(options: RateLimitOptions): ClassDecorator & MethodDecorator {
  // Checked now, so a bad limit fails where it is written.
  rateLimitRules(options, '@RateLimit');
  return ((target: object, propertyKey?: string | symbol) => {
    if (isStandardDecoratorContext(propertyKey)) throw standardDecoratorError('RateLimit', propertyKey);
    prependOwn(RATE_LIMIT_KEY, [options], target, propertyKey);
  }) as ClassDecorator & MethodDecorator;
}

/** The limits `@RateLimit` put on a class and its parents (base first), then on `method` where the owner declares it. */
export function declaredRateLimits(instance: object, owner: object, method: string): readonly RateLimitOptions[] {
  return declaredAlong<RateLimitOptions>(RATE_LIMIT_KEY, instance, owner, method);
}
