import type { McpEngine } from '@mcpx/core/transport';
import { parse, pick, toLogLevel, toPositiveMs } from './args';
import { ServerRequests, parseAnswer } from './call-answers';
import { RpcFailure, type McpClient } from './client';
import { CliError, oneLine } from './errors';
import { CALL_HELP, PROMPT_HELP, READ_HELP } from './help';

const OPTIONS = {
  json: { type: 'boolean' },
  header: { type: 'string', multiple: true },
  server: { type: 'string' },
  timeout: { type: 'string' },
  answer: { type: 'string', multiple: true },
  'log-level': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Command = 'call' | 'read' | 'prompt';

interface Spec {
  help: string;
  /** The positionals after the target, by name; `[json]` is optional. */
  usage: string;
  example: string;
  method: string;
}

const SPECS: Record<Command, Spec> = {
  call: { help: CALL_HELP, usage: 'a tool name', example: `mcpx call dist/server.js search '{"query":"milk"}'`, method: 'tools/call' },
  read: { help: READ_HELP, usage: 'a resource URI', example: 'mcpx read dist/server.js notes://index', method: 'resources/read' },
  prompt: { help: PROMPT_HELP, usage: 'a prompt name', example: `mcpx prompt dist/server.js summarize '{"noteId":"1"}'`, method: 'prompts/get' },
};

const DEFAULT_TIMEOUT_MS = 60_000;

/** An http(s) URL names a running server; anything else is an entry file. */
function urlOf(target: string): URL | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) return undefined;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new CliError(`"${target}" is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`only http(s) URLs name a running server, got ${url.protocol}//`);
  return url;
}

/** `Name: value` headers, as curl takes them. */
function headersOf(raw: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const header of raw) {
    const colon = header.indexOf(':');
    const name = colon > 0 ? header.slice(0, colon).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new CliError(`--header must look like 'Name: value', got "${header}"`);
    headers[name.toLowerCase()] = header.slice(colon + 1).trim();
  }
  return headers;
}

/** The optional JSON argument: an object (for prompts, of strings). */
function argumentsOf(command: Command, text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CliError(`arguments must be a JSON object, e.g. '{"query":"milk"}': ${oneLine(err)}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new CliError(`arguments must be a JSON object, e.g. '{"query":"milk"}', got ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}`);
  }
  if (command === 'prompt') {
    for (const [name, v] of Object.entries(value)) {
      if (typeof v !== 'string') throw new CliError(`prompt arguments are strings: ${name} is ${JSON.stringify(v)}; write it as ${JSON.stringify(String(JSON.stringify(v)))}`);
    }
  }
  return value as Record<string, unknown>;
}

async function clientFor(target: string, values: Record<string, unknown>, timeoutMs: number, requests: ServerRequests): Promise<{ client: McpClient; local: boolean }> {
  const url = urlOf(target);
  const headers = (values.header as string[] | undefined) ?? [];
  if (url) {
    if (values.server !== undefined) throw new CliError('--server picks a class in an entry file; a URL serves one server');
    const { HttpClient } = await import('./client-http');
    if (values['log-level'] !== undefined) throw new CliError('--log-level applies to entry files: a URL is a server that logs where it runs');
    return { client: new HttpClient(url, headersOf(headers), timeoutMs, requests), local: false };
  }
  if (headers.length > 0) throw new CliError('--header applies to URLs: an entry file is run in this process, over no HTTP');
  // Loaded only now: a usage error never pays for the framework.
  const { createEngine } = await import('@mcpx/core');
  const { definitionFailure, loadServer } = await import('./load-entry');
  const { LocalClient } = await import('./client-local');
  const { createLogger } = await import('./logger');
  // The server's own log lines on stderr, so a failure shows its cause ('tool failed' and the error), not only the message the client got.
  const level = toLogLevel(pick(values['log-level'] as string | undefined, 'log-level', ['MCPX_LOG_LEVEL'], process.env)) ?? 'warn';
  const { name, instance } = await loadServer(target, values.server as string | undefined);
  let engine: McpEngine;
  try {
    engine = createEngine(instance, { logger: createLogger({ name, level, stream: 'stderr' }) });
  } catch (err) {
    throw definitionFailure(err) ?? err;
  }
  return { client: new LocalClient(engine, timeoutMs, requests), local: true };
}

/** The entry's own console output goes to stderr while it runs: stdout is for the result. */
function stdoutToStderr(): () => void {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be put back as it was
  const write = process.stdout.write;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with its receiver
  process.stdout.write = ((...args: unknown[]) => Reflect.apply(process.stderr.write, process.stderr, args) as boolean) as typeof process.stdout.write;
  return () => {
    process.stdout.write = write;
  };
}

async function run(command: Command, argv: string[]): Promise<number> {
  const spec = SPECS[command];
  const { values, positionals } = parse(command, argv, OPTIONS);
  if (values.help) {
    process.stdout.write(spec.help);
    return 0;
  }
  if (positionals.length < 2) throw new CliError(`${command} needs a server (entry file or URL) and ${spec.usage}, e.g. ${spec.example} (see mcpx ${command} --help)`);
  const most = command === 'read' ? 2 : 3;
  if (positionals.length > most) throw new CliError(`${command} takes at most ${most} arguments, got ${positionals.length}: quote the JSON arguments as one (see mcpx ${command} --help)`);
  const [target, name, json] = positionals as [string, string, string | undefined];
  const args = argumentsOf(command, json);
  const timeoutMs = toPositiveMs(pick(values.timeout, 'timeout', [], {})) ?? DEFAULT_TIMEOUT_MS;
  const params = command === 'read' ? { uri: name } : { name, ...(args ? { arguments: args } : {}) };

  const answers = ((values.answer as string[] | undefined) ?? []).map(parseAnswer);
  // A form is asked on a terminal when no --answer is left; piped, the server is told there is no one to ask.
  const requests = new ServerRequests(answers, Boolean(process.stdin.isTTY && process.stderr.isTTY));
  const { client, local } = await clientFor(target, values, timeoutMs, requests);
  const restore = local ? stdoutToStderr() : () => {};
  let result: Record<string, unknown>;
  try {
    await client.connect();
    result = await client.request(spec.method, params);
  } catch (err) {
    // A JSON-RPC error: the request was wrong (unknown tool, bad arguments, no such resource).
    if (err instanceof RpcFailure) throw new CliError(`${err.method} failed (${err.rpcCode}): ${oneLine(err.message)}`, 2, { cause: err });
    throw err;
  } finally {
    restore();
    await client.close();
  }

  if (values.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return result.isError === true ? 1 : 0;
  }
  const { formatPromptResult, formatReadResult, formatToolResult } = await import('./call-output');
  if (command === 'call') {
    const text = formatToolResult(result);
    if (result.isError === true) {
      process.stderr.write(text || `${name} failed without saying why\n`);
      return 1;
    }
    process.stdout.write(text);
  } else process.stdout.write(command === 'read' ? formatReadResult(result) : formatPromptResult(result));
  return 0;
}

/** `mcpx call <entry-or-url> <tool> [json]`: calls a tool once and prints its result. */
export const runCall = (argv: string[]) => run('call', argv);
/** `mcpx read <entry-or-url> <uri>`: reads a resource once and prints its contents. */
export const runRead = (argv: string[]) => run('read', argv);
/** `mcpx prompt <entry-or-url> <name> [json]`: gets a prompt and prints its messages. */
export const runPrompt = (argv: string[]) => run('prompt', argv);
