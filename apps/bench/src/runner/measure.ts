import { closeSessions, openSessions, sessionCycles, toolCalls, type CallLoad } from './http-load';
import { freePort, startProcess, waitForPort } from './processes';
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
  sessionConnections: number;
  /** Sessions held open for the memory figure. */
  memorySessions: number;
  stdioInFlight: number;
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

/** Starts the target, measures everything that applies to it, and stops it. */
export async function measure(target: Target, settings: Settings, progress: (line: string) => void): Promise<Figures> {
  return target.transport === 'http' ? measureHttp(target, settings, progress) : measureStdio(target, settings, progress);
}

async function measureHttp(target: Target, s: Settings, progress: (line: string) => void): Promise<Figures> {
  const port = await freePort();
  const server = startProcess(target.script, target.args, { PORT: String(port) }, false);
  const figures: Figures = {};
  try {
    await waitForPort(port, server);
    const url = `http://127.0.0.1:${port}/mcp`;
    figures.idleRssKB = kb((await server.memory()).rss);

    if (target.stateful) {
      // A first round of sessions, closed again, so that compiled code, connection pools and other
      // first-use structures are in the baseline rather than counted per session.
      await closeSessions(url, await openSessions(url, Math.min(200, s.memorySessions), 64), 64);
      const idle = await server.memory();
      const held = await openSessions(url, s.memorySessions, 64);
      const loaded = await server.memory();
      figures.sessionsRssKB = kb(loaded.rss);
      figures.kbPerSession = kb(loaded.rss - idle.rss) / s.memorySessions;
      figures.heapKbPerSession = kb(loaded.heapUsed - idle.heapUsed) / s.memorySessions;
      await closeSessions(url, held, 64);
    }

    const most = Math.max(...s.concurrencies, s.bigConnections);
    // A modern client holds no session: each connection just sends its requests.
    const modern = target.modern === true;
    const sessions = target.mcp && !modern ? await openSessions(url, most, 16) : Array<undefined>(most).fill(undefined);
    checked(target, 'warm-up', await toolCalls({ url, sessions: sessions.slice(0, 16), durationS: s.warmS, tool: 'echo', modern }));

    for (const c of s.concurrencies) {
      const cpuBefore = await server.cpu();
      const load: CallLoad = await toolCalls({ url, sessions: sessions.slice(0, c), durationS: s.callS, tool: 'echo', modern });
      const cpuUsed = (await server.cpu()) - cpuBefore;
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
    }

    const big = await toolCalls({ url, sessions: sessions.slice(0, s.bigConnections), durationS: s.callS, tool: 'big', modern });
    checked(target, 'big', big);
    figures.bigMBps = big.mbps!;
    progress(`  ${target.label}: big ${Math.round(big.mbps!)} MB/s`);

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
    throw new Error(`${target.label}: ${(err as Error).message}${server.stderrTail() ? `\n  server stderr: ${server.stderrTail()}` : ''}`);
  } finally {
    await server.stop();
  }
}

async function measureStdio(target: Target, s: Settings, progress: (line: string) => void): Promise<Figures> {
  const server = startProcess(target.script, target.args, {}, true);
  const figures: Figures = {};
  try {
    const peer = new StdioPeer(server.child, target.modern === true);
    const exited = new Promise<never>((_, reject) =>
      server.child.once('exit', (code) => reject(new Error(`${target.label} exited with ${code}: ${server.stderrTail()}`))),
    );
    exited.catch(() => undefined);
    await Promise.race([peer.initialize(), exited]);
    figures.idleRssKB = kb((await server.memory()).rss);
    checked(target, 'warm-up', await stdioRoundTrips(peer, 16, s.warmS));
    const serial = await Promise.race([stdioRoundTrips(peer, 1, s.callS), exited]);
    checked(target, 'serial', serial);
    const pipelined = await Promise.race([stdioRoundTrips(peer, s.stdioInFlight, s.callS), exited]);
    checked(target, 'pipelined', pipelined);
    figures.stdioSerialRps = serial.rps;
    figures.stdioPipelinedRps = pipelined.rps;
    progress(`  ${target.label}: ${Math.round(serial.rps)} round trips/s serial, ${Math.round(pipelined.rps)} with ${s.stdioInFlight} in flight`);
    return figures;
  } finally {
    await server.stop();
  }
}
