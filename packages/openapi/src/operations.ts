import { OpenApiError } from './openapi-error';
import { toJsonSchema, type Json, type JsonObject } from './schema';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof METHODS)[number];

/** Where a parameter goes in the HTTP request. */
export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

/** One input of an operation: the argument that carries it and where it is sent. */
export interface OperationParameter {
  /** The argument's name in the tool's input (the parameter's, or `<in>_<name>` when two locations share a name). */
  readonly argument: string;
  readonly name: string;
  readonly in: ParameterLocation;
  readonly required: boolean;
  /** OpenAPI's `style: form, explode: true` (query arrays as repeated keys) unless the description says otherwise. */
  readonly explode: boolean;
}

/** An operation of the description, as a tool will present and call it. */
export interface Operation {
  readonly toolName: string;
  readonly method: HttpMethod;
  readonly path: string;
  readonly operationId?: string;
  readonly tags: readonly string[];
  readonly summary?: string;
  readonly description?: string;
  readonly parameters: readonly OperationParameter[];
  /** The request body's media type and whether it is required, when the operation takes one. */
  readonly body?: { mediaType: string; required: boolean };
  readonly inputSchema: JsonObject;
  /** The JSON success response's schema as structuredContent has it (an object: anything else wrapped under `result`). */
  readonly outputSchema?: JsonObject;
  /** Whether the success response is wrapped under `result`. */
  readonly wrapsResult: boolean;
  readonly deprecated: boolean;
}

/** Which operations become tools: by tag or by operationId (or tool name); exclusion wins. */
export interface OperationFilter {
  includeTags?: readonly string[];
  excludeTags?: readonly string[];
  includeOperations?: readonly string[];
  excludeOperations?: readonly string[];
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const TOOL_NAME = /[^A-Za-z0-9_.-]+/g;

/** A tool name within the spec's naming guidance: the operationId, or the method and path. */
export function toolNameOf(method: string, path: string, operationId: string | undefined): string {
  const raw = operationId ?? `${method}_${path.replace(/[{}]/g, '')}`;
  const name = raw.replace(TOOL_NAME, '_').replace(/_+/g, '_').replace(/^_|_$/g, '');
  return (name || method).slice(0, 128);
}

/** The operations of a dereferenced OpenAPI 3.x description that pass the filter, in the description's order. */
export function operationsOf(document: object, filter: OperationFilter = {}): Operation[] {
  const { paths: declared } = document as JsonObject;
  const paths = isObject(declared) ? declared : {};
  const operations: Operation[] = [];
  const names = new Map<string, string>();
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const operationId = typeof op.operationId === 'string' ? op.operationId : undefined;
      const tags = Array.isArray(op.tags) ? op.tags.filter((t): t is string => typeof t === 'string') : [];
      const toolName = toolNameOf(method, path, operationId);
      if (!passes(filter, tags, [operationId, toolName])) continue;
      const clash = names.get(toolName);
      if (clash) throw new OpenApiError(`OpenAPI: ${method.toUpperCase()} ${path} and ${clash} would both be the tool "${toolName}": give one an operationId or exclude one`);
      names.set(toolName, `${method.toUpperCase()} ${path}`);
      operations.push(operationOf(method, path, item, op, toolName, operationId, tags));
    }
  }
  return operations;
}

function passes(filter: OperationFilter, tags: readonly string[], ids: readonly (string | undefined)[]): boolean {
  const named = (list: readonly string[] | undefined) => list !== undefined && ids.some((id) => id !== undefined && list.includes(id));
  const tagged = (list: readonly string[] | undefined) => list !== undefined && tags.some((t) => list.includes(t));
  if (named(filter.excludeOperations) || tagged(filter.excludeTags)) return false;
  const narrowed = filter.includeOperations !== undefined || filter.includeTags !== undefined;
  return !narrowed || named(filter.includeOperations) || tagged(filter.includeTags);
}

function operationOf(method: HttpMethod, path: string, item: JsonObject, op: JsonObject, toolName: string, operationId: string | undefined, tags: string[]): Operation {
  // Path-level parameters apply unless the operation overrides one (same name and location).
  const declared = new Map<string, JsonObject>();
  for (const list of [item.parameters, op.parameters]) {
    if (!Array.isArray(list)) continue;
    for (const p of list) if (isObject(p) && typeof p.name === 'string' && typeof p.in === 'string') declared.set(`${p.in}:${p.name}`, p);
  }
  const counts = new Map<string, number>();
  for (const p of declared.values()) counts.set(p.name as string, (counts.get(p.name as string) ?? 0) + 1);
  const properties: JsonObject = {};
  const required: string[] = [];
  const parameters: OperationParameter[] = [];
  for (const p of declared.values()) {
    const location = p.in as ParameterLocation;
    if (!['path', 'query', 'header', 'cookie'].includes(location)) continue;
    const name = p.name as string;
    const argument = (counts.get(name) ?? 0) > 1 || name === 'body' ? `${location}_${name}` : name;
    const isRequired = location === 'path' || p.required === true;
    const schema = toJsonSchema(isObject(p.schema) ? p.schema : firstMediaSchema(p.content), 'request');
    if (typeof p.description === 'string' && schema.description === undefined) schema.description = p.description;
    properties[argument] = schema;
    if (isRequired) required.push(argument);
    parameters.push({ argument, name, in: location, required: isRequired, explode: p.explode !== false && (p.style === undefined || p.style === 'form') });
  }
  let body: Operation['body'];
  const requestBody = op.requestBody;
  if (isObject(requestBody) && isObject(requestBody.content)) {
    const mediaType = pickMediaType(Object.keys(requestBody.content));
    if (mediaType) {
      body = { mediaType, required: requestBody.required === true };
      const schema = toJsonSchema((requestBody.content[mediaType] as JsonObject | undefined)?.schema, 'request');
      if (typeof requestBody.description === 'string' && schema.description === undefined) schema.description = requestBody.description;
      properties.body = schema;
      if (body.required) required.push('body');
    }
  }
  const inputSchema: JsonObject = { type: 'object', properties };
  if (required.length > 0) inputSchema.required = required;
  const output = successSchema(op.responses);
  return {
    toolName,
    method,
    path,
    operationId,
    tags,
    summary: typeof op.summary === 'string' ? op.summary : undefined,
    description: typeof op.description === 'string' ? op.description : undefined,
    parameters,
    body,
    inputSchema,
    outputSchema: output?.schema,
    wrapsResult: output?.wrapped ?? false,
    deprecated: op.deprecated === true,
  };
}

/** JSON first (also `+json` types), then form data, then anything textual. */
function pickMediaType(types: string[]): string | undefined {
  return (
    types.find((t) => /^application\/json\b/i.test(t)) ??
    types.find((t) => /\+json\b/i.test(t)) ??
    types.find((t) => /^application\/x-www-form-urlencoded\b/i.test(t)) ??
    types.find((t) => /^text\//i.test(t))
  );
}

function firstMediaSchema(content: Json | undefined): Json | undefined {
  if (!isObject(content)) return undefined;
  const type = pickMediaType(Object.keys(content));
  return type && isObject(content[type]) ? content[type].schema : undefined;
}

/** The schema of the first 2xx JSON response: structuredContent is an object, so anything else is wrapped under `result`. */
function successSchema(responses: Json | undefined): { schema: JsonObject; wrapped: boolean } | undefined {
  if (!isObject(responses)) return undefined;
  const code = Object.keys(responses)
    .filter((c) => /^2(\d\d|XX)$/i.test(c))
    .sort()[0];
  const response = code ? responses[code] : undefined;
  if (!isObject(response) || !isObject(response.content)) return undefined;
  const type = Object.keys(response.content).find((t) => /^application\/(.+\+)?json\b/i.test(t));
  const media = type ? response.content[type] : undefined;
  if (!isObject(media) || !isObject(media.schema)) return undefined;
  const schema = toJsonSchema(media.schema, 'response');
  if (schema.type === 'object' || (schema.type === undefined && isObject(schema.properties))) return { schema: { ...schema, type: 'object' }, wrapped: false };
  return { schema: { type: 'object', properties: { result: schema }, required: ['result'] }, wrapped: true };
}
