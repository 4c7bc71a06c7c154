import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { closeSessions, openSessions, sessionCycles, toolCalls, type CallLoad } from './http-load';
import { checkPinned, onServerCpu } from './pinning';
import { freePort, startProcess, waitForPort } from './processes';
import { commandsBetween, type BenchRedis } from './redis';
import { StdioPeer, stdioRoundTrips } from './stdio-load';
import type { Checked } from './tally';
import type { Target } from './targets';

export interface Settings {
  rounds: number;
  /** Seconds of each tools/call run (per concurrency), of the big run, of the sessions run and of each stdio run. */
  callS: number;
  warmS: number;
  concurrencies: number[];
  /** Connections for the big tool and for sessions/s. */
  bigConnections: number;
  /** Connections for the second big run, during which the server's peak RSS is sampled. */
  peakConnections: number;
  sessionConnections: number;
  /** Sessions held open for the memory figure. */
  memorySessions: number;
  stdioInFlight: number;
  /** Servers on CPU 1 and the runner on CPU 0 (`--pin`, through taskset). */
  pin: boolean;
}

/** One round's figures for one server; a missing metric does not apply to it. */
export type Figures = Record<string, number>;

/** Something a server answered wrong: the benchmark reports it and fails. */
export class BadAnswers extends Error {}

function checked(target: Target, what: string, load: Checked): void {
  if (load.bad > 0 || load.ok === 0) {
    throw new BadAnswers(`${target.label}, ${what}: ${load.bad} bad answers of ${load.ok + load.bad}${load.firstBad ? `; first: ${load.firstBad}` : ''}`);
  }
}

const kb = (bytes: number) => bytes / 1024;

let cacheRoot: string | undefined;
/**
 * An empty compile cache directory (`MCPX_COMPILE_CACHE`) for one target in one round. Its first
 * start compiles from source and writes the cache as it stops; the second compiles from that cache
 * and completes it as it stops; the measured start after them reads the completed cache, as every
 * later start of a server on one machine does. Other servers ignore it.
 */
function freshCompileCache(): string {
  cacheRoot ??= fs.mkdtempSync(path.join(os.tmpdir(), 'mcpx-bench-cache-'));
  return fs.mkdtempSync(path.join(cacheRoot, 'start-'));
}

/** Removes every compile cache the run made. */
export function removeCompileCaches(): void {
  if (cacheRoot) fs.rmSync(cacheRoot, { recursive: true, force: true });
  cacheRoot = undefined;
}
/** Sessions opened between the two memory readings, per `memorySessions` open at the first. */
export const MEMORY_SLOPE_FACTOR = 5;

/**
 * Starts the target, measures everything that applies to it, and stops it. A Redis-backed target
 * needs `redis` (the runner's connection to the same Redis): it gets a key prefix of its own,
 * whose keys are removed once the server has stopped.
 */
export async function measure(target: Target, settings: Settings, progress: (line: string) => void, redis?: BenchRedis): Promise<Figures> {
  if (target.transport === 'stdio') return measureStdio(target, settings, progress);
  if (!target.redis) return measureHttp(target, settings, progress);
  if (!redis) throw new Error(`${target.label} needs Redis`);
  const prefix = `mcpx-bench:${randomBytes(6).toString('hex')}:`;
  try {
    return await measureHttp(target, settings, progress, { redis, prefix });
  } finally {
    // A failed clean-up must not hide why the measurement failed: the keys expire on their own anyway.
    await redis.deleteKeys(prefix).then(
      (removed) => progress(`  ${target.label}: removed its ${removed} keys under ${prefix}`),
      (err: Error) => progress(`  ${target.label}: could not remove its keys under ${prefix} (${err.message}); they expire by their TTLs`),
    );
  }
}

/** The Redis a target shares its state through, and the prefix of its keys there. */
interface RedisUse {
  redis: BenchRedis;
  prefix: string;
}

async function measureHttp(target: Target, s: Settings, progress: (line: string) => void, shared?: RedisUse): Promise<Figures> {
  const env: NodeJS.ProcessEnv = { MCPX_COMPILE_CACHE: freshCompileCache() };
  if (shared) Object.assign(env, { MCPX_BENCH_REDIS_URL: shared.redis.url, MCPX_BENCH_REDIS_PREFIX: shared.prefix });
  const figures: Figures = {};
  // Three starts on one compile cache: empty, then as the first start left it, then as the second completed it.
  figures.listenColdMs = await listenOnce(target, s, env);
  figures.listenSecondMs = await listenOnce(target, s, env);
  const port = await freePort();
  env.PORT = String(port);
  // Time to listen: from right before the spawn to the first connection the server accepts. It
  // includes Node's start and the probe's preload (the same for every server; under --pin, taskset's exec too).
  const spawnedAt = performance.now();
  const server = startProcess(target.script, target.args, env, false, s.pin);
  try {
    figures.listenMs = (await waitForPort(port, server)) - spawnedAt;
    if (s.pin) checkPinned(server.child.pid!, target.label);
    progress(
      `  ${target.label}: listening ${figures.listenMs.toFixed(0)} ms after the spawn (${figures.listenColdMs.toFixed(0)} ms with an empty compile cache, ${figures.listenSecondMs.toFixed(0)} on the second start)`,
    );
    const url = `http://127.0.0.1:${port}/mcp`;
    figures.idleRssKB = kb((await server.memory()).rss);

    if (target.stateful) {
      // Memory per session is the slope between two loaded states: after a round opened and closed,
      // `memorySessions` open, then five times as many more. What grows once rather than per session
      // (compiled code, pools) is in both readings, so it is not counted per session: with 1,000
      // sessions over an idle baseline it made most of the figure, and moved it by KBs from run to run.
      await closeSessions(url, await openSessions(url, s.memorySessions, 64), 64);
      const first = await openSessions(url, s.memorySessions, 64);
      const before = await server.memory();
      const redisBefore = shared && (await redisMemory(shared));
      const more = MEMORY_SLOPE_FACTOR * s.memorySessions;
      const held = [...first, ...(await openSessions(url, more, 64))];
      const loaded = await server.memory();
      figures.sessionsRssKB = kb(loaded.rss);
      // Outside the young generation: after the collections it holds nothing, and how much of it is
      // resident follows the allocation rate (it grew by up to 14 MB while sessions opened), not the sessions.
      figures.kbPerSession = kb(loaded.rss - loaded.young - (before.rss - before.young)) / more;
      figures.heapKbPerSession = kb(loaded.heapUsed - before.heapUsed) / more;
      if (shared) {
        // Redis's side of the same sessions: its whole used_memory (every client's keys, when the
        // Redis is shared), and the keys under this target's prefix alone.
        const redisLoaded = await redisMemory(shared);
        figures.redisKbPerSession = kb(redisLoaded.used - redisBefore!.used) / more;
        figures.redisKeysKbPerSession = kb(redisLoaded.keys - redisBefore!.keys) / more;
        progress(
          `  ${target.label}: ${more} sessions take ${figures.kbPerSession.toFixed(1)} KB RSS each in the server, ` +
            `${figures.redisKeysKbPerSession.toFixed(1)} KB each in Redis keys (${figures.redisKbPerSession.toFixed(1)} KB of used_memory)`,
        );
      }
      await closeSessions(url, held, 64);
    }

    const most = Math.max(...s.concurrencies, s.bigConnections, s.peakConnections);
    // A modern client holds no session: each connection just sends its requests.
    const modern = target.modern === true;
    const sessions = target.mcp && !modern ? await openSessions(url, most, 16) : Array<undefined>(most).fill(undefined);
    checked(target, 'warm-up', await toolCalls({ url, sessions: sessions.slice(0, 16), durationS: s.warmS, tool: 'echo', modern }));

    for (const c of s.concurrencies) {
      const cpuBefore = await server.cpu();
      const redisBefore = shared && (await shared.redis.reading());
      const load: CallLoad = await toolCalls({ url, sessions: sessions.slice(0, c), durationS: s.callS, tool: 'echo', modern });
      const cpuUsed = (await server.cpu()) - cpuBefore;
      const redisAfter = shared && (await shared.redis.reading());
      checked(target, `echo c=${c}`, load);
      figures[`echo${c}Rps`] = load.rps;
      // Server CPU per answered call: what the server spends, whoever (server or load generator) limits req/s.
      figures[`echo${c}CpuUs`] = cpuUsed / load.ok;
      figures[`echo${c}P50`] = load.p50;
      figures[`echo${c}P99`] = load.p99;
      progress(
        `  ${target.label}: echo c=${c} ${Math.round(load.rps)} req/s, p50 ${load.p50.toFixed(2)} ms, p99 ${load.p99.toFixed(2)} ms, ` +
          `${figures[`echo${c}CpuUs`]!.toFixed(1)} µs server CPU per call`,
      );
      if (redisBefore && redisAfter) {
        // What Redis itself spent, per call: the whole Redis process, so other clients of a shared Redis count too.
        figures[`echo${c}RedisCpuUs`] = (redisAfter.cpuUs - redisBefore.cpuUs) / load.ok;
        const commands = commandsBetween(redisBefore, redisAfter);
        figures[`echo${c}RedisCommands`] = commands.reduce((sum, [, calls]) => sum + calls, 0) / load.ok;
        // Growth of Redis's memory per call: the event log of each answered call, kept for its retention.
        figures[`echo${c}RedisKbPerCall`] = kb(redisAfter.usedMemory - redisBefore.usedMemory) / load.ok;
        progress(
          `  ${target.label}: echo c=${c} ${figures[`echo${c}RedisCpuUs`]!.toFixed(1)} µs Redis CPU, ` +
            `${figures[`echo${c}RedisKbPerCall`]!.toFixed(2)} KB more Redis memory and ` +
            `${figures[`echo${c}RedisCommands`]!.toFixed(1)} Redis commands per call (${commands.map(([name, calls]) => `${name} ${(calls / load.ok).toFixed(2)}`).join(', ')})`,
        );
      }
    }

    // At least 2 s: on a busy machine one 1 MB answer can take longer than a quick run's 0.3 s.
    const big = await toolCalls({ url, sessions: sessions.slice(0, s.bigConnections), durationS: Math.max(2, s.callS), tool: 'big', modern });
    checked(target, 'big', big);
    figures.bigMBps = big.mbps!;
    progress(`  ${target.label}: big ${Math.round(big.mbps!)} MB/s`);

    // The same at more connections, the RSS sampled meanwhile: what a burst of 1 MB answers costs in
    // memory. Two full collections first (the memory reading), so every server starts from a collected heap.
    await server.memory();
    await server.peakStart();
    const burst = await toolCalls({ url, sessions: sessions.slice(0, s.peakConnections), durationS: Math.max(2, s.callS), tool: 'big', modern });
    const peak = await server.peak();
    checked(target, `big c=${s.peakConnections}`, burst);
    figures[`big${s.peakConnections}MBps`] = burst.mbps!;
    figures[`big${s.peakConnections}PeakRssMB`] = peak.rssMax / 1024 / 1024;
    // The kernel's count of the same peak (Linux): what the 10 ms readings may have missed while the server was busy.
    if (peak.hwm !== undefined) figures[`big${s.peakConnections}HwmRssMB`] = peak.hwm / 1024 / 1024;
    progress(
      `  ${target.label}: big at ${s.peakConnections} connections ${Math.round(burst.mbps!)} MB/s, ` +
        `peak RSS ${(peak.rssMax / 1024 / 1024).toFixed(1)} MB (${peak.samples} readings` +
        `${peak.hwm === undefined ? '' : `; the kernel's VmHWM ${(peak.hwm / 1024 / 1024).toFixed(1)} MB`})`,
    );

    if (target.stateful) {
      // At least 2 s: a server that takes a second per initialize must still finish some sessions.
      const cycles = await sessionCycles({ url, connections: s.sessionConnections, durationS: Math.max(2, s.callS) });
      checked(target, 'sessions', cycles);
      figures.sessionsPerS = cycles.perSecond;
      progress(`  ${target.label}: ${Math.round(cycles.perSecond)} sessions/s`);
    }
    return figures;
  } catch (err) {
    if (err instanceof BadAnswers) throw err;
    throw new Error(`${target.label}: ${(err as Error).message}${server.stderrTail() ? `\n  server stderr: ${server.stderrTail()}` : ''}`, { cause: err });
  } finally {
    await server.stop();
  }
}

/** Redis's used_memory, and the bytes of the target's own keys. */
async function redisMemory({ redis, prefix }: RedisUse): Promise<{ used: number; keys: number }> {
  const [reading, keys] = await Promise.all([redis.reading(), redis.keysMemory(prefix)]);
  return { used: reading.usedMemory, keys };
}

/** A start and stop of the server, for its time to listen alone. */
async function listenOnce(target: Target, s: Settings, env: NodeJS.ProcessEnv): Promise<number> {
  const port = await freePort();
  const spawnedAt = performance.now();
  const server = startProcess(target.script, target.args, { ...env, PORT: String(port) }, false, s.pin);
  try {
    return (await waitForPort(port, server)) - spawnedAt;
  } finally {
    await server.stop();
  }
}

/** Spawns a stdio server and waits for its first answer (initialize; 2026-07-28: server/discover), timed from right before the spawn. */
async function startStdio(target: Target, s: Settings, env: NodeJS.ProcessEnv) {
  const spawnedAt = performance.now();
  const server = startProcess(target.script, target.args, env, true, s.pin);
  const peer = new StdioPeer(server.child, target.modern === true);
  const exited = new Promise<never>((_, reject) => server.child.once('exit', (code) => reject(new Error(`${target.label} exited with ${code}: ${server.stderrTail()}`))));
  exited.catch(() => undefined);
  try {
    await Promise.race([peer.initialize(), exited]);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return { server, peer, exited, firstAnswerMs: performance.now() - spawnedAt };
}

async function measureStdio(target: Target, s: Settings, progress: (line: string) => void): Promise<Figures> {
  // The floor a stdio server's start is held against, measured just before it: a bare Node process's first output.
  const nodeStartMs = await bareNodeStart(s.pin);
  const env: NodeJS.ProcessEnv = { MCPX_COMPILE_CACHE: freshCompileCache() };
  const figures: Figures = {};
  // As over HTTP: the measured start is the third on its compile cache.
  for (const metric of ['stdioFirstAnswerColdMs', 'stdioFirstAnswerSecondMs'] as const) {
    const earlier = await startStdio(target, s, env);
    figures[metric] = earlier.firstAnswerMs;
    await earlier.server.stop();
  }
  const { server, peer, exited, firstAnswerMs } = await startStdio(target, s, env);
  try {
    figures.stdioFirstAnswerMs = firstAnswerMs;
    if (s.pin) checkPinned(server.child.pid!, target.label);
    figures.nodeStartMs = nodeStartMs;
    figures.idleRssKB = kb((await server.memory()).rss);
    checked(target, 'warm-up', await stdioRoundTrips(peer, 16, s.warmS));
    const serial = await Promise.race([stdioRoundTrips(peer, 1, s.callS), exited]);
    checked(target, 'serial', serial);
    const pipelined = await Promise.race([stdioRoundTrips(peer, s.stdioInFlight, s.callS), exited]);
    checked(target, 'pipelined', pipelined);
    figures.stdioSerialRps = serial.rps;
    figures.stdioPipelinedRps = pipelined.rps;
    progress(
      `  ${target.label}: first answer ${Math.round(figures.stdioFirstAnswerMs)} ms after the spawn (${Math.round(figures.stdioFirstAnswerColdMs)} ms with an empty compile cache, ${Math.round(figures.stdioFirstAnswerSecondMs)} on the second start); ${Math.round(serial.rps)} round trips/s serial, ${Math.round(pipelined.rps)} with ${s.stdioInFlight} in flight`,
    );
    return figures;
  } finally {
    await server.stop();
  }
}

/**
 * Milliseconds from spawning `node -e` to its first byte on stdout: Node's own start, with no module
 * of ours loaded (under --pin, on the servers' CPU, through taskset as they are).
 */
function bareNodeStart(pin: boolean): Promise<number> {
  const startedAt = performance.now();
  const [command, args] = onServerCpu(process.execPath, ['-e', "process.stdout.write('ready\\n')"], pin);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout.once('data', () => resolve(performance.now() - startedAt));
    child.once('exit', (code) => reject(new Error(`node -e exited with ${code} before writing`)));
  });
}
