import { spawn, type ChildProcess } from 'node:child_process';
import { join, relative } from 'node:path';
import type { FromChild, ToChild } from './dev-messages';
import { StdioRelay } from './dev-stdio';
import { watchTree, type TreeWatcher } from './dev-watch';

export interface SupervisorOptions {
  /** The entry, absolute. */
  entry: string;
  /** argv for `mcpx serve` (the port already fixed, so that every process binds the same one). */
  serveArgs: string[];
  stdio: boolean;
  /** Where HTTP clients connect (undefined over stdio). */
  url?: string;
  /** Folders to watch. */
  roots: string[];
  /** A status line for the user (stderr: stdout may be the protocol). */
  say(line: string): void;
  /** Quiet time after the last change before reloading: editors write a save in several steps. */
  debounceMs?: number;
  /** How long a stopping server may drain before it is killed. */
  stopGraceMs?: number;
}

interface Child {
  process: ChildProcess;
  /** Resolves with how it ended: "code 1", "signal SIGKILL". */
  exited: Promise<string>;
  hasExited: boolean;
}

/**
 * Runs the server in a child process and replaces it when a watched file changes. A spare process
 * is kept warm (framework and compiler loaded) so that a reload costs only the user's code.
 */
export class DevSupervisor {
  private active?: Child;
  private spare?: Child;
  private watcher?: TreeWatcher;
  private readonly relay?: StdioRelay;
  /** Dependency files the last good run loaded: the next spare loads them ahead of time. */
  private modules: string[] = [];
  private changedSince?: number;
  private changedFile = '';
  private timer?: NodeJS.Timeout;
  private reloading = false;
  private stopping?: Promise<void>;

  constructor(private readonly options: SupervisorOptions) {
    if (!options.stdio) return;
    this.relay = new StdioRelay(process.stdout);
    // The client closed its end of the pipe: it has gone, so stop as when its input ends.
    process.stdout.on('error', () => void this.stop(true));
  }

  /** Starts the first server and the watcher. */
  async start(): Promise<void> {
    this.relay?.listen(process.stdin, () => void this.stop(true));
    this.watcher = watchTree(this.options.roots, [this.options.entry], (file) => this.changed(file));
    const startedAt = performance.now();
    // Counts as a reload in progress: a save meanwhile waits for this start, then reloads.
    this.reloading = true;
    const ok = await this.launch();
    this.reloading = false;
    if (this.stopping) return;
    const roots = this.options.roots.map((root) => relative(process.cwd(), root) || '.').join(', ');
    const at = this.options.url ? ` at ${this.options.url}` : '';
    if (ok) this.options.say(`started in ${elapsed(startedAt)}${at}; watching ${roots} for changes (Ctrl-C to stop)`);
    else this.options.say(`watching ${roots}: save a fix to start the server`);
    if (this.changedSince !== undefined) this.changed(this.changedFile);
  }

  /** Resolves once stop() has finished, whoever called it (a signal, or a stdio client closing its side). */
  private onStopped: () => void = () => {};
  readonly stopped = new Promise<void>((resolve) => (this.onStopped = resolve));

  /**
   * Stops the watcher and every process; resolves once they have exited. `endOfInput`: the stdio
   * client closed its side, which is passed on (the server stops after its requests in flight).
   */
  stop(endOfInput = false): Promise<void> {
    return (this.stopping ??= (async () => {
      clearTimeout(this.timer);
      this.watcher?.close();
      const spare = this.spare;
      this.spare = undefined;
      if (spare) spare.process.kill('SIGKILL'); // idle: nothing to drain
      await Promise.all([this.retire(endOfInput), spare?.exited]);
      this.onStopped();
    })());
  }

  private changed(file: string): void {
    if (this.stopping) return;
    this.changedSince ??= performance.now();
    this.changedFile = file;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.reload(), this.options.debounceMs ?? 80);
  }

  private async reload(): Promise<void> {
    if (this.reloading || this.stopping || this.changedSince === undefined) return;
    this.reloading = true;
    const since = this.changedSince;
    const file = relative(process.cwd(), this.changedFile) || this.changedFile;
    this.changedSince = undefined;
    await this.retire();
    const ok = await this.launch();
    this.reloading = false;
    if (this.stopping) return;
    if (ok) this.options.say(`reloaded in ${elapsed(since)} (${file} changed)`);
    else this.options.say('not serving: save a fix to try again');
    // Saves made during the reload start another one.
    if (this.changedSince !== undefined) this.changed(this.changedFile);
  }

  private spawnSpare(): Child {
    const child = spawn(process.execPath, [join(__dirname, 'dev-child.js')], {
      stdio: this.options.stdio ? ['pipe', 'pipe', 'inherit', 'ipc'] : ['ignore', 'inherit', 'inherit', 'ipc'],
      env: process.env,
    });
    const handle: Child = {
      process: child,
      hasExited: false,
      exited: new Promise((resolve) =>
        child.once('exit', (code, signal) => {
          handle.hasExited = true;
          resolve(code !== null ? `code ${code}` : `signal ${signal}`);
        }),
      ),
    };
    child.on('error', () => {}); // a failed spawn also exits; launch() reports it
    this.send(child, { type: 'warm', entry: this.options.entry, stdio: this.options.stdio, modules: this.modules });
    return handle;
  }

  /** Serves from the spare (spawning one if needed); resolves true once it serves, false if it exited. */
  private async launch(): Promise<boolean> {
    // A spare can die while it waits (a stray signal): then start a fresh one.
    const child = this.spare && !this.spare.hasExited ? this.spare : this.spawnSpare();
    this.spare = undefined;
    this.active = child;
    const ready = new Promise<FromChild | undefined>((resolve) => {
      child.process.on('message', (message: FromChild) => {
        if (message.type === 'ready') resolve(message);
      });
      void child.exited.then(() => resolve(undefined));
    });
    this.send(child.process, { type: 'start', args: this.options.serveArgs });
    const message = await ready;
    if (!message) {
      this.active = undefined;
      this.relay?.detach('mcpx dev: the server failed to start; save a fix to try again', true);
      // The next save should not wait for a cold start either.
      if (!this.stopping) this.spare = this.spawnSpare();
      return false;
    }
    this.modules = message.modules;
    if (this.relay) this.relay.attach(child.process.stdin!, child.process.stdout!);
    void child.exited.then((how) => this.exitedEarly(child, how));
    // Warmed while this one serves, ready for the next change.
    if (!this.stopping) this.spare = this.spawnSpare();
    return true;
  }

  /** The serving process ended by itself (a crash, or stdin closed): wait for a fix. */
  private exitedEarly(child: Child, how: string): void {
    if (this.active !== child) return;
    this.active = undefined;
    this.relay?.detach(`mcpx dev: the server exited (${how}); save a fix to restart it`, true);
    if (!this.stopping && !this.reloading) this.options.say(`the server exited (${how}); save a change to restart it`);
  }

  /** Stops the serving process: SIGTERM lets it drain; past the grace period it is killed. */
  private async retire(endOfInput = false): Promise<void> {
    const child = this.active;
    this.active = undefined;
    if (!child) return;
    this.relay?.hold();
    if (!child.hasExited) {
      if (endOfInput) child.process.stdin?.end();
      else child.process.kill('SIGTERM');
      const timer = setTimeout(() => child.process.kill('SIGKILL'), this.options.stopGraceMs ?? 3000);
      await child.exited;
      clearTimeout(timer);
    }
    this.relay?.detach('mcpx dev: the server reloaded before answering; send the request again', false);
  }

  private send(child: ChildProcess, message: ToChild): void {
    if (child.connected) child.send(message, () => {}); // a send error means it exited: handled there
  }
}

function elapsed(since: number): string {
  return `${Math.round(performance.now() - since)} ms`;
}
