import type { Middleware } from '../context/middleware';
import type { RateLimitOptions } from '../policies/rate-limit';
import type { Resource, ResourceTemplate } from '../protocol/types';
import type { ResourceOptions, ResourceTemplateOptions } from '../metadata/options';
import { UriTemplate, UriTemplateError } from '../uri-template';
import { compact } from '../compact';
import { DefinitionError } from '../definition-error';
import { middlewareOf, rateLimitsOf, scopesOf, visibilityOf } from './entry-scopes';
import { cacheHintOf } from './entry-cache';
import type { ResourceEntry, ResourceHandler, TemplateEntry, TemplateHandler } from './entry-types';

export interface ResourceSpec extends ResourceOptions {
  name: string;
  handler: ResourceHandler;
  /** Middleware around this entry's handler only (after the server-wide chain), outermost first. */
  middleware?: readonly Middleware[];
  /** Rate limits counted for this entry alone (what `@RateLimit` gives a decorated one). */
  rateLimit?: RateLimitOptions | readonly RateLimitOptions[];
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
  const cache = cacheHintOf(spec.cache, source);
  return {
    definition,
    handler: spec.handler,
    source,
    scopes: scopesOf(spec.scopes, source),
    ...(cache ? { cache } : {}),
    ...middlewareOf(spec.middleware, source),
    ...visibilityOf(spec, source),
    ...rateLimitsOf(spec.rateLimit, source),
  };
}

export interface TemplateSpec extends ResourceTemplateOptions {
  name: string;
  handler: TemplateHandler;
  /** Middleware around this entry's handler only (after the server-wide chain), outermost first. */
  middleware?: readonly Middleware[];
  /** Rate limits counted for this entry alone (what `@RateLimit` gives a decorated one). */
  rateLimit?: RateLimitOptions | readonly RateLimitOptions[];
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
  const cache = cacheHintOf(spec.cache, source);
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
  return {
    definition,
    template,
    handler: spec.handler,
    completers,
    source,
    scopes: scopesOf(spec.scopes, source),
    ...(cache ? { cache } : {}),
    ...middlewareOf(spec.middleware, source),
    ...visibilityOf(spec, source),
    ...rateLimitsOf(spec.rateLimit, source),
  };
}

function isAbsoluteUri(uri: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:\S*$/.test(uri);
}
