import { readFile } from 'node:fs/promises';
import { ProxyError } from './proxy-error';

/**
 * A gateway's configuration: the `mcpServers` object of Claude Desktop, Claude Code and Cursor
 * (`servers` in VS Code's mcp.json), each entry a server started over stdio (`command`, `args`,
 * `env`, `cwd`) or reached over HTTP (`url`, `headers`; `type: "sse"` for the old HTTP+SSE
 * transport). Its entries are served under their key as a prefix (`github_create_issue`) unless it
 * sets `prefix`: another one, or `false` for none. `${NAME}` and `${env:NAME}` in any string
 * are taken from the environment, so credentials need not be written in the file.
 */
export interface ProxyConfig {
  readonly upstreams: readonly UpstreamConfig[];
}

export type UpstreamConfig = StdioUpstreamConfig | HttpUpstreamConfig;

interface UpstreamCommon {
  /** The entry's key in the file: how logs and errors name it. */
  readonly key: string;
  /** Its entries' prefix (`<prefix>_<name>`, `scheme://<prefix>/...`); undefined: served as they are. */
  readonly prefix: string | undefined;
  /**
   * The scopes a caller needs (with auth on) for its entries, by the upstream's own tool or prompt
   * name or resource URI; `"*"` for every entry it has no line for.
   */
  readonly scopes: Readonly<Record<string, readonly string[]>>;
}

export interface StdioUpstreamConfig extends UpstreamCommon {
  readonly transport: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  /** Added to a small inherited environment (PATH, HOME...), as the SDK's stdio transport does. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

export interface HttpUpstreamConfig extends UpstreamCommon {
  readonly transport: 'http' | 'sse';
  readonly url: string;
  /** Sent with every request to it (an API key, a bearer token); never shown to downstream clients. */
  readonly headers: Readonly<Record<string, string>>;
}

/** What a prefix may be: it becomes part of tool names and of URIs. */
const PREFIX = /^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/;
const KEYS = new Set(['command', 'args', 'env', 'cwd', 'url', 'headers', 'type', 'transport', 'prefix', 'scopes', 'disabled', 'description']);

/** Reads and checks a CONFIG file. */
export async function loadProxyConfig(file: string, env: NodeJS.ProcessEnv = process.env): Promise<ProxyConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ProxyError(`cannot read ${file}: ${(err as Error).message}`, { cause: err });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ProxyError(`${file} is not JSON: ${(err as Error).message}`, { cause: err });
  }
  return parseProxyConfig(json, env, file);
}

/** Checks a configuration object (what a CONFIG file holds). */
export function parseProxyConfig(json: unknown, env: NodeJS.ProcessEnv = process.env, where = 'the proxy configuration'): ProxyConfig {
  if (!isRecord(json)) throw new ProxyError(`${where} must be a JSON object with "mcpServers"`);
  const servers = json.mcpServers ?? json.servers;
  if (!isRecord(servers)) throw new ProxyError(`${where} has no "mcpServers" object (or VS Code's "servers")`);
  const upstreams: UpstreamConfig[] = [];
  const prefixes = new Map<string, string>();
  for (const key of Object.keys(servers)) {
    const entry = servers[key];
    const at = `${where}: "${key}"`;
    if (!isRecord(entry)) throw new ProxyError(`${at} must be an object`);
    if (entry.disabled === true) continue;
    const unknown = Object.keys(entry).filter((k) => !KEYS.has(k));
    if (unknown.length) throw new ProxyError(`${at} has ${unknown.map((k) => `"${k}"`).join(', ')}, which a server entry does not take`);
    const upstream = upstreamOf(key, entry, at, env);
    if (upstream.prefix !== undefined) {
      const other = prefixes.get(upstream.prefix);
      if (other) throw new ProxyError(`${at} and "${other}" would both serve under the prefix "${upstream.prefix}": set "prefix" on one of them`);
      prefixes.set(upstream.prefix, key);
    }
    upstreams.push(upstream);
  }
  if (upstreams.length === 0) throw new ProxyError(`${where} names no server to proxy`);
  return { upstreams };
}

function upstreamOf(key: string, entry: Record<string, unknown>, at: string, env: NodeJS.ProcessEnv): UpstreamConfig {
  const prefix = prefixOf(key, entry.prefix, at);
  const scopes = scopesOf(entry.scopes, `${at}: "scopes"`);
  const type = entry.type ?? entry.transport;
  if (type !== undefined && !['stdio', 'http', 'streamable-http', 'streamableHttp', 'sse'].includes(type as string)) {
    throw new ProxyError(`${at}: "type" must be "stdio", "http" or "sse", got ${JSON.stringify(type)}`);
  }
  if (entry.url !== undefined || (type !== undefined && type !== 'stdio')) {
    if (entry.command !== undefined) throw new ProxyError(`${at} has both "command" and "url": a server is started or reached, not both`);
    const url = expand(stringOf(entry.url, `${at}: "url"`), `${at}: "url"`, env);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ProxyError(`${at}: "url" is not a URL: ${url}`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ProxyError(`${at}: "url" must be http or https, got ${parsed.protocol}`);
    return { key, prefix, scopes, transport: type === 'sse' ? 'sse' : 'http', url, headers: stringsOf(entry.headers, `${at}: "headers"`, env) };
  }
  const command = expand(stringOf(entry.command, `${at}: "command" (or "url")`), `${at}: "command"`, env);
  const args = entry.args === undefined ? [] : arrayOfStrings(entry.args, `${at}: "args"`).map((arg, i) => expand(arg, `${at}: "args"[${i}]`, env));
  const cwd = entry.cwd === undefined ? undefined : expand(stringOf(entry.cwd, `${at}: "cwd"`), `${at}: "cwd"`, env);
  return { key, prefix, scopes, transport: 'stdio', command, args, env: stringsOf(entry.env, `${at}: "env"`, env), ...(cwd !== undefined ? { cwd } : {}) };
}

function prefixOf(key: string, value: unknown, at: string): string | undefined {
  if (value === false || value === null || value === '') return undefined;
  const prefix = value === undefined ? key : value;
  if (typeof prefix !== 'string' || !PREFIX.test(prefix)) {
    const what = value === undefined ? `its key "${key}" is its prefix, but` : `"prefix" ${JSON.stringify(value)}`;
    throw new ProxyError(`${at}: ${what} a prefix must be 1-64 letters, digits or "-" (set "prefix" to one, or to false for none)`);
  }
  return prefix;
}

/** `${NAME}` and `${env:NAME}` from the environment; `$${` writes a literal `${`. A variable that is not set is an error. */
function expand(value: string, at: string, env: NodeJS.ProcessEnv): string {
  return value.replace(/\$?\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => {
    if (whole.startsWith('$$')) return whole.slice(1);
    const found = env[name];
    if (found === undefined) throw new ProxyError(`${at} uses \${${name}}, which is not set in the environment`);
    return found;
  });
}

function scopesOf(value: unknown, at: string): Record<string, string[]> {
  if (value === undefined) return {};
  if (!isRecord(value)) throw new ProxyError(`${at} must be an object: { "<tool, prompt or resource URI>": ["scope", ...], "*": [...] }`);
  const out = new Map<string, string[]>();
  for (const name of Object.keys(value)) out.set(name, arrayOfStrings(value[name], `${at}: "${name}"`));
  return Object.fromEntries(out);
}

function stringOf(value: unknown, at: string): string {
  if (typeof value !== 'string' || value === '') throw new ProxyError(`${at} must be a non-empty string`);
  return value;
}

function arrayOfStrings(value: unknown, at: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new ProxyError(`${at} must be an array of strings`);
  return value as string[];
}

function stringsOf(value: unknown, at: string, env: NodeJS.ProcessEnv): Record<string, string> {
  if (value === undefined) return {};
  if (!isRecord(value)) throw new ProxyError(`${at} must be an object of strings`);
  const out: Record<string, string> = {};
  for (const name of Object.keys(value)) {
    const v = value[name];
    if (typeof v !== 'string') throw new ProxyError(`${at}: "${name}" must be a string`);
    Object.defineProperty(out, name, { value: expand(v, `${at}: "${name}"`, env), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** How logs and errors name an upstream: its key, and what it runs or where it is (never its credentials). */
export function labelOf(config: UpstreamConfig): string {
  return config.transport === 'stdio' ? `"${config.key}" (${config.command})` : `"${config.key}" (${new URL(config.url).origin})`;
}
