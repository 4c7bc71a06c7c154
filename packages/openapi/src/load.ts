import { OpenApiError } from './openapi-error';
import { parse as parseYaml } from 'yaml';
import type { JsonObject } from './schema';

/** The largest description read from a URL. */
const MAX_DESCRIPTION_BYTES = 20 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 30_000;

/**
 * Reads, validates and dereferences an OpenAPI 3.0 or 3.1 description: a file path (JSON or
 * YAML, with `$ref`s to files beside it), an http(s) URL (fetched once, JSON or YAML; `$ref`s
 * inside it are not fetched), or the object itself. A `$ref` cycle is kept as a reference, which
 * the tools' schemas cut: a tool's schema must stand alone.
 */
export async function loadOpenApi(source: string | object): Promise<JsonObject> {
  const { default: SwaggerParser } = (await import('@apidevtools/swagger-parser')) as unknown as { default: SwaggerParserApi };
  let input: string | JsonObject;
  if (typeof source !== 'string')
    input = structuredClone(source) as JsonObject; // the parser changes what it is given
  else if (/^https?:\/\//i.test(source)) input = await fetchDescription(source);
  else input = source;
  const options = { resolve: { http: false, external: typeof input === 'string' }, dereference: { circular: 'ignore' } };
  const document = (await SwaggerParser.validate(input, options)) as JsonObject;
  const version = typeof document.openapi === 'string' ? document.openapi : undefined;
  if (!version || !/^3\.[01]\./.test(version)) {
    throw new OpenApiError(`OpenAPI: only 3.0 and 3.1 descriptions are read (this one says ${version ?? (document.swagger ? `swagger ${String(document.swagger)}` : 'nothing')})`);
  }
  return document;
}

async function fetchDescription(url: string): Promise<JsonObject> {
  const response = await fetch(url, { headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.5' }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  if (!response.ok) throw new OpenApiError(`OpenAPI: ${url} answered ${response.status} ${response.statusText}`);
  const length = Number(response.headers.get('content-length') ?? 0);
  if (length > MAX_DESCRIPTION_BYTES) throw new OpenApiError(`OpenAPI: ${url} is larger than ${MAX_DESCRIPTION_BYTES} bytes`);
  const text = await response.text();
  if (text.length > MAX_DESCRIPTION_BYTES) throw new OpenApiError(`OpenAPI: ${url} is larger than ${MAX_DESCRIPTION_BYTES} bytes`);
  const value: unknown = /^\s*[{[]/.test(text) ? JSON.parse(text) : parseYaml(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new OpenApiError(`OpenAPI: ${url} is not an OpenAPI description`);
  return value as JsonObject;
}

interface SwaggerParserApi {
  validate(api: string | object, options: object): Promise<object>;
}
