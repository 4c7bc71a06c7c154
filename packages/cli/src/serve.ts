import { resolve } from 'node:path';
import type { McpEngine } from '@mcpx/core/transport';
import type { ListenOptions, RedisSettings } from '@mcpx/http';
import { entryOf, parse, pick, toBool, toHost, toHttpUrl, toList, toLogLevel, toOrigins, toPath, toPort, toPositiveMs, type LogLevel } from './args';
import { CliError, oneLine } from './errors';
import { isMcpxError } from '@mcpx/core/errors';
import { SERVE_HELP } from './help';
import { PROXY_HELP, proxyInstance } from './serve-proxy';
import { OPENAPI_OPTIONS, openApiInstance, openApiSettings, type OpenApiSettings } from './serve-openapi';
import { REDIS_FLAGS, REDIS_OPTIONS, exportRedisSettings, redisSettings, withoutPasswords } from './serve-redis';

const SERVE_OPTIONS = {
  stdio: { type: 'boolean' },
  server: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  path: { type: 'string' },
  stateless: { type: 'boolean' },
  'json-response': { type: 'boolean' },
  'allowed-origins': { type: 'string' },
  'allowed-hosts': { type: 'string' },
  'cors-origin': { type: 'string' },
  'log-level': { type: 'string' },
  'mask-errors': { type: 'boolean' },
  skills: { type: 'string' },
  'session-idle-timeout': { type: 'string' },
  'auth-jwks-url': { type: 'string' },
  'auth-issuer': { type: 'string' },
  'auth-audience': { type: 'string' },
  'auth-scopes-supported': { type: 'string' },
  'auth-authorization-server': { type: 'string' },
  ...REDIS_OPTIONS,
  otel: { type: 'boolean' },
  metrics: { type: 'boolean' },
  'metrics-port': { type: 'string' },
  'server-card': { type: 'boolean' },
  ...OPENAPI_OPTIONS,
  help: { type: 'boolean', short: 'h' },
} as const;

const AUTH_FLAGS = ['auth-jwks-url', 'auth-issuer', 'auth-audience', 'auth-scopes-supported', 'auth-authorization-server'] as const;
const METRICS_FLAGS = ['metrics', 'metrics-port'] as const;
const HTTP_ONLY = [
  'port',
  'host',
  'path',
  'stateless',
  'json-response',
  'allowed-origins',
  'allowed-hosts',
  'cors-origin',
  'session-idle-timeout',
  ...AUTH_FLAGS,
  ...REDIS_FLAGS,
  ...METRICS_FLAGS,
  'server-card',
] as const;
/** The SDK's exporters that print to stdout: over stdio that is the protocol's stream. */
const EXPORTER_VARS = ['OTEL_TRACES_EXPORTER', 'OTEL_METRICS_EXPORTER', 'OTEL_LOGS_EXPORTER'] as const;

/** OAuth resource-server settings from --auth-* / MCPX_AUTH_*: JWTs checked against a JWKS. */
export interface AuthSettings {
  jwksUrl: string;
  issuer: string;
  audience: string;
  scopesSupported?: string[];
  authorizationServers: string[];
}

export interface ServeSettings {
  /** The entry file; empty with `openapi`. */
  entry: string;
  /** --openapi: the description's operations are the tools (no entry file). */
  openapi?: OpenApiSettings;
  stdio: boolean;
  server?: string;
  logLevel: LogLevel;
  /** --mask-errors / MCPX_MASK_ERRORS: unexpected tool errors reach clients as a generic message (undefined: the engine reads the variable). */
  maskErrors?: boolean;
  /** --skills / MCPX_SKILLS: a folder of skills served with the server's own (io.modelcontextprotocol/skills), resolved against the working directory. */
  skills?: string;
  /** --otel / MCPX_OTEL: the OpenTelemetry SDK, exporting over OTLP as the OTEL_* variables say (HTTP and stdio). */
  otel: boolean;
  http: Pick<ListenOptions, 'port' | 'host' | 'path' | 'stateless' | 'jsonResponse' | 'allowedOrigins' | 'allowedHosts' | 'cors' | 'sessionIdleTimeoutMs' | 'metrics' | 'serverCard'>;
  auth?: AuthSettings;
  redis?: RedisSettings;
}

type Picked = { raw: string | boolean; from: string } | undefined;

function authSettings(values: Record<string, unknown>, env: NodeJS.ProcessEnv): AuthSettings | undefined {
  const read = (flag: (typeof AUTH_FLAGS)[number]) => pick(values[flag] as string | undefined, flag, [`MCPX_${flag.replace(/-/g, '_').toUpperCase()}`], env);
  const jwks = read('auth-jwks-url');
  if (!jwks) {
    const stray = AUTH_FLAGS.map(read).find((v) => v !== undefined);
    if (stray) throw new CliError(`${stray.from} needs --auth-jwks-url (MCPX_AUTH_JWKS_URL): auth checks JWTs against a JWKS`);
    return undefined;
  }
  const jwksUrl = toHttpUrl(jwks)!;
  const issuer = read('auth-issuer');
  if (!issuer || !String(issuer.raw).trim()) throw new CliError('--auth-jwks-url needs --auth-issuer (MCPX_AUTH_ISSUER): the issuer tokens must come from');
  const audience = toHttpUrl(read('auth-audience'));
  if (!audience) throw new CliError("--auth-jwks-url needs --auth-audience (MCPX_AUTH_AUDIENCE): this server's public MCP URL, which tokens must be issued for");
  const scopesSupported = toList(read('auth-scopes-supported'));
  const serversPicked = read('auth-authorization-server');
  const servers = toList(serversPicked)?.map((server) => toHttpUrl({ raw: server, from: serversPicked!.from })!);
  return { jwksUrl, issuer: String(issuer.raw).trim(), audience, scopesSupported, authorizationServers: servers ?? [String(issuer.raw).trim()] };
}

/** --cors-origin / MCPX_CORS_ORIGINS: CORS on for those origins (a comma list, or * alone). */
function corsSettings(v: Picked): ListenOptions['cors'] {
  const origins = toOrigins(v);
  return origins && { origins };
}

/**
 * --metrics / MCPX_METRICS and --metrics-port / MCPX_METRICS_PORT: GET /metrics next to the endpoint,
 * or on a port of its own (which turns it on by itself). Undefined when neither says.
 */
function metricsSettings(values: Record<string, unknown>, env: NodeJS.ProcessEnv): ListenOptions['metrics'] {
  const onPicked = pick(values.metrics as boolean | undefined, 'metrics', ['MCPX_METRICS'], env);
  const portPicked = pick(values['metrics-port'] as string | undefined, 'metrics-port', ['MCPX_METRICS_PORT'], env);
  const on = toBool(onPicked);
  const port = toPort(portPicked);
  if (port === undefined) return on;
  if (on === false) throw new CliError(`${portPicked!.from} serves /metrics on a port of its own, but ${onPicked!.from} turns metrics off`);
  return { port };
}

/** Over stdio, an OTEL_*_EXPORTER that prints to stdout would write into the protocol: refused before anything starts. */
function checkStdoutExporters(env: NodeJS.ProcessEnv): void {
  for (const name of EXPORTER_VARS) {
    const exporters = (env[name] ?? '').split(',').map((e) => e.trim());
    if (exporters.includes('console')) throw new CliError(`${name}=console writes to stdout, which --stdio keeps for the protocol: use otlp (or serve over HTTP)`);
  }
}

/** Flags first, then MCPX_* (and PORT/HOST) from the environment; every value checked. */
export function serveSettings(argv: string[], env: NodeJS.ProcessEnv = process.env, command: 'serve' | 'proxy' = 'serve'): ServeSettings | 'help' {
  const { values, positionals } = parse(command, argv, SERVE_OPTIONS);
  if (values.help) return 'help';
  if (command === 'proxy') {
    if (values.openapi !== undefined || values.server !== undefined)
      throw new CliError(`--${values.openapi !== undefined ? 'openapi' : 'server'} is a flag of mcpx serve: mcpx proxy serves the servers its CONFIG names`);
    if (positionals.length !== 1)
      throw new CliError(`proxy takes one CONFIG file (an "mcpServers" JSON file, as Claude Desktop's), got ${positionals.length ? positionals.join(' ') : 'none'}`);
  }
  const openapi = command === 'proxy' ? undefined : openApiSettings(values, env);
  if (openapi && positionals.length > 0) throw new CliError(`--openapi serves the description's operations: give it no entry file (got ${positionals.join(' ')})`);
  if (openapi && values.server !== undefined) throw new CliError('--server picks a class in an entry file: --openapi has none');
  const entry = openapi ? '' : entryOf(command, positionals);
  const stdio = values.stdio === true;
  if (stdio) {
    const misplaced = HTTP_ONLY.filter((flag) => values[flag] !== undefined);
    if (misplaced.length) {
      const why = (METRICS_FLAGS as readonly string[]).includes(misplaced[0]!) ? ': /metrics is served over HTTP (--otel exports metrics over OTLP from stdio too)' : '';
      throw new CliError(`--${misplaced[0]} applies to HTTP only, not --stdio${why}`);
    }
  }
  const server = values.server as string | undefined;
  if (server !== undefined && !server.trim()) throw new CliError('--server needs a class name');
  const logLevel = toLogLevel(pick(values['log-level'], 'log-level', ['MCPX_LOG_LEVEL'], env)) ?? 'info';
  const otel = toBool(pick(values.otel, 'otel', ['MCPX_OTEL'], env)) ?? false;
  const maskErrors = toBool(pick(values['mask-errors'], 'mask-errors', ['MCPX_MASK_ERRORS'], env));
  const skills = toFolder(pick(values.skills, 'skills', ['MCPX_SKILLS'], env));
  const common = { entry, stdio, server, logLevel, otel, ...(maskErrors !== undefined ? { maskErrors } : {}), ...(skills ? { skills } : {}), ...(openapi ? { openapi } : {}) };
  if (stdio) {
    if (otel) checkStdoutExporters(env);
    return { ...common, http: {} };
  }
  const http: ServeSettings['http'] = {
    port: toPort(pick(values.port, 'port', ['MCPX_PORT', 'PORT'], env)) ?? 3000,
    host: toHost(pick(values.host, 'host', ['MCPX_HOST', 'HOST'], env)) ?? '127.0.0.1',
    path: toPath(pick(values.path, 'path', ['MCPX_PATH'], env)),
    stateless: toBool(pick(values.stateless, 'stateless', ['MCPX_STATELESS'], env)),
    jsonResponse: toBool(pick(values['json-response'], 'json-response', ['MCPX_JSON_RESPONSE'], env)),
    allowedOrigins: toList(pick(values['allowed-origins'], 'allowed-origins', ['MCPX_ALLOWED_ORIGINS'], env)),
    allowedHosts: toList(pick(values['allowed-hosts'], 'allowed-hosts', ['MCPX_ALLOWED_HOSTS'], env)),
    cors: corsSettings(pick(values['cors-origin'], 'cors-origin', ['MCPX_CORS_ORIGINS'], env)),
    sessionIdleTimeoutMs: toPositiveMs(pick(values['session-idle-timeout'], 'session-idle-timeout', ['MCPX_SESSION_IDLE_TIMEOUT'], env)),
    metrics: metricsSettings(values, env),
    // --server-card / MCPX_SERVER_CARD: the experimental MCP server card (docs/transports.md).
    serverCard: toBool(pick(values['server-card'], 'server-card', ['MCPX_SERVER_CARD'], env)),
  };
  for (const key of Object.keys(http) as (keyof typeof http)[]) if (http[key] === undefined) delete http[key];
  const auth = authSettings(values, env);
  const redis = redisSettings(values, env);
  return { ...common, http, ...(auth ? { auth } : {}), ...(redis ? { redis } : {}) };
}

/** --skills / MCPX_SKILLS: a folder, made absolute against the working directory (whether it exists is the server's to say, at startup). */
function toFolder(v: Picked): string | undefined {
  if (!v) return undefined;
  const text = String(v.raw).trim();
  if (!text) throw new CliError(`${v.from} needs a folder of skills`);
  return resolve(text);
}

/** Redis could not be reached (or @mcpx/redis is missing): not a listen error, whatever its code. */
function isRedisFailure(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return isMcpxError(err, 'MCPX_CLUSTER_UNAVAILABLE') || /\bredis\b/i.test(err.message);
}

/** OpenTelemetry could not start (@mcpx/otel missing, or an SDK registered already): not a listen error either. */
function isOtelFailure(err: unknown): boolean {
  return err instanceof Error && /OpenTelemetry|@mcpx\/otel/.test(err.message);
}

/** `mcpx serve`: resolves once serving has started; the transports stop the process on SIGTERM/SIGINT (exit 0). */
export async function runServe(argv: string[], command: 'serve' | 'proxy' = 'serve'): Promise<number | 'serving'> {
  const settings = serveSettings(argv, process.env, command);
  if (settings === 'help') {
    process.stdout.write(command === 'proxy' ? PROXY_HELP : SERVE_HELP);
    return 0;
  }
  // Over stdio, stdout is the protocol's from here on: what the entry's modules print while they
  // load (a console.log at the top level, a banner) goes to stderr.
  if (settings.stdio) (await import('@mcpx/stdio')).guardStdout();
  // Loaded only now: a usage error never pays for the framework.
  const { createEngine } = await import('@mcpx/core');
  const { getServerOptions } = await import('@mcpx/core/registry');
  const { definitionFailure, loadServer } = await import('./load-entry');
  if (settings.redis) {
    exportRedisSettings(settings.redis);
  }
  const { createLogger } = await import('./logger');
  const { name, instance } =
    command === 'proxy' ? await proxyInstance(settings.entry) : settings.openapi ? await openApiInstance(settings.openapi) : await loadServer(settings.entry, settings.server);
  const logger = createLogger({
    name: getServerOptions(instance.constructor)?.name ?? name,
    level: settings.logLevel,
    stream: settings.stdio ? 'stderr' : 'stdout',
  });
  if (settings.stdio) {
    let engine: McpEngine;
    try {
      engine = createEngine(instance, { logger, ...(settings.maskErrors !== undefined ? { maskErrors: settings.maskErrors } : {}), ...(settings.skills ? { skills: settings.skills } : {}) });
    } catch (err) {
      throw definitionFailure(err) ?? err;
    }
    const { serveStdio } = await import('@mcpx/stdio');
    serveStdio(engine, { logger, otel: settings.otel });
    return 'serving';
  }
  const { listen, jwtVerifier } = await import('@mcpx/http');
  const auth = settings.auth && {
    resource: settings.auth.audience,
    authorizationServers: settings.auth.authorizationServers,
    scopesSupported: settings.auth.scopesSupported,
    verifier: jwtVerifier({ jwksUrl: settings.auth.jwksUrl, issuer: settings.auth.issuer, audience: settings.auth.audience }),
  };
  try {
    // listen() builds the engine itself: with `redis`, it first joins the other instances (loading
    // @mcpx/redis), and the engine is built to share its sessions with them.
    // Both passed as decided here, so listen() does not read MCPX_OTEL or MCPX_METRICS again by rules of its own.
    await listen(instance, {
      ...settings.http,
      metrics: settings.http.metrics ?? false,
      otel: settings.otel,
      logger,
      ...(settings.maskErrors !== undefined ? { maskErrors: settings.maskErrors } : {}),
      ...(settings.skills ? { skills: settings.skills } : {}),
      ...(auth ? { auth } : {}),
      ...(settings.redis ? { redis: settings.redis } : {}),
    });
  } catch (err) {
    const invalid = definitionFailure(err);
    if (invalid) throw invalid;
    if (err instanceof RangeError) throw new CliError(oneLine(err));
    if (settings.redis && isRedisFailure(err)) throw new CliError(`cannot start: ${withoutPasswords(oneLine(err))}`, 1);
    if (settings.otel && isOtelFailure(err)) throw new CliError(`cannot start: ${oneLine(err)}`, 1);
    const { code, port } = err as { code?: string; port?: number };
    const metrics = settings.http.metrics;
    // The port /metrics has to itself fails with its own number, not the endpoint's.
    const metricsPort = typeof metrics === 'object' && metrics.port !== 0 && port === metrics.port && port !== settings.http.port;
    const where = `${settings.http.host}:${metricsPort ? `${port} (--metrics-port)` : settings.http.port}`;
    const reason = code === 'EADDRINUSE' ? 'address already in use' : code === 'EADDRNOTAVAIL' ? 'address not available' : code === 'EACCES' ? 'permission denied' : oneLine(err);
    throw new CliError(`cannot listen on ${where}: ${reason}`, 1);
  }
  return 'serving';
}
