import { pick, toHttpUrl, toList } from './args';
import { CliError } from './errors';

/** `mcpx serve --openapi SPEC --base-url URL`: the operations of an OpenAPI description served as tools, no entry file. */
export interface OpenApiSettings {
  /** A file path or an http(s) URL of the description. */
  spec: string;
  baseUrl: string;
  headers: Record<string, string>;
  includeTags?: string[];
  excludeTags?: string[];
}

export const OPENAPI_OPTIONS = {
  openapi: { type: 'string' },
  'base-url': { type: 'string' },
  'openapi-header': { type: 'string', multiple: true },
  'openapi-tags': { type: 'string' },
  'openapi-exclude-tags': { type: 'string' },
} as const;

const HEADER = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/;

/** --openapi and its companions (MCPX_OPENAPI, MCPX_OPENAPI_BASE_URL, MCPX_OPENAPI_HEADERS as a JSON object, ...); undefined when not asked for. */
export function openApiSettings(values: Record<string, unknown>, env: NodeJS.ProcessEnv): OpenApiSettings | undefined {
  const specPicked = pick(values.openapi as string | undefined, 'openapi', ['MCPX_OPENAPI'], env);
  const basePicked = pick(values['base-url'] as string | undefined, 'base-url', ['MCPX_OPENAPI_BASE_URL'], env);
  const headerFlags = values['openapi-header'] as string[] | undefined;
  const headersEnv = env.MCPX_OPENAPI_HEADERS;
  const tags = pick(values['openapi-tags'] as string | undefined, 'openapi-tags', ['MCPX_OPENAPI_TAGS'], env);
  const excluded = pick(values['openapi-exclude-tags'] as string | undefined, 'openapi-exclude-tags', ['MCPX_OPENAPI_EXCLUDE_TAGS'], env);
  if (!specPicked) {
    const stray = basePicked?.from ?? (headerFlags ? '--openapi-header' : undefined) ?? (headersEnv ? 'MCPX_OPENAPI_HEADERS' : undefined) ?? tags?.from ?? excluded?.from;
    if (stray) throw new CliError(`${stray} needs --openapi (MCPX_OPENAPI): the OpenAPI description whose operations to serve`);
    return undefined;
  }
  const spec = String(specPicked.raw).trim();
  if (!spec) throw new CliError(`${specPicked.from} needs the path or URL of an OpenAPI description`);
  if (!basePicked) throw new CliError(`${specPicked.from} needs --base-url (MCPX_OPENAPI_BASE_URL): the API the tools call, and the only one they may`);
  const baseUrl = toHttpUrl(basePicked)!;
  const headers: Record<string, string> = {};
  if (headersEnv && !headerFlags) {
    let value: unknown;
    try {
      value = JSON.parse(headersEnv);
    } catch {
      value = undefined;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.values(value).some((v) => typeof v !== 'string')) {
      throw new CliError('MCPX_OPENAPI_HEADERS must be a JSON object of header names to string values, e.g. {"Authorization":"Bearer …"}');
    }
    Object.assign(headers, value);
  }
  for (const line of headerFlags ?? []) {
    const match = HEADER.exec(line);
    if (!match) throw new CliError(`--openapi-header must be "Name: value", got "${line.split(':')[0]}…"`);
    headers[match[1]!] = match[2]!;
  }
  return { spec, baseUrl, headers, includeTags: toList(tags), excludeTags: toList(excluded) };
}

/** The server for --openapi: @mcpx/openapi loaded only now. */
export async function openApiInstance(settings: OpenApiSettings): Promise<{ name: string; instance: object }> {
  const { openApiServer } = await import('@mcpx/openapi');
  try {
    const instance = await openApiServer(settings.spec, { baseUrl: settings.baseUrl, headers: settings.headers, includeTags: settings.includeTags, excludeTags: settings.excludeTags });
    return { name: 'openapi', instance };
  } catch (err) {
    throw new CliError(`cannot serve ${settings.spec}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`, 2, { cause: err });
  }
}
