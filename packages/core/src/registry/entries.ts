import type { ScopedEntry } from '../auth/principal';
import type { CompleteResult, Prompt, PromptArgument, Resource, ResourceTemplate, Tool } from '../protocol/types';
import type { Completer, PromptOptions, ResourceOptions, ResourceTemplateOptions, ToolOptions } from '../metadata/options';
import type { RequestContext } from '../engine/context';
import type { ValidationIssue } from '../schema/class-validation';
import type { JsonSchema } from '../schema/json-schema';
import { classToJsonSchema } from '../schema/class-schema';
import { compileJsonSchema } from '../schema/json-schema-validation';
import { validateInput, validateOutput } from '../schema/class-validation';
import { getFieldOptions } from '../schema/field';
import { UriTemplate, UriTemplateError } from '../uri-template';
import { getMetadataStorage } from 'class-validator';
import { DEFAULT_ARGUMENT_LIMITS, resolveArgumentLimits, type ArgumentLimits } from '../schema/argument-limits';

/** Thrown when a definition cannot be served; the message names where it was declared. */
export class DefinitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DefinitionError';
  }
}

/** Checks a value; `unknownProperties` says what an input class does with properties it does not declare (raw schemas decide for themselves). */
export type Validator = (value: unknown, unknownProperties?: 'refuse' | 'drop') => Promise<{ ok: true; value: unknown } | { ok: false; issues: ValidationIssue[] }>;

export type ToolHandler = (input: any, ctx: RequestContext) => unknown;
export type ResourceHandler = (ctx: RequestContext) => unknown;
export type TemplateHandler = (variables: Record<string, string | string[]>, ctx: RequestContext) => unknown;
export type PromptHandler = (args: any, ctx: RequestContext) => unknown;

/** What the registry keeps for a tool: the listed definition plus what serving it needs. */
export interface ToolEntry extends ScopedEntry {
  readonly definition: Tool;
  readonly handler: ToolHandler;
  /** Turns raw arguments into the handler's input, or says why they are wrong. */
  readonly validateInput: Validator;
  /** Present when the tool declares an output schema. */
  readonly validateOutput?: Validator;
  /** The tool's own argument limits, over the server's (`@Tool({ limits })`). */
  readonly limits?: ArgumentLimits;
  readonly source: string;
}

export interface ResourceEntry extends ScopedEntry {
  readonly definition: Resource;
  readonly handler: ResourceHandler;
  readonly source: string;
}

export interface TemplateEntry extends ScopedEntry {
  readonly definition: ResourceTemplate;
  readonly template: UriTemplate;
  readonly handler: TemplateHandler;
  readonly completers: ReadonlyMap<string, Completer>;
  readonly source: string;
}

export interface PromptEntry extends ScopedEntry {
  readonly definition: Prompt;
  readonly handler: PromptHandler;
  readonly validateArguments: Validator;
  readonly completers: ReadonlyMap<string, Completer>;
  readonly source: string;
}

/** Spec guidance for tool names (2025-11-25, server/tools "Tool Names"). */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const NO_INPUT_SCHEMA: JsonSchema = Object.freeze({ type: 'object', additionalProperties: false }) as JsonSchema;

export type InputClass = new () => object;

export interface ToolSpec extends ToolOptions {
  name: string;
  handler: ToolHandler;
  /** Where it was declared, for error messages (`NotesServer.search`). */
  source?: string;
}

export function buildToolEntry(spec: ToolSpec): ToolEntry {
  const source = spec.source ?? `tool "${spec.name}"`;
  if (!TOOL_NAME.test(spec.name)) {
    throw new DefinitionError(
      `${source}: tool name "${spec.name}" breaks the spec's naming guidance (1-128 characters of A-Z a-z 0-9 _ - .)`,
    );
  }
  const input = schemaAndValidator(spec.input, spec.inputSchema, 'input', source) ?? {
    schema: NO_INPUT_SCHEMA,
    validate: schemaValidator(NO_INPUT_SCHEMA, source),
  };
  const output = schemaAndValidator(spec.output, spec.outputSchema, 'output', source);
  const inputSchema = input.schema;
  const outputSchema = output?.schema;

  const definition: Tool = compact({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    icons: spec.icons,
    inputSchema,
    outputSchema,
    annotations: spec.annotations,
    execution: spec.taskSupport && spec.taskSupport !== 'forbidden' ? { taskSupport: spec.taskSupport } : undefined,
    _meta: spec._meta,
  });
  // Checked now, so a bad limit fails at startup and names the tool.
  if (spec.limits) {
    try {
      resolveArgumentLimits(spec.limits, DEFAULT_ARGUMENT_LIMITS, 'limits');
    } catch (err) {
      throw new DefinitionError(`${source}: ${(err as Error).message}`);
    }
  }
  return {
    definition,
    handler: spec.handler,
    validateInput: input.validate,
    validateOutput: output?.validate,
    limits: spec.limits,
    source,
    scopes: scopesOf(spec.scopes, source),
  };
}

/** A tool's input or output: from a class (rules → schema + class-validator) or a raw JSON Schema. */
function schemaAndValidator(
  cls: InputClass | undefined,
  raw: JsonSchema | undefined,
  role: 'input' | 'output',
  source: string,
): { schema: JsonSchema; validate: Validator } | undefined {
  if (cls && raw) throw new DefinitionError(`${source}: give either "${role}" or "${role}Schema", not both`);
  if (cls) {
    const validate: Validator = role === 'input' ? (value, unknown) => validateInput(cls, value, unknown) : (value) => validateOutput(cls, value);
    return { schema: classToJsonSchema(cls), validate };
  }
  if (!raw) return undefined;
  if (raw.type !== 'object') throw new DefinitionError(`${source}: ${role}Schema must be an object schema ("type": "object")`);
  return { schema: raw, validate: schemaValidator(raw, source) };
}

function schemaValidator(schema: JsonSchema, source: string): Validator {
  let check: ReturnType<typeof compileJsonSchema>;
  try {
    check = compileJsonSchema(schema);
  } catch (err) {
    throw new DefinitionError(`${source}: the JSON Schema does not compile: ${(err as Error).message}`);
  }
  return async (value) => {
    const issues = check(value);
    return issues ? { ok: false, issues } : { ok: true, value };
  };
}

export interface ResourceSpec extends ResourceOptions {
  name: string;
  handler: ResourceHandler;
  source?: string;
}

export function buildResourceEntry(spec: ResourceSpec): ResourceEntry {
  const source = spec.source ?? `resource "${spec.uri}"`;
  if (!isAbsoluteUri(spec.uri)) throw new DefinitionError(`${source}: "${spec.uri}" is not an absolute URI (scheme:rest)`);
  const definition: Resource = compact({
    uri: spec.uri,
    name: spec.name,
    title: spec.title,
    description: spec.description,
    mimeType: spec.mimeType,
    size: spec.size,
    icons: spec.icons,
    annotations: spec.annotations,
    _meta: spec._meta,
  });
  return { definition, handler: spec.handler, source, scopes: scopesOf(spec.scopes, source) };
}

export interface TemplateSpec extends ResourceTemplateOptions {
  name: string;
  handler: TemplateHandler;
  source?: string;
}

export function buildTemplateEntry(spec: TemplateSpec): TemplateEntry {
  const source = spec.source ?? `resource template "${spec.uriTemplate}"`;
  let template: UriTemplate;
  try {
    template = UriTemplate.parse(spec.uriTemplate);
  } catch (err) {
    if (err instanceof UriTemplateError) throw new DefinitionError(`${source}: unparsable URI template: ${err.message}`);
    throw err;
  }
  const completers = new Map(Object.entries(spec.complete ?? {}));
  for (const variable of completers.keys()) {
    if (!template.variableNames.includes(variable)) {
      throw new DefinitionError(`${source}: completer for "${variable}", which is not a variable of ${spec.uriTemplate}`);
    }
  }
  const definition: ResourceTemplate = compact({
    uriTemplate: spec.uriTemplate,
    name: spec.name,
    title: spec.title,
    description: spec.description,
    mimeType: spec.mimeType,
    icons: spec.icons,
    annotations: spec.annotations,
    _meta: spec._meta,
  });
  return { definition, template, handler: spec.handler, completers, source, scopes: scopesOf(spec.scopes, source) };
}

export interface PromptSpec extends PromptOptions {
  name: string;
  handler: PromptHandler;
  source?: string;
}

export function buildPromptEntry(spec: PromptSpec): PromptEntry {
  const source = spec.source ?? `prompt "${spec.name}"`;
  if (!spec.name) throw new DefinitionError(`${source}: a prompt needs a name`);
  if (spec.input && spec.arguments) throw new DefinitionError(`${source}: give either an argument class or "arguments", not both`);
  let args: PromptArgument[] | undefined;
  let validateArguments: Validator;
  if (spec.input) {
    args = promptArgumentsOf(spec.input);
    const cls = spec.input;
    validateArguments = (value, unknown) => validateInput(cls, value, unknown);
  } else {
    args = spec.arguments?.map((a) => compact({ ...a }));
    const declared = args ?? [];
    validateArguments = async (value) => {
      const given = value as Record<string, unknown>;
      const issues: ValidationIssue[] = [];
      for (const a of declared) {
        const v = given[a.name];
        if (v === undefined) {
          if (a.required) issues.push({ path: a.name, message: `${a.name} is required` });
        } else if (typeof v !== 'string') issues.push({ path: a.name, message: `${a.name} must be a string` });
      }
      for (const key of Object.keys(given)) {
        if (!declared.some((a) => a.name === key)) issues.push({ path: key, message: `${key} is not an argument of this prompt` });
      }
      return issues.length ? { ok: false, issues } : { ok: true, value: given };
    };
  }
  const completers = new Map(Object.entries(spec.complete ?? {}));
  for (const name of completers.keys()) {
    if (!args?.some((a) => a.name === name)) {
      throw new DefinitionError(`${source}: completer for "${name}", which is not an argument of the prompt`);
    }
  }
  const definition: Prompt = compact({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    arguments: args,
    icons: spec.icons,
    _meta: spec._meta,
  });
  return { definition, handler: spec.handler, validateArguments, completers, source, scopes: scopesOf(spec.scopes, source) };
}

/** Prompt arguments are strings; each validated property of the class becomes one. */
function promptArgumentsOf(cls: InputClass): PromptArgument[] {
  const metas = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  const optional = new Set<string>();
  const names: string[] = [];
  for (const m of metas) {
    if (!names.includes(m.propertyName)) names.push(m.propertyName);
    if (m.type === 'conditionalValidation' && m.name === 'isOptional') optional.add(m.propertyName);
  }
  return names.map((name) => {
    const field = getFieldOptions(cls, name);
    return compact({ name, title: field?.title, description: field?.description, required: !optional.has(name) });
  });
}

/** Normalises what a completer returns into the spec's shape: at most 100 values. */
export function toCompleteResult(values: string[] | { values: string[]; total?: number; hasMore?: boolean }): CompleteResult {
  const list = Array.isArray(values) ? values : values.values;
  const strings = list.filter((v): v is string => typeof v === 'string');
  const total = Array.isArray(values) ? strings.length : (values.total ?? strings.length);
  const page = strings.slice(0, 100);
  const hasMore = Array.isArray(values) ? strings.length > 100 : (values.hasMore ?? strings.length > 100);
  return { completion: { values: page, total, hasMore } };
}

function isAbsoluteUri(uri: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:\S*$/.test(uri);
}

/** An entry's scopes: OAuth scope tokens (RFC 6749 §3.3: printable ASCII without space, quote or backslash). */
function scopesOf(scopes: string[] | undefined, source: string): readonly string[] {
  if (scopes === undefined) return [];
  for (const scope of scopes) {
    if (typeof scope !== 'string' || !/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(scope)) {
      throw new DefinitionError(`${source}: ${JSON.stringify(scope)} is not a valid OAuth scope`);
    }
  }
  return Object.freeze([...new Set(scopes)]);
}

/** Drops undefined members so listed definitions carry only what was set. */
export function compact<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) if (value[key] === undefined) delete value[key];
  return value;
}
