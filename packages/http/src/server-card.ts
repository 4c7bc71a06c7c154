/**
 * The MCP server card (experimental): a public document, read before connecting, that says which
 * server this is and where to connect to it. It follows the draft of the experimental-ext-server-card
 * extension (SEP-2127, not an accepted MCP extension yet); the draft reserves
 * `<streamable-http-url>/server-card`, and clients written against the earlier proposal (xmcp's) read
 * `/.well-known/mcp/server-card.json`, so both are served until the location settles.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Implementation } from '@mcpx/core';
import type { Icon } from '@mcpx/core/protocol';
import { ALL_PROTOCOL_VERSIONS, checkOptions, optionKeys } from '@mcpx/core/transport';
import type { AuthOptions } from './auth/options';
import type { OriginHostPolicy } from './guards';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The server card's routes: public, outside the Origin check and the endpoint's CORS. */
    serverCard?: boolean;
  }
}

/** The `$schema` every card carries: the draft's v1 schema, the only one it accepts. */
export const SERVER_CARD_SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
export const SERVER_CARD_MEDIA_TYPE = 'application/mcp-server-card+json';
/** Where xmcp serves its card and its clients look for one (the earlier proposal's location). */
export const SERVER_CARD_WELL_KNOWN_PATH = '/.well-known/mcp/server-card.json';

/** Where the server's source code lives (the card's `repository`). */
export interface ServerCardRepository {
  /** For browsing and cloning, e.g. https://github.com/acme/weather. */
  url: string;
  /** The hosting service, e.g. `github`. */
  source: string;
  /** The server's folder inside a monorepo. */
  subfolder?: string;
  /** The hosting service's id for the repository. */
  id?: string;
}

/** What the server card says beyond what the server knows already (every field optional). */
export interface ServerCardOptions {
  /**
   * The card's `name`, reverse-DNS `namespace/name` (e.g. `com.example/weather`). Default: `@Server`'s
   * name when it has that form, else the host of `url` (or of `auth.resource`) reversed, then `/` and
   * `@Server`'s name (`https://mcp.example.com/mcp` and `weather` make `com.example.mcp/weather`).
   */
  name?: string;
  /** 1 to 100 characters. Default: `@Server`'s description, cut at a word to fit. */
  description?: string;
  /** Default: `@Server`'s `websiteUrl`. */
  websiteUrl?: string;
  repository?: ServerCardRepository;
  /** Default: `@Server`'s `icons`. */
  icons?: Icon[];
  /**
   * The public URL of the MCP endpoint, as clients reach it (e.g. https://mcp.example.com/mcp).
   * Default: `auth.resource` when `auth` is on, else taken from each request whose Host is one of
   * `allowedHosts` (over plain HTTP, only a loopback name); other requests get a card without `remotes`.
   */
  url?: string;
}

const SERVER_CARD_OPTION_KEYS = optionKeys<ServerCardOptions>()('name', 'description', 'websiteUrl', 'repository', 'icons', 'url');

/** The card once its options are checked. */
export interface ResolvedServerCard {
  /** Every field but `remotes`, in the order served. */
  readonly fields: Readonly<Record<string, unknown>>;
  /** The public MCP URL when it is known up front (`url`, else `auth.resource`); else it comes from each request. */
  readonly url?: string;
}

const NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
const TEXT_MAX = 100;
const VERSION_MAX = 255;
const URI = /^[a-z][a-z0-9+.-]*:[^\s]+$/i;

/**
 * Checks the `serverCard` option and builds the card's fields from it and the server's identity
 * (serverInfo). Undefined when the option is off; a RangeError saying what to change when no valid
 * card can be made.
 */
export function resolveServerCard(option: boolean | ServerCardOptions | undefined, info: Implementation, auth: AuthOptions | undefined): ResolvedServerCard | undefined {
  if (option === undefined || option === false) return undefined;
  if (option !== true && (typeof option !== 'object' || option === null || Array.isArray(option))) {
    throw new RangeError(`serverCard must be true or an object of settings, got ${JSON.stringify(option)}`);
  }
  const given: ServerCardOptions = option === true ? {} : option;
  checkOptions('the serverCard option', given, SERVER_CARD_OPTION_KEYS);
  const url = given.url !== undefined ? endpointUrl(given.url, 'serverCard.url') : auth && endpointUrl(auth.resource, 'auth.resource');
  if (typeof info.version !== 'string' || info.version.length > VERSION_MAX) throw new RangeError(`serverCard: the server's version must be a string of at most ${VERSION_MAX} characters`);
  const title = info.title === undefined ? undefined : shortened(info.title);
  const fields = compact({
    $schema: SERVER_CARD_SCHEMA_URL,
    name: cardName(given.name, info.name, url),
    version: info.version,
    title: title || undefined,
    description: cardDescription(given.description, info),
    websiteUrl: given.websiteUrl !== undefined ? uri(given.websiteUrl, 'serverCard.websiteUrl') : info.websiteUrl && isUri(info.websiteUrl) ? info.websiteUrl : undefined,
    repository: given.repository && repositoryOf(given.repository),
    icons: nonEmpty(given.icons !== undefined ? iconsOf(given.icons) : info.icons?.filter((icon) => isUri(icon?.src))),
  });
  return { fields, url };
}

/** The name given, else `@Server`'s when it is reverse-DNS already, else one made from the public URL's host. */
function cardName(given: string | undefined, serverName: string, url: string | undefined): string {
  if (given !== undefined) {
    if (!isCardName(given)) throw new RangeError(`serverCard.name must be reverse-DNS, namespace/name (e.g. com.example/weather; 3 to 200 characters), got ${JSON.stringify(given)}`);
    return given;
  }
  if (isCardName(serverName)) return serverName;
  const host = url === undefined ? undefined : new URL(url).hostname;
  if (host !== undefined && isDomainName(host)) {
    const derived = `${host.split('.').reverse().join('.')}/${serverName.replace(/[^a-zA-Z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'mcp'}`;
    if (isCardName(derived)) return derived;
  }
  throw new RangeError(
    `serverCard: the card needs a reverse-DNS name, namespace/name (e.g. com.example/weather), and none can be derived: the server's name ${JSON.stringify(serverName)} is not one, ` +
      `and ${url === undefined ? 'no public URL is configured' : `the host of ${url} is no domain name`} to take a namespace from. ` +
      'Give serverCard.name, name the server so (@Server({ name: "com.example/weather" })), or give serverCard.url (or auth), whose host becomes the namespace',
  );
}

function isCardName(name: unknown): boolean {
  return typeof name === 'string' && name.length >= 3 && name.length <= 200 && NAME.test(name);
}

/** A DNS name of two labels or more: not an IP address, not `localhost`. */
function isDomainName(host: string): boolean {
  if (host.startsWith('[') || /^\d+(\.\d+){3}$/.test(host)) return false;
  const labels = host.split('.');
  return labels.length >= 2 && labels.every((label) => /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/i.test(label));
}

function cardDescription(given: string | undefined, info: Implementation): string {
  if (given !== undefined) {
    const text = typeof given === 'string' ? given.replace(/\s+/g, ' ').trim() : '';
    if (!text || text.length > TEXT_MAX) throw new RangeError(`serverCard.description must be 1 to ${TEXT_MAX} characters, got ${JSON.stringify(given)}`);
    return text;
  }
  const description = shortened(info.description ?? '');
  if (!description) {
    throw new RangeError(
      `serverCard: the card needs a description, and the server ${JSON.stringify(info.name)} has none: give @Server({ description }) or serverCard.description (1 to ${TEXT_MAX} characters)`,
    );
  }
  return description;
}

/** Text within the draft's 100 characters: whitespace collapsed, and when longer, cut at a word with an ellipsis. */
function shortened(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= TEXT_MAX) return flat;
  const room = flat.slice(0, TEXT_MAX - 1);
  const space = room.lastIndexOf(' ');
  // A word longer than half the room is cut inside rather than leaving little text.
  const cut = flat[TEXT_MAX - 1] === ' ' ? room : space > TEXT_MAX / 2 ? room.slice(0, space) : room;
  return `${cut.replace(/[\s,.;:]+$/, '')}…`;
}

/** An absolute http(s) URL of an MCP endpoint, without credentials in it. */
function endpointUrl(url: unknown, from: string): string {
  let parsed: URL | undefined;
  try {
    parsed = typeof url === 'string' && /^https?:\/\/[^\s]+$/i.test(url) ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!parsed) throw new RangeError(`${from} must be the http(s) URL of the MCP endpoint, e.g. https://mcp.example.com/mcp, got ${JSON.stringify(url)}`);
  if (parsed.username || parsed.password) throw new RangeError(`${from} must not carry credentials: the card is public`);
  return url as string;
}

function isUri(value: unknown): value is string {
  if (typeof value !== 'string' || !URI.test(value)) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

function uri(value: unknown, from: string): string {
  if (!isUri(value)) throw new RangeError(`${from} must be an absolute URL, got ${JSON.stringify(value)}`);
  return value;
}

function repositoryOf(repository: ServerCardRepository): ServerCardRepository {
  if (typeof repository !== 'object' || repository === null) throw new RangeError('serverCard.repository must be { url, source, subfolder?, id? }');
  if (typeof repository.source !== 'string' || !repository.source) throw new RangeError('serverCard.repository.source must name the hosting service, e.g. "github"');
  for (const key of ['subfolder', 'id'] as const) {
    if (repository[key] !== undefined && typeof repository[key] !== 'string') throw new RangeError(`serverCard.repository.${key} must be a string`);
  }
  return compact({ url: uri(repository.url, 'serverCard.repository.url'), source: repository.source, subfolder: repository.subfolder, id: repository.id });
}

function iconsOf(icons: Icon[]): Icon[] {
  if (!Array.isArray(icons)) throw new RangeError('serverCard.icons must be an array of { src, mimeType?, sizes?, theme? }');
  for (const [i, icon] of icons.entries()) uri(icon?.src, `serverCard.icons[${i}].src`);
  return icons;
}

function nonEmpty<T>(list: T[] | undefined): T[] | undefined {
  return list && list.length > 0 ? list : undefined;
}

function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** The draft's CORS headers (MUST): any page may read the card, which is public and read-only. */
const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET',
  'access-control-allow-headers': 'Content-Type, If-None-Match',
  'access-control-expose-headers': 'ETag',
};
const CACHE_CONTROL = 'public, max-age=3600';
/** Distinct public URLs a card is kept rendered for (request Hosts from the allowed list). */
const RENDERED_MAX = 64;

interface Rendered {
  /** Bytes, so that Fastify adds no charset to the media type (JSON has none). */
  body: Buffer;
  etag: string;
}

export interface ServerCardRoutes {
  /** The MCP endpoint's path inside the plugin (`path`): the card is served at `<path>/server-card`. */
  path: string;
  /** The endpoint's full path from the server's root (prefix included), for a URL made from the request. */
  fullPath: string;
  /** Also at /.well-known/mcp/server-card.json: only where the plugin is mounted at the root. */
  wellKnown: boolean;
  policy: OriginHostPolicy;
  logger: Logger;
}

/** Whether a request is for one of the server card's routes. */
export function isServerCardRoute(request: FastifyRequest): boolean {
  return request.routeOptions.config?.serverCard === true;
}

/**
 * Serves the card (GET and HEAD, with an OPTIONS preflight) with the draft's media type, CORS and
 * caching headers, a strong ETag over the body, and 304 for a matching If-None-Match. No token is
 * asked for: the card holds only what any visitor may read.
 */
export function serveServerCard(app: FastifyInstance, card: ResolvedServerCard, routes: ServerCardRoutes): void {
  const render = (url: string | undefined): Rendered => {
    const remotes = url === undefined ? undefined : [{ type: 'streamable-http', url, supportedProtocolVersions: [...ALL_PROTOCOL_VERSIONS] }];
    const body = Buffer.from(JSON.stringify(remotes ? { ...card.fields, remotes } : card.fields));
    return { body, etag: `"${createHash('sha256').update(body).digest('base64url')}"` };
  };
  const fixed = card.url === undefined ? undefined : render(card.url);
  const rendered = new Map<string, Rendered>();
  let warned = false;
  const cardFor = (request: FastifyRequest): Rendered => {
    if (fixed) return fixed;
    const url = requestEndpointUrl(request, routes.policy, routes.fullPath);
    if (url === undefined && !warned) {
      warned = true;
      routes.logger.warn(
        { host: request.host },
        'server card served without remotes: its Host is not one of allowedHosts, or not a loopback name over plain HTTP; set serverCard.url to the public MCP URL',
      );
    }
    const key = url ?? '';
    let found = rendered.get(key);
    if (!found) {
      if (rendered.size >= RENDERED_MAX) rendered.clear();
      rendered.set(key, (found = render(url)));
    }
    return found;
  };
  const get = (request: FastifyRequest, reply: FastifyReply): void => {
    const { body, etag } = cardFor(request);
    reply.headers(CORS_HEADERS).header('cache-control', CACHE_CONTROL).header('etag', etag);
    if (etagMatches(request.headers['if-none-match'], etag)) reply.code(304).send();
    else reply.code(200).header('content-type', SERVER_CARD_MEDIA_TYPE).send(body);
  };
  const preflight = (_request: FastifyRequest, reply: FastifyReply): void => {
    reply.code(204).headers(CORS_HEADERS).header('allow', 'GET, HEAD, OPTIONS').send();
  };
  const config = { serverCard: true };
  const paths = [`${routes.path.replace(/\/+$/, '')}/server-card`, ...(routes.wellKnown ? [SERVER_CARD_WELL_KNOWN_PATH] : [])];
  for (const url of paths) {
    app.route({ method: ['GET', 'HEAD'], url, config, exposeHeadRoute: false, handler: get });
    app.route({ method: 'OPTIONS', url, config, handler: preflight });
  }
}

/**
 * The public MCP URL from a request, only when its Host can be trusted: one of the allowed hosts
 * (`allowedHosts`, default the loopback names), and over plain HTTP only a loopback name (the draft
 * allows HTTP for local development only: an http:// URL for a public host would steer clients
 * away from TLS). `request.host` and `request.protocol` follow X-Forwarded-Host and -Proto only
 * under Fastify's `trustProxy`.
 */
function requestEndpointUrl(request: FastifyRequest, policy: OriginHostPolicy, fullPath: string): string | undefined {
  const host = typeof request.host === 'string' ? request.host.toLowerCase() : '';
  if (!/^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/.test(host)) return undefined;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
  if (!policy.hosts.withPort.has(host) && !policy.hosts.names.has(name)) return undefined;
  const scheme = request.protocol === 'https' ? 'https' : 'http';
  const loopback = name === 'localhost' || name === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(name);
  if (scheme === 'http' && !loopback) return undefined;
  return `${scheme}://${host}${fullPath}`;
}

/** If-None-Match against our ETag: `*`, or any listed tag (weak comparison, as RFC 9110 asks for GET). */
function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
