import type { JsonSchema } from './json-schema';

/**
 * The schema keyword that mirrors a tool argument into an `Mcp-Param-{name}` HTTP header
 * (2026-07-28, server/tools "x-mcp-header"; basic/transports/streamable-http "Custom Headers from Tool Parameters").
 */
export const HEADER_KEYWORD = 'x-mcp-header';

/** One argument a client mirrors into a header: `Mcp-Param-{header}` carries the value at `path`. */
export interface HeaderParameter {
  /** The name part of `Mcp-Param-{header}`, as declared (compare case-insensitively). */
  header: string;
  /** The chain of `properties` keys from the root of the arguments to the value. */
  path: string[];
  type: 'string' | 'integer' | 'boolean';
}

/** What scanning an input schema found: the header parameters, or why they are not valid. */
export interface HeaderScan {
  parameters: HeaderParameter[];
  /** One sentence per broken rule, each naming the property (or the schema location) it is about. */
  problems: string[];
  /** Whether a problem is an annotation outside the `properties` chains (under `$defs`, `items`, ...). */
  unreachable: boolean;
}

/** RFC 9110 §5.6.2 token: `1*tchar`; excludes controls (CR, LF), space and the delimiters. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);
// Numeric keywords whose values an integer header property could take.
const VALUE_BOUNDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'] as const;

// Keywords whose value is one subschema, a list of them, or a name → subschema map. A header
// annotation under any of them is not statically reachable (only `properties` chains are).
const SUBSCHEMA = [
  'items',
  'additionalItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'contentSchema',
];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
const SUBSCHEMA_MAPS = ['$defs', 'definitions', 'patternProperties', 'dependentSchemas', 'dependencies'];

/**
 * Finds every `x-mcp-header` annotation of a tool's input schema and checks the spec's rules: a
 * non-empty RFC 9110 token, case-insensitively unique, on a `string`, `integer` or `boolean`
 * property (an integer's declared bounds within ±(2^53−1)), reached from the root through
 * `properties` alone. The walk follows the schema's keywords, so a property *named* x-mcp-header
 * or the word inside `default`/`enum` values is not taken for an annotation. `$ref` is not
 * followed: what it points at lives under `$defs`, which is not statically reachable.
 */
export function scanHeaderParameters(inputSchema: JsonSchema): HeaderScan {
  const parameters: HeaderParameter[] = [];
  const problems: string[] = [];
  const byLowerCase = new Map<string, string[]>();
  let unreachable = false;

  const visit = (schema: unknown, location: string[], staticPath: string[] | undefined) => {
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return;
    const node = schema as Record<string, unknown>;
    if (Object.hasOwn(node, HEADER_KEYWORD)) {
      if (!staticPath) unreachable = true;
      const parameter = checkAnnotation(node, location, staticPath, problems);
      if (parameter) {
        const key = parameter.header.toLowerCase();
        const other = byLowerCase.get(key);
        if (other) {
          problems.push(
            `${propertyName(parameter.path)}: x-mcp-header ${JSON.stringify(parameter.header)} is also declared by ${propertyName(other)}; ` +
              `header names must be unique within the input schema, ignoring case (both would be sent as Mcp-Param-${parameter.header})`,
          );
        } else {
          byLowerCase.set(key, parameter.path);
          parameters.push(parameter);
        }
      }
    }
    const properties = node.properties;
    if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
      for (const [name, child] of Object.entries(properties)) {
        visit(child, [...location, 'properties', name], staticPath && [...staticPath, name]);
      }
    }
    for (const keyword of SUBSCHEMA) {
      if (keyword in node && !Array.isArray(node[keyword])) visit(node[keyword], [...location, keyword], undefined);
    }
    for (const keyword of SUBSCHEMA_LISTS) {
      const list = node[keyword];
      if (Array.isArray(list)) list.forEach((child, i) => visit(child, [...location, keyword, String(i)], undefined));
    }
    for (const keyword of SUBSCHEMA_MAPS) {
      const map = node[keyword];
      if (typeof map !== 'object' || map === null || Array.isArray(map)) continue;
      for (const [name, child] of Object.entries(map)) visit(child, [...location, keyword, name], undefined);
    }
  };
  visit(inputSchema, [], []);
  return { parameters, problems, unreachable };
}

/**
 * The header parameters of a tool's input schema, in schema order. Throws a TypeError listing
 * every broken rule when an annotation is invalid (a registered tool's schema was checked when
 * it was defined: read `ToolEntry.headerParameters` instead of calling this per request).
 */
export function headerParameters(inputSchema: JsonSchema): HeaderParameter[] {
  const { parameters, problems } = scanHeaderParameters(inputSchema);
  if (problems.length > 0) throw new TypeError(`invalid x-mcp-header in the input schema: ${problems.join('; ')}`);
  return parameters;
}

/** Checks one annotated schema; the parameter when every rule holds, else its problems are added. */
function checkAnnotation(node: Record<string, unknown>, location: string[], staticPath: string[] | undefined, problems: string[]): HeaderParameter | undefined {
  const value = node[HEADER_KEYWORD];
  const where = staticPath && staticPath.length > 0 ? propertyName(staticPath) : `the schema at ${pointer(location)}`;
  const said = typeof value === 'string' ? `x-mcp-header ${JSON.stringify(value)}` : 'x-mcp-header';
  const before = problems.length;
  if (!staticPath || staticPath.length === 0) {
    problems.push(
      `${where}: ${said} is only allowed on a property reached from the root through "properties" alone ` +
        `(${staticPath ? 'not on the root schema itself' : `not through ${via(location)}`}), so clients would drop the tool`,
    );
  }
  if (typeof value !== 'string' || value === '') {
    problems.push(`${where}: x-mcp-header must be a non-empty string, got ${JSON.stringify(value)}`);
  } else if (!TOKEN.test(value)) {
    problems.push(
      `${where}: ${said} is not an HTTP header name token (RFC 9110 tchar: letters, digits and ! # $ % & ' * + - . ^ _ \` | ~; ` + `no spaces, control characters or other delimiters)`,
    );
  }
  const type = node.type;
  if (typeof type !== 'string' || !HEADER_TYPES.has(type)) {
    problems.push(
      `${where}: ${said} needs a property of type "string", "integer" or "boolean", declared in the property's own schema, ` +
        `got ${type === undefined ? 'no type' : `type ${JSON.stringify(type)}`}${type === 'number' ? ' (numbers are not allowed: use an integer)' : ''}`,
    );
  } else if (type === 'integer') {
    // Header values are compared as text: an integer past ±(2^53−1) does not survive a JSON round trip.
    for (const keyword of VALUE_BOUNDS) {
      const bound = node[keyword];
      if (typeof bound === 'number' && Math.abs(bound) > Number.MAX_SAFE_INTEGER) {
        problems.push(`${where}: ${said} is on an integer whose ${keyword} ${bound} lies outside the safe integer range ±(2^53−1)`);
      }
    }
  }
  if (problems.length > before || !staticPath) return undefined;
  return { header: value as string, path: staticPath, type: type as HeaderParameter['type'] };
}

/** `address.region`, for a property path. */
function propertyName(path: string[]): string {
  return `input property "${path.join('.')}"`;
}

/** A JSON Pointer to a schema location, `#/$defs/Address/properties/region`. */
function pointer(location: string[]): string {
  return `#${location.map((part) => `/${part.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('')}`;
}

/** The keywords on the way to a location that are not `properties` steps: "items", "$defs". */
function via(location: string[]): string {
  const steps: string[] = [];
  for (let i = 0; i < location.length; i++) {
    const keyword = location[i];
    if (keyword === 'properties') {
      i++;
      continue;
    }
    if (!steps.includes(keyword)) steps.push(keyword);
    if (SUBSCHEMA_MAPS.includes(keyword) || SUBSCHEMA_LISTS.includes(keyword)) {
      // the name or index that follows belongs to the keyword
      if (SUBSCHEMA_MAPS.includes(keyword) || /^\d+$/.test(location[i + 1] ?? '')) i++;
    }
  }
  return steps.map((s) => `"${s}"`).join(', ');
}
