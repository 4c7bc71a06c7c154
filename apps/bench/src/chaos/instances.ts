import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, openSync, closeSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** Every instance this run started, so none outlives it (even on Ctrl-C or a thrown error). */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

const REPO_ROOT = path.resolve(__dirname, '../../../..');
/** What `npm start` runs once built. */
export const EXAMPLE_MAIN = path.join(REPO_ROOT, 'apps/example/dist/main-http.js');
const PROBE = path.join(__dirname, 'probe.js');

export interface MemoryReading {
  /** VmRSS from /proc/<pid>/status, bytes. */
  rss: number;
  /** process.memoryUsage() through the preloaded probe, when it answered in time. */
  heapUsed?: number;
  heapTotal?: number;
  external?: number;
  arrayBuffers?: number;
}

export interface InstanceSettings {
  name: string;
  port: number;
  env: NodeJS.ProcessEnv;
  /** Where the instance's stdout/stderr go (appended, one file per instance). */
  logFile: string;
  /** Extra node flags (e.g. --max-old-space-size). */
  nodeFlags: string[];
}

/**
 * One instance slot of the example server: a port, and the process currently serving on it. A
 * kill and restart keeps the slot but starts a new incarnation (a new RSS series).
 */
export class Instance {
  child?: ChildProcess;
  incarnation = 0;
  /** When the current incarnation started (ms since epoch). */
  startedAt = 0;
  private nextId = 1;
  private readonly waiting = new Map<number, (message: Record<string, unknown>) => void>();

  constructor(readonly settings: InstanceSettings) {}

  get name(): string {
    return this.settings.name;
  }

  get port(): number {
    return this.settings.port;
  }

  /** `i1#2`: the slot and its incarnation. */
  get series(): string {
    return `${this.name}#${this.incarnation}`;
  }

  get pid(): number | undefined {
    return this.alive ? this.child?.pid : undefined;
  }

  get alive(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  async start(): Promise<void> {
    const log = openSync(this.settings.logFile, 'a');
    const child = spawn(process.execPath, ['--expose-gc', ...this.settings.nodeFlags, '--require', PROBE, EXAMPLE_MAIN], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...this.settings.env, PORT: String(this.port), HOST: '127.0.0.1' },
      stdio: ['ignore', log, log, 'ipc'],
    });
    closeSync(log);
    this.child = child;
    this.incarnation++;
    this.startedAt = Date.now();
    running.add(child);
    child.on('message', (message: Record<string, unknown>) => {
      const answer = this.waiting.get(Number(message.id));
      if (answer) {
        this.waiting.delete(Number(message.id));
        answer(message);
      }
    });
    child.once('exit', () => {
      running.delete(child);
      for (const answer of this.waiting.values()) answer({ type: 'error', error: 'exited' });
      this.waiting.clear();
    });
    await waitForPort(this.port, child, this.settings.logFile);
  }

  /** SIGKILL (a crash) or SIGTERM (a graceful stop); resolves once the process is gone. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(killer);
  }

  /** RSS from /proc (always), heap figures from the probe (if it answers within `timeoutMs`). */
  async memory(timeoutMs = 1500): Promise<MemoryReading | undefined> {
    const pid = this.pid;
    if (pid === undefined) return undefined;
    const rss = vmRss(pid);
    if (rss === undefined) return undefined;
    const answer = await this.ask({ type: 'memory' }, timeoutMs);
    const memory = answer?.memory as NodeJS.MemoryUsage | undefined;
    return { rss, heapUsed: memory?.heapUsed, heapTotal: memory?.heapTotal, external: memory?.external, arrayBuffers: memory?.arrayBuffers };
  }

  /** Two full GCs, then a heap snapshot written to `file`; the heap figures right before it. */
  async snapshot(file: string): Promise<{ file: string; memory?: NodeJS.MemoryUsage } | undefined> {
    const answer = await this.ask({ type: 'snapshot', file }, 300_000);
    if (!answer || answer.type !== 'snapshot') return undefined;
    return { file: String(answer.file), memory: answer.memory as NodeJS.MemoryUsage };
  }

  private ask(message: Record<string, unknown>, timeoutMs: number): Promise<Record<string, unknown> | undefined> {
    const child = this.child;
    if (!child?.connected) return Promise.resolve(undefined);
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve(undefined);
      }, timeoutMs);
      this.waiting.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      try {
        child.send({ ...message, id });
      } catch {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve(undefined);
      }
    });
  }
}

/** VmRSS of a process, in bytes (undefined once it is gone). */
export function vmRss(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

async function waitForPort(port: number, child: ChildProcess, logFile: string, deadlineMs = 30_000): Promise<void> {
  const start = Date.now();
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`instance on port ${port} exited (${child.exitCode ?? child.signalCode}); see ${logFile}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() - start > deadlineMs) throw new Error(`nothing listens on port ${port} after ${deadlineMs} ms; see ${logFile}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
