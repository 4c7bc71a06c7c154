import type { Middleware } from '../context/middleware';
import type { RateLimitOptions } from '../policies/rate-limit';
import type { Tool } from '../protocol/types';
import type { ToolOptions } from '../metadata/options';
import type { JsonSchema } from '../schema/json-schema';
import { classToJsonSchema } from '../schema/class-schema';
import { compileJsonSchema } from '../schema/json-schema-validation';
import { scanHeaderParameters, type HeaderParameter } from '../schema/header-parameters';
import { validateInput, validateOutput } from '../schema/class-validation';
import { DEFAULT_ARGUMENT_LIMITS, resolveArgumentLimits } from '../schema/argument-limits';
import { compact } from '../compact';
import { DefinitionError } from '../definition-error';
import { middlewareOf, rateLimitsOf, scopesOf, visibilityOf } from './entry-scopes';
import type { InputClass, ToolEntry, ToolHandler, Validator } from './entry-types';
import { toolUiOf } from '../apps/tool-ui';

/** Spec guidance for tool names (2025-11-25, server/tools "Tool Names"). */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const NO_INPUT_SCHEMA: JsonSchema = Object.freeze({ type: 'object', additionalProperties: false }) as JsonSchema;

export interface ToolSpec extends ToolOptions {
  name: string;
  handler: ToolHandler;
  /** Middleware around this entry's handler only (after the server-wide chain), outermost first. */
  middleware?: readonly Middleware[];
  /** Rate limits counted for this entry alone (what `@RateLimit` gives a decorated one). */
  rateLimit?: RateLimitOptions | readonly RateLimitOptions[];
  /** Where it was declared, for error messages (`NotesServer.search`). */
  source?: string;
}

export function buildToolEntry(spec: ToolSpec): ToolEntry {
  const source = spec.source ?? `tool "${spec.name}"`;
  if (!TOOL_NAME.test(spec.name)) {
    throw new DefinitionError(`${source}: tool name "${spec.name}" breaks the spec's naming guidance (1-128 characters of A-Z a-z 0-9 _ - .)`);
  }
  const input = schemaAndValidator(spec.input, spec.inputSchema, 'input', source) ?? { schema: NO_INPUT_SCHEMA, validate: validateNoArguments };
  const output = schemaAndValidator(spec.output, spec.outputSchema, 'output', source);
  const inputSchema = input.schema;
  const outputSchema = output?.schema;
  // A view (MCP Apps) is said in _meta; a tool only its view calls is hidden from clients without views.
  const ui = spec.ui !== undefined ? toolUiOf(spec.ui, spec._meta, spec.visible, source) : undefined;

  const definition: Tool = compact({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    icons: spec.icons,
    inputSchema,
    outputSchema,
    annotations: spec.annotations,
    execution: spec.taskSupport && spec.taskSupport !== 'forbidden' ? { taskSupport: spec.taskSupport } : undefined,
    _meta: ui ? ui._meta : spec._meta,
  });
  const headers = checkedHeaderParameters(inputSchema, spec.input !== undefined, source, spec.name);
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
    ...(spec.outputSchema && !spec.output ? { outputChecksJson: true } : {}),
    limits: spec.limits,
    headerParameters: headers,
    source,
    scopes: scopesOf(spec.scopes, source),
    ...middlewareOf(spec.middleware, source),
    ...visibilityOf(ui ? { ...spec, visible: ui.visible } : spec, source),
    ...rateLimitsOf(spec.rateLimit, source),
  };
}

/**
 * The tool's header parameters (`x-mcp-header`), found once here for the HTTP transport, which checks
 * the `Mcp-Param-*` headers of every tools/call against them. A broken annotation would make clients
 * drop the tool from their list, so it fails the definition instead.
 */
function checkedHeaderParameters(inputSchema: JsonSchema, fromClass: boolean, source: string, name: string): readonly HeaderParameter[] {
  const { parameters, problems, unreachable } = scanHeaderParameters(inputSchema);
  if (problems.length > 0) {
    const hint =
      fromClass && unreachable
        ? ' (a class with @Field({ header }) properties must be nested as a single value, with @ValidateNested() and @Type(() => ItsClass): not in an array, a Set or a Map, and not inside itself)'
        : '';
    const label = source.includes(`"${name}"`) ? source : `${source} (tool "${name}")`;
    throw new DefinitionError(`${label}: invalid x-mcp-header: ${problems.join('; ')}${hint}`);
  }
  return Object.freeze(parameters.map((p) => Object.freeze({ ...p, path: Object.freeze([...p.path]) as string[] })));
}

/** A tool's input or output: from a class (rules → schema + class-validator) or a raw JSON Schema. */
function schemaAndValidator(cls: InputClass | undefined, raw: JsonSchema | undefined, role: 'input' | 'output', source: string): { schema: JsonSchema; validate: Validator } | undefined {
  if (cls && raw) throw new DefinitionError(`${source}: give either "${role}" or "${role}Schema", not both`);
  if (cls) {
    const validate: Validator = role === 'input' ? (value, unknown) => validateInput(cls, value, unknown) : (value) => validateOutput(cls, value);
    return { schema: classToJsonSchema(cls), validate };
  }
  if (!raw) return undefined;
  if (raw.type !== 'object') throw new DefinitionError(`${source}: ${role}Schema must be an object schema ("type": "object")`);
  return { schema: raw, validate: schemaValidator(raw, source) };
}

/**
 * Arguments of a tool that takes none: checked against NO_INPUT_SCHEMA, compiled on the first call
 * and shared by every such tool. The schema is ours and compiles, so nothing is learnt by compiling
 * it at start, where it would cost the JSON Schema validator's load before the first answer.
 */
let noArguments: ReturnType<typeof compileJsonSchema> | undefined;
const validateNoArguments: Validator = (value) => {
  const issues = (noArguments ??= compileJsonSchema(NO_INPUT_SCHEMA))(value);
  return issues ? { ok: false, issues } : { ok: true, value };
};

function schemaValidator(schema: JsonSchema, source: string): Validator {
  let check: ReturnType<typeof compileJsonSchema>;
  try {
    check = compileJsonSchema(schema);
  } catch (err) {
    throw new DefinitionError(`${source}: the JSON Schema does not compile: ${(err as Error).message}`);
  }
  return (value) => {
    const issues = check(value);
    return issues ? { ok: false, issues } : { ok: true, value };
  };
}
