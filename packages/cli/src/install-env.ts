import { execFile, type ExecFileException } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface, type Interface } from 'node:readline';
import { Writable } from 'node:stream';
import { CliError, oneLine } from './errors';
import { envVariables, type EnvDeclaration, type EnvVariable, type PackageJson } from './manifest-build';

/**
 * The environment variables `mcpx install` asks for: those the server declares required in its
 * package.json (`mcpx.env`, the declaration `mcpx manifest` publishes) and --env did not give. On a
 * terminal each is asked for; elsewhere the entry is written without them and they are named on
 * stderr, so a script never waits on a question nobody sees.
 */

/** How long `npm view` may take: a bound on an unreachable registry, not a speed. */
const LOOKUP_TIMEOUT_MS = 15_000;

/** Where a server's variables are declared: its project's package.json, or a published package's. */
export type EnvSource = { kind: 'project'; manifest: string } | { kind: 'published'; spec: string };

/** The terminal and the registry, passed in so tests can stand in for both. */
export interface EnvIo {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  /** A published package's package.json `mcpx` field (undefined when it has none); throws when it cannot be looked up. */
  lookup(spec: string, cwd: string): Promise<unknown>;
}

/** The variables the server declares; none, said on stderr, when a published package's cannot be looked up. */
export async function declaredEnv(source: EnvSource | undefined, io: EnvIo, cwd: string): Promise<EnvVariable[]> {
  if (!source) return [];
  // The user's own package.json: a wrong declaration is theirs to fix, as `mcpx manifest` would say.
  if (source.kind === 'project') return envVariables(envField(readManifest(source.manifest).mcpx)) ?? [];
  try {
    return envVariables(envField(await io.lookup(source.spec, cwd))) ?? [];
  } catch (err) {
    process.stderr.write(`mcpx: cannot look up the environment variables ${source.spec} declares (${oneLine(err)}): none asked for; give any it needs with --env KEY=VALUE\n`);
    return [];
  }
}

/**
 * `given` (--env) with the required variables it lacks: asked for on a terminal (a declared default
 * is offered), else the default, else left out and named on stderr.
 */
export async function withRequired(given: Record<string, string> | undefined, declared: EnvVariable[], io: EnvIo, server: string): Promise<Record<string, string> | undefined> {
  const missing = declared.filter((v) => v.isRequired && !(given && Object.prototype.hasOwnProperty.call(given, v.name)));
  if (missing.length === 0) return given;
  if (io.input.isTTY && io.output.isTTY) return { ...given, ...(await ask(missing, io, server)) };
  const defaults = Object.fromEntries(missing.filter((v) => v.default !== undefined).map((v) => [v.name, v.default!]));
  const unset = missing.filter((v) => v.default === undefined).map((v) => v.name);
  if (unset.length > 0) {
    process.stderr.write(
      `mcpx: "${server}" requires ${listed(unset)}, left out of the entry (no terminal to ask on): give ${unset.length === 1 ? 'it' : 'them'} with ${unset.map((n) => `--env ${n}=...`).join(' ')}\n`,
    );
  }
  return Object.keys(defaults).length > 0 ? { ...given, ...defaults } : given;
}

/** The terminal's answers, one variable at a time; a secret's typing is not echoed. */
async function ask(missing: EnvVariable[], io: EnvIo, server: string): Promise<Record<string, string>> {
  const screen = new Screen(io.output);
  const rl = createInterface({ input: io.input, output: screen, terminal: true, historySize: 0 });
  let closed = false;
  rl.once('close', () => (closed = true));
  try {
    io.output.write(`"${server}" requires ${missing.length === 1 ? 'this variable' : 'these variables'}; the answers go into its entry's "env" (Ctrl-C stops):\n`);
    const answers: [string, string][] = [];
    for (const variable of missing) {
      for (;;) {
        const hint = [variable.default !== undefined ? `default ${printable(variable.default)}` : undefined, variable.isSecret ? 'hidden' : undefined].filter(Boolean);
        const prompt = `${variable.name} (${printable(variable.description)})${hint.length ? ` [${hint.join(', ')}]` : ''}: `;
        const line = closed ? undefined : await answer(rl, screen, prompt, variable.isSecret === true);
        if (line === undefined) throw new CliError(`stopped before ${variable.name} was given: nothing was written (it can also be given with --env ${variable.name}=...)`, 1);
        const value = line.trim() || variable.default;
        if (value !== undefined) {
          answers.push([variable.name, value]);
          break;
        }
        io.output.write(`  ${variable.name} is required: type its value, or Ctrl-C to stop\n`);
      }
    }
    // fromEntries: a variable named __proto__ stays a variable.
    return Object.fromEntries(answers);
  } finally {
    if (!closed) rl.close();
  }
}

/** The next line typed after `prompt`, or undefined when the terminal closes (Ctrl-C, Ctrl-D). */
function answer(rl: Interface, screen: Screen, prompt: string, hidden: boolean): Promise<string | undefined> {
  return new Promise((resolve) => {
    const done = (line?: string): void => {
      rl.off('line', done);
      rl.off('close', done);
      screen.muted = false;
      // readline's own line end was muted with the secret (or, on Ctrl-C, never written).
      if (hidden || line === undefined) screen.target.write('\n');
      resolve(line);
    };
    rl.on('line', done);
    rl.on('close', done);
    if (hidden) {
      // The prompt is written past readline, which then redraws only the (muted) typing.
      screen.target.write(prompt);
      screen.muted = true;
      rl.setPrompt('');
    } else rl.setPrompt(prompt);
    rl.prompt();
  });
}

/** What readline writes to: the terminal, silenced while a secret is typed so its echo never shows. */
class Screen extends Writable {
  muted = false;

  constructor(readonly target: EnvIo['output']) {
    super();
  }

  /** readline wraps long lines at the terminal's width. */
  get columns(): number | undefined {
    return this.target.columns;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (!this.muted) this.target.write(chunk);
    done();
  }
}

/** Text from a package.json, possibly a stranger's, without the control characters that would drive the terminal. */
function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');
}

function listed(names: string[]): string {
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`;
}

/** `mcpx.env` of a package.json's `mcpx` field, whatever shape the field has. */
function envField(mcpx: unknown): Record<string, EnvDeclaration> | undefined {
  // envVariables checks what is inside.
  return mcpx !== null && typeof mcpx === 'object' ? (mcpx as { env?: Record<string, EnvDeclaration> }).env : undefined;
}

function readManifest(path: string): PackageJson {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as PackageJson;
  } catch (err) {
    throw new CliError(`cannot read the environment variables ${path} declares: ${oneLine(err)}`, 2, { cause: err });
  }
}

/**
 * The default lookup: `npm view <spec> mcpx --json`, so the user's registry settings (.npmrc, a
 * private registry, a proxy) apply. A range that matches several versions gives one value per
 * version, oldest first: the last is what `npx -y` would run.
 */
export function npmMcpx(spec: string, cwd: string): Promise<unknown> {
  // npm is a .cmd script on Windows, which only a shell starts; its arguments are quoted for cmd.exe.
  const windows = process.platform === 'win32';
  const args = ['view', '--json', '--', spec, 'mcpx'];
  return new Promise((resolve, reject) => {
    if (windows && args.some((a) => /["%]/.test(a))) return reject(new Error(`cannot pass ${spec} to npm through cmd.exe`));
    const options = { cwd, shell: windows, timeout: LOOKUP_TIMEOUT_MS, windowsHide: true, encoding: 'utf8' as const };
    execFile(windows ? 'npm.cmd' : 'npm', windows ? args.map((a) => `"${a}"`) : args, options, (err, stdout) => {
      if (err) return reject(new Error(npmProblem(err, stdout)));
      try {
        const value: unknown = stdout.trim() === '' ? undefined : JSON.parse(stdout);
        resolve(Array.isArray(value) ? value.at(-1) : value);
      } catch (parseErr) {
        reject(new Error(`npm view printed something other than JSON: ${oneLine(parseErr)}`));
      }
    });
  });
}

/** Why npm view failed, in a few words: npm puts its error as JSON on stdout with --json. */
function npmProblem(err: ExecFileException, stdout: string): string {
  if (err.killed) return `npm view gave no answer in ${LOOKUP_TIMEOUT_MS / 1000} s`;
  if (err.code === 'ENOENT') return 'npm is not on the PATH';
  try {
    const { error } = JSON.parse(stdout) as { error?: { code?: string; summary?: string } };
    if (error?.summary) return `npm view: ${error.code ? `${error.code} ` : ''}${error.summary}`;
  } catch {
    // Not JSON: the exit code below says what there is to say.
  }
  return `npm view exited with ${String(err.code)}`;
}
