/** A JSON value as an OpenAPI description holds it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Keywords of OpenAPI's Schema Object that JSON Schema does not have: dropped. */
const OPENAPI_ONLY = new Set(['discriminator', 'xml', 'externalDocs', 'example', 'nullable']);

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * An OpenAPI 3.0 or 3.1 Schema Object as a JSON Schema (2020-12) an MCP client reads: 3.0's
 * `nullable` becomes a `null` type, its boolean `exclusiveMinimum`/`exclusiveMaximum` become
 * numbers, OpenAPI-only keywords go, and a `$ref` left by a cycle becomes `{}` (anything): a
 * tool's schema must stand alone. `direction` drops `readOnly` properties from what is sent and
 * `writeOnly` ones from what is received, as OpenAPI defines them.
 */
export function toJsonSchema(schema: unknown, direction: 'request' | 'response', seen = new Set<unknown>()): JsonObject {
  if (!isObject(schema)) return {};
  // A cycle the dereferencer kept as an object graph: cut it.
  if (seen.has(schema) || typeof schema.$ref === 'string') return {};
  seen.add(schema);
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (OPENAPI_ONLY.has(key) || key.startsWith('x-')) continue;
    switch (key) {
      case 'properties': {
        if (!isObject(value)) break;
        const properties: JsonObject = {};
        for (const [name, property] of Object.entries(value)) {
          if (isObject(property) && property[direction === 'request' ? 'readOnly' : 'writeOnly'] === true) continue;
          properties[name] = toJsonSchema(property, direction, seen);
        }
        out.properties = properties;
        break;
      }
      case 'required':
        if (Array.isArray(value)) {
          const hidden = isObject(schema.properties) ? schema.properties : {};
          out.required = value.filter((name) => typeof name === 'string' && !(isObject(hidden[name]) && hidden[name][direction === 'request' ? 'readOnly' : 'writeOnly'] === true));
        }
        break;
      case 'items':
      case 'additionalProperties':
      case 'not':
      case 'contains':
      case 'propertyNames':
        out[key] = typeof value === 'boolean' ? value : toJsonSchema(value, direction, seen);
        break;
      case 'allOf':
      case 'anyOf':
      case 'oneOf':
      case 'prefixItems':
        if (Array.isArray(value)) out[key] = value.map((s) => toJsonSchema(s, direction, seen));
        break;
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        // 3.0: a flag on minimum/maximum; 3.1: the bound itself.
        if (typeof value === 'number') out[key] = value;
        break;
      default:
        out[key] = value;
    }
  }
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (schema[flag] === true && typeof schema[bound] === 'number') {
      out[flag] = schema[bound];
      delete out[bound];
    }
  }
  if (schema.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (out.type === undefined && (out.anyOf || out.oneOf || out.allOf)) return { anyOf: [out, { type: 'null' }] };
  }
  seen.delete(schema);
  return out;
}
