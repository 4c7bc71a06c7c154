import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { OtelOptions } from '../src';

const DIST = join(__dirname, '..', 'dist', 'index.js');
const DRIVER = join(__dirname, 'fixtures', 'otel-driver.js');

/** Fails clearly when @mcpx/otel has not been built (the driver runs the built package, as a server would). */
export function requireBuild(): void {
  if (!existsSync(DIST)) throw new Error(`${DIST} is missing: run \`npm run build\` before these tests`);
}

export interface DriverReport {
  tracerProvider: boolean;
  meterProvider: boolean;
  /** The handle's MeterProvider is the global one. */
  globalMeterProvider: boolean;
  globals: { tracing: boolean; propagating: boolean };
  afterShutdown?: { tracing: boolean; propagating: boolean };
  /** The `traceparent` the propagator wrote inside the recorded SERVER span. */
  traceparent?: string;
  contentType?: string;
  scrape?: string;
}

export interface Driver {
  /** What startOtel gave, once the driver has recorded a span, a child span and a histogram point. */
  report: Promise<DriverReport>;
  /** Asks the driver to shut OpenTelemetry down (flushing) and waits for it to exit. */
  shutdown(): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** Starts the driver with exactly these OTEL_* variables (none inherited). */
export function startDriver(env: Record<string, string>, options: OtelOptions & { restart?: boolean }): Driver {
  requireBuild();
  const { restart, ...otel } = options;
  const base: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('OTEL_')) base[key] = value;
  const child = fork(DRIVER, [JSON.stringify({ options: otel, restart })], { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const report = new Promise<DriverReport>((resolve, reject) => {
    child.on('message', (m: { report?: DriverReport }) => m.report && resolve(m.report));
    void exited.then((code) => reject(new Error(`the driver exited with ${code} before reporting; stderr: ${stderr}`)));
  });
  return {
    report,
    async shutdown() {
      if (child.connected) child.send('shutdown');
      const code = await exited;
      return { code, stdout, stderr };
    },
  };
}
