import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { onServerCpu } from './pinning';

/** Every server this run started, so none outlives it (even on Ctrl-C or a thrown error). */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

const BENCH_ROOT = path.resolve(__dirname, '../..');
const PROBE = path.join(BENCH_ROOT, 'anchors/probe.cjs');

export interface ServerMemory extends NodeJS.MemoryUsage {
  /** Resident bytes of V8's young generation: empty after the collections, sized by the allocation rate. */
  young: number;
}

export interface ServerProcess {
  readonly child: ChildProcess;
  /** process.memoryUsage() of the server after two full garbage collections, and the young generation's resident bytes. */
  memory(): Promise<ServerMemory>;
  /** CPU time the server has used so far, user + system, in µs. */
  cpu(): Promise<number>;
  /** Starts sampling the server's RSS every 10 ms; resolves once the first reading is taken. */
  peakStart(): Promise<void>;
  /** Stops the sampling: the highest RSS seen (bytes), the number of readings, and the kernel's peak since the start (Linux). */
  peak(): Promise<{ rssMax: number; samples: number; hwm?: number }>;
  /** SIGTERM, then SIGKILL after a grace period; resolves once the process is gone. */
  stop(): Promise<void>;
  /** The last few KB the server wrote on stderr (for error messages). */
  stderrTail(): string;
}

/**
 * Starts `script` (relative to apps/bench, or absolute) with the memory probe preloaded and an IPC channel.
 * stdio servers get piped stdin/stdout; HTTP servers have theirs ignored. `pin`: on the server CPU,
 * through taskset, which execs node (the same pid, the IPC channel inherited).
 */
export function startProcess(script: string, args: string[], env: NodeJS.ProcessEnv, stdio: boolean, pin = false): ServerProcess {
  // resolve, not join: a baseline build's script is an absolute path.
  const [command, argv] = onServerCpu(process.execPath, ['--expose-gc', '--require', PROBE, path.resolve(BENCH_ROOT, script), ...args], pin);
  const child = spawn(command, argv, {
    cwd: BENCH_ROOT,
    env: { ...process.env, ...env },
    stdio: [stdio ? 'pipe' : 'ignore', stdio ? 'pipe' : 'ignore', 'pipe', 'ipc'],
  });
  running.add(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4096);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => running.delete(child));

  return {
    child,
    stderrTail: () => stderr.trim(),
    memory: () => ask<ServerMemory>(child, script, 'memory'),
    cpu: async () => {
      const usage = await ask<NodeJS.CpuUsage>(child, script, 'cpu');
      return usage.user + usage.system;
    },
    peakStart: async () => void (await ask<{ rss: number }>(child, script, 'peak-start')),
    peak: () => ask<{ rssMax: number; samples: number; hwm?: number }>(child, script, 'peak'),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** Asks the probe preloaded in the server for a reading. */
function ask<T>(child: ChildProcess, script: string, what: 'memory' | 'cpu' | 'peak-start' | 'peak'): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script}: no ${what} report within 10 s`)), 10_000);
    child.once('message', (message: Record<string, T>) => {
      clearTimeout(timer);
      if (message[what]) resolve(message[what]);
      else reject(new Error(`${script}: unexpected IPC message ${JSON.stringify(message)}`));
    });
    child.send(what);
  });
}

/** A free TCP port on 127.0.0.1 (the OS picks it; it is free again once this resolves). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Resolves once something accepts connections on the port, with the performance.now() of that first
 * accepted connection; rejects if the process exits first or after the deadline. It tries every 5 ms
 * (a refused connect costs microseconds), so the time to listen is known to within about 5 ms.
 */
export async function waitForPort(port: number, server: ServerProcess, deadlineMs = 20_000): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (server.child.exitCode !== null) throw new Error(`server exited with ${server.child.exitCode}: ${server.stderrTail()}`);
    const acceptedAt = await new Promise<number | undefined>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        const at = performance.now();
        socket.destroy();
        resolve(at);
      });
      socket.once('error', () => resolve(undefined));
    });
    if (acceptedAt !== undefined) return acceptedAt;
    if (Date.now() - start > deadlineMs) throw new Error(`nothing listens on port ${port} after ${deadlineMs} ms: ${server.stderrTail()}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
