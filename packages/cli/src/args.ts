import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError } from './errors';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

type Options = NonNullable<ParseArgsConfig['options']>;

/** Parses argv strictly; parse errors become one-line CliErrors that point at the command's help. */
export function parse(command: string, argv: string[], options: Options): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return { values: values as Record<string, string | boolean | undefined>, positionals };
  } catch (err) {
    const code = (err as { code?: string }).code;
    // Node's messages run to several sentences and lines: keep the first.
    const message = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.split('. ')[0]!.replace(/\.$/, '');
    if (code?.startsWith('ERR_PARSE_ARGS')) {
      const unknown = code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION';
      throw new CliError(`${message.charAt(0).toLowerCase()}${message.slice(1)} (see mcpx ${command} --help)`, 2, {
        code: unknown ? 'MCPX_CLI_OPTION_UNKNOWN' : 'MCPX_CLI_USAGE',
        cause: err,
      });
    }
    throw err;
  }
}

/** The one entry file a command takes. */
export function entryOf(command: string, positionals: string[]): string {
  if (positionals.length === 0) throw new CliError(`${command} needs an entry file, e.g. mcpx ${command} dist/server.js (see mcpx ${command} --help)`);
  if (positionals.length > 1) throw new CliError(`${command} takes one entry file, got ${positionals.length}: ${positionals.join(' ')}`);
  return positionals[0]!;
}

/** A flag's value, else the first env var set (non-empty), with where it came from for messages. */
export function pick(value: string | boolean | undefined, flag: string, envs: string[], env: NodeJS.ProcessEnv): { raw: string | boolean; from: string } | undefined {
  if (value !== undefined) return { raw: value, from: `--${flag}` };
  for (const name of envs) {
    const raw = env[name];
    if (raw !== undefined && raw !== '') return { raw, from: name };
  }
  return undefined;
}

export function toPort(v: { raw: string | boolean; from: string } | undefined): number | undefined {
  if (!v) return undefined;
  const text = String(v.raw).trim();
  const n = Number(text);
  if (!/^\d+$/.test(text) || n > 65535) throw new CliError(`${v.from} must be an integer from 0 to 65535, got "${v.raw}"`);
  return n;
}

export function toPositiveMs(v: { raw: string | boolean; from: string } | undefined): number | undefined {
  if (!v) return undefined;
  const text = String(v.raw).trim();
  const n = Number(text);
  if (!/^\d+$/.test(text) || n <= 0) throw new CliError(`${v.from} must be a positive number of milliseconds, got "${v.raw}"`);
  return n;
}

export function toBool(v: { raw: string | boolean; from: string } | undefined): boolean | undefined {
  if (!v) return undefined;
  if (typeof v.raw === 'boolean') return v.raw;
  const text = v.raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(text)) return true;
  if (['0', 'false', 'no', 'off'].includes(text)) return false;
  throw new CliError(`${v.from} must be true or false (1/0, yes/no), got "${v.raw}"`);
}

export function toList(v: { raw: string | boolean; from: string } | undefined): string[] | undefined {
  if (!v) return undefined;
  const items = String(v.raw)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length === 0) throw new CliError(`${v.from} needs a comma-separated list, got "${v.raw}"`);
  return items;
}

/**
 * A comma list of origins as browsers send them (`scheme://host[:port]`, no path), or `*` alone.
 * Checked here so a typo is a usage error naming the flag; @mcpx/http checks (and normalises) again.
 */
export function toOrigins(v: { raw: string | boolean; from: string } | undefined): string[] | undefined {
  const origins = toList(v);
  if (!v || !origins) return undefined;
  if (origins.includes('*')) {
    if (origins.length > 1) throw new CliError(`${v.from}: * stands alone (any origin), got "${v.raw}"`);
    return origins;
  }
  for (const origin of origins) {
    if (!/^[a-z][a-z0-9+.-]*:\/\/[^/?#@\s*]+\/?$/i.test(origin) || origin.toLowerCase() === 'null') {
      throw new CliError(`${v.from} takes origins like https://app.example.com (scheme, host, port; no path), got "${origin}"`);
    }
  }
  return origins;
}

export function toLogLevel(v: { raw: string | boolean; from: string } | undefined): LogLevel | undefined {
  if (!v) return undefined;
  const text = String(v.raw).trim().toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(text)) throw new CliError(`${v.from} must be one of ${LOG_LEVELS.join(', ')}, got "${v.raw}"`);
  return text as LogLevel;
}

export function toPath(v: { raw: string | boolean; from: string } | undefined): string | undefined {
  if (!v) return undefined;
  const text = String(v.raw).trim();
  if (!text.startsWith('/') || /\s/.test(text)) throw new CliError(`${v.from} must be a URL path starting with /, got "${v.raw}"`);
  return text;
}

export function toHost(v: { raw: string | boolean; from: string } | undefined): string | undefined {
  if (!v) return undefined;
  const text = String(v.raw).trim();
  if (!text || /[\s/]/.test(text)) throw new CliError(`${v.from} must be a host name or address, got "${v.raw}"`);
  return text;
}

/** An http(s) URL from a flag or variable, trimmed; one-line usage error otherwise. */
export function toHttpUrl(v: { raw: string | boolean; from: string } | undefined): string | undefined {
  if (!v) return undefined;
  const text = String(v.raw).trim();
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw new CliError(`${v.from} must be an http(s) URL, got "${v.raw}"`);
  return text;
}
