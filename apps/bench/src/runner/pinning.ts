import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';

/**
 * CPU pinning (`--pin`), done from outside the servers: each server (and the bare `node -e` start a
 * stdio server is held against) is started as `taskset -c 1 node …`, and the runner pins itself,
 * every thread of it (`taskset -a`: libuv's and V8's threads are already running), to CPU 0. The
 * load generator and the server then never take turns on one core, and no server is measured on
 * another CPU than the next. taskset execs node in place: the pid, the IPC channel and the probe's
 * readings are the server's own.
 */
export const RUNNER_CPU = 0;
export const SERVER_CPU = 1;

/** Pins this process to RUNNER_CPU; returns why it could not, or undefined once it is pinned. */
export function pinRunner(): string | undefined {
  if (os.cpus().length < 2) return `this machine has ${os.cpus().length} CPU`;
  const set = spawnSync('taskset', ['-a', '-p', '-c', String(RUNNER_CPU), String(process.pid)], { encoding: 'utf8' });
  if (set.error) return `taskset is not available (${set.error.message})`;
  if (set.status !== 0) return `taskset -a -p -c ${RUNNER_CPU} ${process.pid} failed: ${set.stderr.trim()}`;
  // CPU 1 may be outside this process's cpuset (a container): a server pinned there would not start.
  const probe = spawnSync('taskset', ['-c', String(SERVER_CPU), 'true'], { encoding: 'utf8' });
  if (probe.status !== 0) return `CPU ${SERVER_CPU} is not available: ${probe.stderr.trim()}`;
  const runner = affinityOf(process.pid);
  return runner === String(RUNNER_CPU) ? undefined : `the runner's affinity is ${runner} after taskset`;
}

/** The command that starts `command args` on SERVER_CPU, or the command itself when not pinned. */
export function onServerCpu(command: string, args: string[], pin: boolean): [string, string[]] {
  return pin ? ['taskset', ['-c', String(SERVER_CPU), command, ...args]] : [command, args];
}

/** The CPU list a process may run on, as taskset prints it ("1", "0-1"). */
export function affinityOf(pid: number): string {
  const out = spawnSync('taskset', ['-c', '-p', String(pid)], { encoding: 'utf8' });
  return /:\s*(\S+)\s*$/.exec(out.stdout)?.[1] ?? `unknown (${(out.stderr || out.error?.message || '').trim()})`;
}

/** Throws unless the started server is node itself (taskset exec'd it) and runs on SERVER_CPU only. */
export function checkPinned(pid: number, label: string): void {
  // Where /proc exists, the name of the process: taskset's until it execs node.
  const comm = (() => {
    try {
      return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      return undefined;
    }
  })();
  if (comm === 'taskset') throw new Error(`${label}: pid ${pid} is still taskset, not the server`);
  const cpus = affinityOf(pid);
  if (cpus !== String(SERVER_CPU)) throw new Error(`${label}: pinned to CPU ${SERVER_CPU}, but runs on ${cpus}`);
}
