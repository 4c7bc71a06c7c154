import { existsSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { CliError } from './errors';
import { DEV_HELP } from './help';
import { serveSettings } from './serve';

export interface DevSettings {
  /** The entry, absolute. */
  entry: string;
  stdio: boolean;
  /** Folders to watch, absolute. */
  roots: string[];
  /** argv for `mcpx serve`, as given (less dev's own flags). */
  serveArgs: string[];
  /** Where HTTP serves (undefined over stdio). */
  http?: { host: string; port: number; path: string };
}

/** Takes dev's own flag (--watch, repeatable) out of argv; the rest is for `mcpx serve`. */
function splitWatch(argv: string[]): { watch: string[]; rest: string[] } {
  const watch: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (arg.startsWith('--watch=')) watch.push(arg.slice('--watch='.length));
    else if (arg === '--watch') {
      const value = argv[++i];
      if (value === undefined || value.startsWith('-')) throw new CliError("option '--watch <dir>' argument missing (see mcpx dev --help)");
      watch.push(value);
    } else rest.push(arg);
  }
  return { watch, rest };
}

/** The folder holding the entry's package.json (its project), else the entry's own folder. */
function projectFolder(file: string): string {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return dirname(file);
  }
}

/** dev takes serve's flags, checked by serve's own parser: its messages should name dev. */
function asDev(err: unknown): unknown {
  if (!(err instanceof CliError)) return err;
  return new CliError(err.message.replace(/\bmcpx serve\b/g, 'mcpx dev').replace(/^serve (needs|takes) /, 'dev $1 '), err.exitCode, { code: err.code, cause: err });
}

export function devSettings(argv: string[], env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): DevSettings | 'help' {
  const { watch, rest } = splitWatch(argv);
  let serve: ReturnType<typeof serveSettings>;
  try {
    serve = serveSettings(rest, env);
  } catch (err) {
    throw asDev(err);
  }
  if (serve === 'help') return 'help';
  const entry = resolve(cwd, serve.entry);
  if (!existsSync(entry) || !statSync(entry).isFile()) throw new CliError(`cannot find entry file ${serve.entry} (looked at ${entry})`);
  const roots = watch.map((dir) => {
    const path = resolve(cwd, dir);
    if (!existsSync(path) || !statSync(path).isDirectory()) throw new CliError(`--watch needs a folder, got "${dir}" (looked at ${path})`);
    return path;
  });
  if (roots.length === 0) roots.push(projectFolder(entry));
  const http = serve.stdio ? undefined : { host: serve.http.host ?? '127.0.0.1', port: serve.http.port ?? 3000, path: serve.http.path ?? '/mcp' };
  return { entry, stdio: serve.stdio, roots, serveArgs: ['serve', ...rest], http };
}

/**
 * Every process the supervisor starts must bind the same port: port 0 becomes a free port now,
 * and a port in use fails now rather than at each reload.
 */
function claimPort(host: string, port: number): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => {
      const reason =
        err.code === 'EADDRINUSE' ? 'address already in use' : err.code === 'EADDRNOTAVAIL' ? 'address not available' : err.code === 'EACCES' ? 'permission denied' : err.message;
      reject(new CliError(`cannot listen on ${host}:${port}: ${reason}`, 1));
    });
    probe.listen(port, host, () => {
      const address = probe.address();
      const bound = typeof address === 'object' && address ? address.port : port;
      probe.close(() => resolvePort(bound));
    });
  });
}

/** `mcpx dev`: serves the entry, reloading it whenever a watched file changes, until a signal. */
export async function runDev(argv: string[]): Promise<number | 'serving'> {
  const settings = devSettings(argv);
  if (settings === 'help') {
    process.stdout.write(DEV_HELP);
    return 0;
  }
  const serveArgs = [...settings.serveArgs];
  let url: string | undefined;
  if (settings.http) {
    const { host, path } = settings.http;
    const port = await claimPort(host, settings.http.port);
    serveArgs.push('--port', String(port)); // the last --port wins, over the environment too
    // As listen() names it: a wildcard address is reached on loopback.
    url = `http://${host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host}:${port}${path}`;
  }
  const { DevSupervisor } = await import('./dev-supervisor');
  const supervisor = new DevSupervisor({
    entry: settings.entry,
    serveArgs,
    stdio: settings.stdio,
    url,
    roots: settings.roots,
    say: (line) => process.stderr.write(`mcpx dev: ${line}\n`),
  });
  const onSignal = () => void supervisor.stop();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  void supervisor.stopped.then(() => process.exit(0));
  await supervisor.start();
  return 'serving';
}
