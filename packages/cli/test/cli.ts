// Helpers for the end-to-end tests: they run the built binary exactly as a user would.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..', '..');
export const BIN = join(ROOT, 'packages/cli/dist/bin.js');
export const EXAMPLE_JS = join(ROOT, 'apps/example/dist/notes-server.js');
export const EXAMPLE_TS = join(ROOT, 'apps/example/src/notes-server.ts');
export const FIXTURES = join(__dirname, 'fixtures');

/** Fails the suite with a clear message when the packages have not been built. */
export function requireBuild(): void {
  for (const file of [BIN, EXAMPLE_JS]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` before these tests`);
  }
}

/** The environment without anything that would change the CLI's settings (OpenTelemetry's included). */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('MCPX_') || key.startsWith('OTEL_') || key === 'PORT' || key === 'HOST') continue;
    env[key] = value;
  }
  return { ...env, CI: '1', ...extra };
}

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command that ends by itself (help, list, errors). */
/**
 * How long a command may take before it is killed: a bound on a hung command, not a speed. An entry
 * is compiled from source on each run, which on a busy machine (the whole suite at once) has taken
 * more than 15 s; the suites give each test 60 s.
 */
const COMMAND_TIMEOUT_MS = 50_000;

export function run(args: string[], env: Record<string, string> = {}): RunResult {
  requireBuild();
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, env: cleanEnv(env), encoding: 'utf8', timeout: COMMAND_TIMEOUT_MS });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Like run(), without blocking: lets independent cases run side by side. */
export function runAsync(args: string[], env: Record<string, string> = {}): Promise<RunResult> {
  requireBuild(); // concurrent tests may start before beforeAll hooks
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: cleanEnv(env), timeout: COMMAND_TIMEOUT_MS });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

export interface Running {
  child: ChildProcessWithoutNullStreams;
  /** The endpoint URL from the "serving MCP over Streamable HTTP" log line. */
  url: string;
  /** Where /metrics is served, from the same line, when it is. */
  metricsUrl?: string;
  logs: () => string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `mcpx serve ... ` (or `mcpx proxy ...`) over HTTP and waits until it logs its URL. */
export function serveHttp(args: string[], env: Record<string, string> = {}, command: 'serve' | 'proxy' = 'serve'): Promise<Running> {
  requireBuild();
  const child = spawn(process.execPath, [BIN, command, ...args], { cwd: ROOT, env: cleanEnv(env) });
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`no URL logged in 20 s; stdout: ${out} stderr: ${err}`)), 20_000);
    const fail = (e: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(e);
    };
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.includes('serving MCP over Streamable HTTP'));
      if (!line) return;
      clearTimeout(timer);
      const { url, metricsUrl } = JSON.parse(line) as { url: string; metricsUrl?: string };
      resolve({
        child,
        url,
        metricsUrl,
        logs: () => out,
        stop: () => {
          child.kill('SIGTERM');
          return exited;
        },
      });
    });
    void exited.then((code) => fail(new Error(`mcpx exited with ${code} before serving; stderr: ${err}`)));
  });
}

/** A port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'cli-test', version: '1.0.0' } },
};
