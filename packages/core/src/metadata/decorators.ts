import 'reflect-metadata';
import { ENTRIES_KEY, SERVER_KEY } from './keys';
import type {
  CompleteOptions,
  PromptOptions,
  ResourceOptions,
  ResourceTemplateOptions,
  ServerOptions,
  ToolOptions,
} from './options';

/** One decorated method, as written. The scanner turns these into registry entries. */
export type DeclaredEntry =
  | { kind: 'tool'; method: string; options: ToolOptions }
  | { kind: 'resource'; method: string; options: ResourceOptions }
  | { kind: 'template'; method: string; options: ResourceTemplateOptions }
  | { kind: 'prompt'; method: string; options: PromptOptions }
  | { kind: 'complete'; method: string; options: CompleteOptions };

function declare(entry: DeclaredEntry['kind'], options: unknown): MethodDecorator {
  return (target, propertyKey) => {
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
  return (target) => {
    Reflect.defineMetadata(SERVER_KEY, options, target);
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
