/**
 * The official SDK client against a real stdio server process (fixtures/stdio-fixture-server.ts,
 * run from source by fixtures/run-ts.js), for two faults a stdio server is prone to:
 * - progress sent right before the result: the SDK client drops a progress notification that
 *   reaches it in the same read as the response (it handles the response at once and the
 *   notification a microtask later). Every progress must arrive, every time.
 * - console.log and friends in a tool (or a library) must not corrupt the protocol on stdout.
 * Nothing here waits for a time to pass: every step waits for the event it needs.
 */
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { JSONRPCMessageSchema, LoggingMessageNotificationSchema, type CallToolResult, type LoggingMessageNotification, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { StdioTap, type Wire } from './stdio-tap';

const ROOT = resolve(__dirname, '../../..');
const RUN_TS = resolve(__dirname, 'fixtures/run-ts.js');
const FIXTURE = resolve(__dirname, 'fixtures/stdio-fixture-server.ts');
/** Spawning compiles the fixture and the packages it imports from source: slow on a busy machine. */
const SPAWN_TIMEOUT_MS = 90_000;

interface Peer {
  client: Client;
  tap: StdioTap;
  /** Everything the SDK reported through onerror (unparsable lines, stray progress...). */
  errors: Error[];
  logs: LoggingMessageNotification['params'][];
  stderr(): string;
  /** Resolves once the server's stderr contains every one of `needles` (rejects with what it has on close). */
  stderrContains(...needles: string[]): Promise<void>;
  /** Resolves once what the server wrote to stderr satisfies `holds` (pino writes it asynchronously). */
  stderrUntil(holds: (text: string) => boolean, what: string): Promise<void>;
}

const peers: Peer[] = [];

/** Spawns a server and connects the SDK client to it; closed after the test unless `shared`. */
async function connect(env: Record<string, string> = {}, shared = false): Promise<Peer> {
  const inner = new StdioClientTransport({
    command: process.execPath,
    args: [RUN_TS, FIXTURE],
    cwd: ROOT,
    env: { ...getDefaultEnvironment(), ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  let stderrEnded = false;
  const watchers = new Set<() => void>();
  inner.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    for (const watcher of [...watchers]) watcher();
  });
  inner.stderr!.on('end', () => {
    stderrEnded = true;
    for (const watcher of [...watchers]) watcher();
  });
  const tap = new StdioTap(inner); // no workaround: messages reach the SDK exactly as its transport reads them
  const client = new Client({ name: 'mcpx-stdio-faults', version: '1.0.0' }, { capabilities: {} });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  const logs: Peer['logs'] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  await client.connect(tap);
  const stderrUntil = (holds: (text: string) => boolean, what: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (holds(stderr)) resolve();
        // Fails at once (not at the test timeout) when the server is gone without writing it all.
        else if (stderrEnded) reject(new Error(`stderr ended without ${what}:\n${stderr}`));
        else return;
        watchers.delete(check);
      };
      watchers.add(check);
      check();
    });
  const stderrContains = (...needles: string[]) => stderrUntil((text) => needles.every((n) => text.includes(n)), `one of ${JSON.stringify(needles)}`);
  const peer: Peer = { client, tap, errors, logs, stderr: () => stderr, stderrContains, stderrUntil };
  if (!shared) peers.push(peer);
  return peer;
}

/** Every line the server wrote to stdout is a JSON-RPC 2.0 message, and nothing else is there. */
function expectOnlyProtocolOnStdout(tap: StdioTap): void {
  expect(tap.stdout.endsWith('\n')).toBe(true);
  for (const line of tap.stdout.slice(0, -1).split('\n')) {
    let parsed: unknown;
    expect(() => (parsed = JSON.parse(line))).not.toThrow();
    if (!JSONRPCMessageSchema.safeParse(parsed).success) throw new Error(`not a JSON-RPC message on stdout: ${line}`);
  }
}

function textOf(result: CallToolResult): string {
  return (result.content as { type: string; text?: string }[]).map((c) => c.text).join('\n');
}

afterEach(async () => {
  const all = peers.splice(0);
  await Promise.all(all.map((peer) => peer.client.close()));
});

describe('progress right before the result', () => {
  let peer: Peer;
  beforeAll(async () => {
    peer = await connect({}, true);
  }, SPAWN_TIMEOUT_MS);
  afterAll(async () => {
    await peer?.client.close();
  });
  afterEach(() => {
    expect(peer.errors.map(String)).toEqual([]);
  });

  it('reaches the official client in full, before the result, 20 calls in a row', async () => {
    const { client, tap, errors } = peer;
    const count = 5;
    for (let run = 1; run <= 20; run++) {
      // Odd runs send all the progress in one turn of the event loop, even runs 1 ms apart; each returns right after the last.
      const args = run % 2 === 1 ? { count } : { count, spacingMs: 1 };
      const seen: Progress[] = [];
      let resultArrived = false;
      const result = (await client.callTool({ name: 'burst', arguments: args }, undefined, {
        onprogress: (p) => {
          expect(resultArrived).toBe(false);
          seen.push(p);
        },
      })) as CallToolResult;
      resultArrived = true;
      expect({ run, result: textOf(result) }).toEqual({ run, result: `sent ${count}` });
      expect({ run, seen }).toEqual({
        run,
        seen: Array.from({ length: count }, (_, i) => ({ progress: i + 1, total: count, message: `step ${i + 1}` })),
      });
      expect({ run, errors: errors.map(String) }).toEqual({ run, errors: [] });
    }

    // On the wire, for every call: all its progress, then the server's ping, the client's answer, and only then the response.
    const calls = tap.outgoing().filter((m) => m.method === 'tools/call');
    expect(calls).toHaveLength(20);
    for (const call of calls) {
      const token = call.params!._meta.progressToken;
      const at = (match: (w: { dir: string; msg: Wire }) => boolean) => tap.wire.findIndex(match);
      const response = at((w) => w.dir === 'in' && w.msg.id === call.id && w.msg.method === undefined);
      const progress = tap.wire.flatMap((w, i) => (w.dir === 'in' && w.msg.method === 'notifications/progress' && w.msg.params!.progressToken === token ? [i] : []));
      expect(progress).toHaveLength(count);
      const lastProgress = Math.max(...progress);
      const ping = tap.wire.findIndex((w, i) => i > lastProgress && w.dir === 'in' && w.msg.method === 'ping');
      expect(ping).toBeGreaterThan(lastProgress);
      const pingId = tap.wire[ping]!.msg.id;
      expect(typeof pingId).toBe('string'); // never mistaken for one of the client's ids
      const answer = at((w) => w.dir === 'out' && w.msg.id === pingId && w.msg.result !== undefined);
      expect(answer).toBeGreaterThan(ping);
      expect(response).toBeGreaterThan(answer);
    }
  });

  it('reaches the official client in full with several calls in flight at once', async () => {
    const { client } = peer;
    const seen = new Map<number, number[]>();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, call) =>
        client.callTool({ name: 'burst', arguments: call % 2 ? { count: 4, spacingMs: 1 } : { count: 4 } }, undefined, {
          onprogress: (p) => void seen.set(call, [...(seen.get(call) ?? []), p.progress]),
        }),
      ),
    );
    expect(results.map((r) => textOf(r as CallToolResult))).toEqual(Array(8).fill('sent 4'));
    expect([...seen.keys()].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    for (const progress of seen.values()) expect(progress).toEqual([1, 2, 3, 4]);
  });

  it('does not ping for a call without a progress token', async () => {
    const { client, tap } = peer;
    const mark = tap.wire.length;
    const result = (await client.callTool({ name: 'burst', arguments: { count: 3 } })) as CallToolResult;
    expect(textOf(result)).toBe('sent 3');
    await client.ping(); // a round trip: anything the server wrote before its answer has arrived
    const after = tap.wire.slice(mark).filter((w) => w.dir === 'in');
    expect(after.filter((w) => w.msg.method !== undefined)).toEqual([]);
    expectOnlyProtocolOnStdout(tap);
  });
});

describe('console output in a tool', () => {
  const JUNK = [
    'junk from console.log',
    'junk from console.info',
    'junk from console.debug',
    "junk: 'from console.dir'",
    'from console.table',
    'junk from process.stdout.write with no newline',
  ];

  it(
    'goes to stderr; stdout carries only the protocol, and pino logs as before',
    async () => {
      const { client, tap, errors, logs, stderr, stderrContains, stderrUntil } = await connect();
      await client.setLoggingLevel('info');
      for (let i = 0; i < 3; i++) {
        const result = (await client.callTool({ name: 'noisy', arguments: {} })) as CallToolResult;
        expect(result).toEqual({ content: [{ type: 'text', text: 'still fine' }] });
      }
      // Other calls after the junk (which had no newline) still work: nothing was glued to a message.
      const burst = (await client.callTool({ name: 'burst', arguments: { count: 2 } })) as CallToolResult;
      expect(textOf(burst)).toBe('sent 2');
      expect(errors.map(String)).toEqual([]);
      expect(logs).toEqual(Array(3).fill({ level: 'info', data: 'noisy ran' }));
      expectOnlyProtocolOnStdout(tap);
      for (const junk of JUNK) expect(tap.stdout).not.toContain(junk);

      // The junk is on stderr, next to pino's JSON lines (the engine's logger writes to fd 2 as before;
      // a pino line may follow the junk that had no newline on the same line).
      await stderrContains(...JUNK, '"msg":"serving over stdio"');
      await stderrUntil((text) => text.split('"msg":"noisy ran"').length - 1 >= 3, 'three "noisy ran" lines');
      const pinoLines = stderr()
        .split('\n')
        .filter((l) => l.includes('{"level":'))
        .map((l) => JSON.parse(l.slice(l.indexOf('{"level":'))) as { msg: string });
      expect(pinoLines.map((l) => l.msg)).toEqual(expect.arrayContaining(['serving over stdio', 'session initialized', 'noisy ran']));
      expect(pinoLines.filter((l) => l.msg === 'noisy ran')).toHaveLength(3);
    },
    SPAWN_TIMEOUT_MS,
  );

  it(
    'corrupts stdout when the redirection is turned off (what the option prevents)',
    async () => {
      const { client, tap, errors } = await connect({ MCPX_TEST_REDIRECT_STDOUT: '0' });
      const rejected = new Promise<void>((resolve) => {
        client.onerror = (error) => {
          errors.push(error);
          resolve();
        };
      });
      // The junk without a newline is glued to the response, which the SDK then cannot parse: this call never resolves.
      const call = client.callTool({ name: 'noisy', arguments: {} });
      call.catch(() => {}); // rejected when the client closes
      await rejected;
      expect(tap.stdout).toContain('junk from console.log\n');
      expect(errors.map(String).join('\n')).toMatch(/JSON|Unexpected token/);
    },
    SPAWN_TIMEOUT_MS,
  );
});
