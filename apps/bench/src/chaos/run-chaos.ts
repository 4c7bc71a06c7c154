/**
 * The chaos bench (`npm run bench:chaos -- --help`): Redis-backed instances of the example server
 * behind a round-robin proxy, N MCP clients, an instance killed and restarted every few seconds,
 * Redis paused, cut off and emptied; RSS of every instance sampled and tabulated per round.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from 'redis';
import { Traffic } from './clients';
import { EXAMPLE_MAIN, Instance } from './instances';
import { freePort } from '../runner/processes';
import { parseOptions, type ChaosOptions, type RedisChaos } from './options';
import { RedisRelay, RoundRobinProxy } from './proxy';
import { longLivedTable, roundTable, type Sample } from './report';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

type Admin = ReturnType<typeof createClient>;

class ChaosRun {
  readonly started = Date.now();
  readonly samples: Sample[] = [];
  readonly instances: Instance[] = [];
  readonly proxy = new RoundRobinProxy();
  relay!: RedisRelay;
  admin!: Admin;
  url!: string;
  round = 0;
  phase: Sample['phase'] = 'baseline';
  events: string[] = [];
  private killTurn = 0;
  private redisTurn = 0;
  readonly logDir = mkdtempSync(path.join(os.tmpdir(), 'mcpx-chaos-'));

  constructor(readonly options: ChaosOptions) {}

  log(line: string): void {
    const t = ((Date.now() - this.started) / 1000).toFixed(1).padStart(6);
    process.stdout.write(`[${t}s] ${line}\n`);
  }

  async setUp(): Promise<void> {
    const o = this.options;
    if (!existsSync(EXAMPLE_MAIN)) throw new Error(`${EXAMPLE_MAIN} is missing: run npm run build first`);
    this.admin = createClient({ url: o.redisUrl, socket: { connectTimeout: 2000, reconnectStrategy: false } });
    this.admin.on('error', () => undefined);
    await this.admin.connect();
    await this.admin.ping();
    const redis = new URL(o.redisUrl);
    this.relay = new RedisRelay(redis.hostname || '127.0.0.1', Number(redis.port || 6379));
    const relayPort = await this.relay.listen();
    const relayed = new URL(o.redisUrl);
    relayed.hostname = '127.0.0.1';
    relayed.port = String(relayPort);
    for (let i = 0; i < o.instances; i++) {
      const name = `i${i}`;
      const port = await freePort();
      const instance = new Instance({
        name,
        port,
        logFile: path.join(this.logDir, `${name}.log`),
        nodeFlags: o.nodeFlags,
        env: { MCPX_REDIS_URL: relayed.toString(), MCPX_REDIS_PREFIX: o.prefix, MCPX_LOG_LEVEL: o.logLevel },
      });
      this.instances.push(instance);
      this.proxy.add({ name, port, up: false });
    }
    // One at a time: the first seeds the notebook.
    for (const [i, instance] of this.instances.entries()) {
      await instance.start();
      this.proxy.backends[i]!.up = true;
    }
    this.url = await this.proxy.listen();
    this.log(
      `${o.instances} instances (ports ${this.instances.map((i) => i.port).join(', ')}, pids ${this.instances.map((i) => i.pid).join(', ')}) behind ${this.url}; ` +
        `Redis ${o.redisUrl} through relay :${relayPort}, prefix ${o.prefix}; logs in ${this.logDir}`,
    );
  }

  async sample(): Promise<void> {
    const t = Math.round((Date.now() - this.started) / 100) / 10;
    const readings = await Promise.all(this.instances.map(async (instance) => ({ instance, series: instance.series, memory: await instance.memory() })));
    for (const { instance, series, memory } of readings) {
      if (!memory) continue;
      this.samples.push({
        t,
        round: this.round,
        phase: this.phase,
        slot: instance.name,
        series,
        rss: memory.rss,
        heapUsed: memory.heapUsed,
        heapTotal: memory.heapTotal,
        external: memory.external,
      });
    }
    // Diagnosis: one snapshot of i0 a round, the first time its heap passes the threshold under traffic.
    const i0 = this.samples.filter((s) => s.slot === 'i0').at(-1);
    const threshold = this.options.snapshotHeapMb;
    if (threshold && this.phase === 'during' && !this.peakSnapped.has(this.round) && i0?.heapUsed && i0.heapUsed > threshold * 1048576) {
      this.peakSnapped.add(this.round);
      await this.snapshot(`r${this.round}-peak`);
    }
  }

  private readonly peakSnapped = new Set<number>();

  /** Samples every sampleMs until `stop` is called. */
  sampler(): () => Promise<void> {
    const state = { stopped: false };
    const loop = (async () => {
      while (!state.stopped) {
        const from = this.samples.length;
        await this.sample();
        const line = this.samples
          .slice(from)
          .map(
            (s) =>
              `${s.series} ${(s.rss / 1048576).toFixed(0)}MB${s.heapUsed ? `/${(s.heapUsed / 1048576).toFixed(0)}/${((s.heapTotal ?? 0) / 1048576).toFixed(0)}/${((s.external ?? 0) / 1048576).toFixed(0)}` : ''}`,
          )
          .join('  ');
        if (this.phase === 'during') this.log(`  rss/heapUsed/heapTotal/external MB: ${line}`);
        await sleep(this.options.sampleMs);
      }
    })();
    return async () => {
      state.stopped = true;
      await loop;
    };
  }

  /** Kills the next killable instance (never i0), keeps it down for downMs, starts it again. */
  async killOne(): Promise<void> {
    const killable = this.instances.slice(1);
    const instance = killable[this.killTurn++ % killable.length]!;
    const backend = this.proxy.backends.find((b) => b.name === instance.name)!;
    const old = instance.series;
    await instance.kill(this.options.killSignal);
    backend.up = false;
    this.events.push(`kill ${old}`);
    await sleep(this.options.downMs);
    // As an orchestrator would: an instance that fails to start (Redis away) is started again.
    for (let attempt = 1; ; attempt++) {
      try {
        await instance.start();
        backend.up = true;
        this.log(`killed ${old} (${this.options.killSignal}), restarted as ${instance.series} (pid ${instance.pid})${attempt > 1 ? ` at attempt ${attempt}` : ''}`);
        return;
      } catch (err) {
        if (attempt >= 10) return this.log(`could not restart ${instance.name}: ${(err as Error).message}`);
        await sleep(1000);
      }
    }
  }

  async redisEvent(): Promise<void> {
    const o = this.options;
    const kind: RedisChaos = o.redisChaos[this.redisTurn++ % o.redisChaos.length]!;
    this.events.push(`redis ${kind}`);
    if (kind === 'pause') {
      // CLIENT PAUSE on the shared Redis (every client of it waits; nothing is lost).
      const url = new URL(o.redisUrl);
      const args = ['-h', url.hostname || '127.0.0.1', '-p', url.port || '6379', 'CLIENT', 'PAUSE', String(o.pauseMs)];
      if (url.password) args.unshift('-a', decodeURIComponent(url.password), '--no-auth-warning');
      await new Promise<void>((resolve) =>
        spawn('redis-cli', args, { stdio: 'ignore' })
          .on('exit', () => resolve())
          .on('error', () => resolve()),
      );
      this.log(`redis: CLIENT PAUSE ${o.pauseMs}`);
    } else {
      // The instances' connections drop and are refused for pauseMs; `restart` also loses this run's data.
      this.relay.cut(o.pauseMs);
      let deleted = 0;
      if (kind === 'restart') deleted = await this.deleteKeys();
      this.log(`redis: ${kind} (connections cut for ${o.pauseMs} ms${kind === 'restart' ? `, ${deleted} keys deleted` : ''})`);
    }
  }

  /** What the run left in Redis: sessions indexed as live, subscribers of notes://index, and commands Redis served so far (all clients). */
  async redisFigures(): Promise<{ sessions: number; subscribers: number; notes: number; commands: number; byCommand: Map<string, number> }> {
    const prefix = this.options.prefix;
    const [notes, sessions, subscribers, stats, commandStats] = await Promise.all([
      this.admin.zCard(`${prefix}notes:ids`),
      this.admin.zCard(`${prefix}sessions`),
      this.admin.sCard(`${prefix}sub:notes://index`),
      this.admin.sendCommand(['INFO', 'stats']) as Promise<string>,
      this.admin.sendCommand(['INFO', 'commandstats']) as Promise<string>,
    ]);
    const commands = Number(/total_commands_processed:(\d+)/.exec(String(stats))?.[1] ?? 0);
    const byCommand = new Map<string, number>();
    for (const match of String(commandStats).matchAll(/cmdstat_([^:]+):calls=(\d+)/g)) byCommand.set(match[1]!, Number(match[2]));
    return { sessions, subscribers, notes, commands, byCommand };
  }

  async keyCount(): Promise<number> {
    let n = 0;
    for await (const keys of this.admin.scanIterator({ MATCH: `${this.options.prefix}*`, COUNT: 1000 })) n += keys.length;
    return n;
  }

  async deleteKeys(): Promise<number> {
    let n = 0;
    for await (const keys of this.admin.scanIterator({ MATCH: `${this.options.prefix}*`, COUNT: 1000 })) {
      if (keys.length === 0) continue;
      n += keys.length;
      await this.admin.unlink(keys);
    }
    return n;
  }

  /** Runs `action` every `everyMs` until stopped; the stop waits for the action in progress. */
  periodic(everyMs: number, action: () => Promise<void>): () => Promise<void> {
    if (everyMs <= 0) return async () => undefined;
    let stopped = false;
    let wake: () => void = () => undefined;
    // On fixed ticks (every everyMs from now), whatever the action took; a tick it overran is skipped.
    const origin = Date.now();
    const loop = (async () => {
      for (;;) {
        const elapsed = Date.now() - origin;
        const delay = everyMs - (elapsed % everyMs);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          wake = () => (clearTimeout(timer), resolve());
        });
        if (stopped) return;
        await action().catch((err: Error) => this.log(`chaos action failed: ${err.message}`));
      }
    })();
    return async () => {
      stopped = true;
      wake();
      await loop;
    };
  }

  async snapshot(label: string): Promise<void> {
    const dir = this.options.heapSnapshots;
    if (!dir) return;
    mkdirSync(dir, { recursive: true });
    const i0 = this.instances[0]!;
    const file = path.resolve(dir, `${label}-${i0.series.replace('#', '_')}.heapsnapshot`);
    const start = Date.now();
    const written = await i0.snapshot(file);
    this.log(
      written
        ? `heap snapshot of ${i0.series}: ${written.file} (heapUsed after GC ${((written.memory?.heapUsed ?? 0) / 1048576).toFixed(0)} MB, external ${((written.memory?.external ?? 0) / 1048576).toFixed(0)} MB, ${Date.now() - start} ms)`
        : `heap snapshot of ${i0.series} failed`,
    );
  }

  async run(): Promise<void> {
    const o = this.options;
    await this.setUp();
    await sleep(3000);
    this.phase = 'baseline';
    await this.sample();
    await this.snapshot('r0-baseline');
    const legacy = o.clients - Math.round(o.clients * o.modernShare);
    for (let r = 1; r <= o.rounds; r++) {
      this.round = r;
      this.events = [];
      this.phase = 'before';
      await this.sample();
      const traffic = new Traffic({
        url: this.url,
        clients: o.clients,
        modernShare: o.modernShare,
        sessionMs: o.sessionMs,
        thinkMs: o.thinkMs,
        exportDelayMs: o.exportDelayMs,
        requestTimeoutMs: 20_000,
      });
      const redisBefore = await this.redisFigures();
      this.log(`round ${r}/${o.rounds}: ${o.clients} clients (${legacy} SDK 1.x sessions, ${o.clients - legacy} 2026-07-28) for ${o.roundMs / 1000} s`);
      this.phase = 'during';
      traffic.start();
      const stopSampler = this.sampler();
      const stopKills = this.periodic(o.killEveryMs, () => this.killOne());
      const stopRedis = this.periodic(o.redisEveryMs, () => this.redisEvent());
      if (o.snapshotDuringS !== undefined && o.snapshotDuringS * 1000 < o.roundMs) {
        await sleep(o.snapshotDuringS * 1000);
        await this.snapshot(`r${r}-during`);
        await sleep(o.roundMs - o.snapshotDuringS * 1000);
      } else await sleep(o.roundMs);
      const redisDuring = await this.redisFigures();
      await Promise.all([stopKills(), stopRedis()]);
      const finished = await traffic.stop();
      await stopSampler();
      this.phase = 'after';
      this.log(`round ${r}: traffic stopped${finished ? '' : ' (some clients did not finish in 30 s)'}; settling ${o.settleMs / 1000} s`);
      await sleep(o.settleMs);
      await this.sample();
      const keys = await this.keyCount();
      const lines = [
        `── round ${r}: ${this.events.length} chaos events (${this.events.join(', ')})`,
        ...traffic.stats.summary(),
        `  proxy: ${JSON.stringify(this.proxy.counts)}; keys under the prefix: ${keys}`,
        `  redis: ${redisDuring.commands - redisBefore.commands} commands in the round (${Math.round((redisDuring.commands - redisBefore.commands) / (o.roundMs / 1000))}/s, whole Redis); ` +
          `at its end ${redisDuring.notes} notes, ${redisDuring.sessions} sessions indexed live, ${redisDuring.subscribers} subscribers of notes://index`,
        `  redis commands/s: ${[...redisDuring.byCommand]
          .map(([name, calls]): [string, number] => [name, calls - (redisBefore.byCommand.get(name) ?? 0)])
          .sort((a, b) => b[1] - a[1])
          .slice(0, 8)
          .map(([name, calls]) => `${name} ${Math.round(calls / (o.roundMs / 1000))}`)
          .join(', ')}`,
        ...roundTable(this.samples, r, 'i0').map((l) => '  ' + l),
      ];
      process.stdout.write(lines.join('\n') + '\n');
      await this.snapshot(`r${r}-after`);
    }
    process.stdout.write(
      [
        `══ long-lived instance i0 (never killed), ${o.rounds} rounds of ${o.roundMs / 1000} s, ${o.clients} clients:`,
        ...longLivedTable(this.samples, o.rounds, 'i0').map((l) => '  ' + l),
      ].join('\n') + '\n',
    );
    if (o.json) writeFileSync(o.json, JSON.stringify({ options: o, samples: this.samples }, null, 1));
  }

  async tearDown(): Promise<void> {
    await Promise.all(this.instances.map((instance) => instance.kill('SIGTERM')));
    await this.proxy.close().catch(() => undefined);
    await this.relay?.close().catch(() => undefined);
    if (this.admin?.isOpen) {
      if (!this.options.keepKeys) await this.deleteKeys().catch(() => 0);
      await this.admin.close().catch(() => undefined);
    }
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const run = new ChaosRun(options);
  const interrupted = () => {
    process.stdout.write('\ninterrupted: stopping the instances\n');
    void run.tearDown().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  try {
    await run.run();
  } finally {
    await run.tearDown();
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    process.stderr.write(`bench:chaos: ${err.stack ?? err.message}\n`);
    process.exit(1);
  },
);
