/**
 * The stdio transport under hostile or sloppy input: a raw child process running the built
 * example server, fed raw bytes on stdin. Every stdout line must be a JSON-RPC message (logs
 * belong on stderr), every bad frame gets its exact error code, and the server keeps serving.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');
const SERVER = resolve(ROOT, 'apps/example/dist/main-stdio.js');
/**
 * The same server as the example's entry, with a drain deadline (10 min) far past any test's timeout:
 * a server that exits at all after its input ends did not wait for the deadline, however slow the machine.
 */
const LONG_DRAIN = [
  '-e',
  `require(${JSON.stringify(resolve(ROOT, 'packages/stdio/dist/index.js'))}).serveStdio(` +
    `new (require(${JSON.stringify(resolve(ROOT, 'apps/example/dist/notes-server.js'))}).NotesServer)(), { drainTimeoutMs: 600000 });`,
];
const dataDirs: string[] = [];
afterAll(() => {
  for (const dir of dataDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const MiB = 1024 * 1024;

interface Message {
  jsonrpc: string;
  id?: string | number | null;
  method?: string;
  params?: Record<string, any>;
  result?: Record<string, any>;
  error?: { code: number; message: string; data?: unknown };
}

class RawServer {
  readonly child: ChildProcessWithoutNullStreams;
  /** Every stdout line, as written. */
  readonly lines: string[] = [];
  /** The lines that parsed as JSON-RPC 2.0 messages. */
  readonly messages: Message[] = [];
  /** Lines on stdout that are not a JSON-RPC message: must stay empty. */
  readonly garbage: string[] = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private pending = Buffer.alloc(0);
  private listeners = new Set<() => void>();
  private nextId = 1000;

  constructor(args: string[] = [SERVER]) {
    // Each server gets a fresh data folder: it starts from the seeded notes and leaves nothing behind.
    const dataDir = mkdtempSync(join(tmpdir(), 'mcpx-notes-'));
    dataDirs.push(dataDir);
    this.child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, MCPX_PAGE_SIZE: '2', MCPX_DATA_DIR: dataDir }, stdio: 'pipe' });
    this.child.stdout.on('data', (chunk: Buffer) => this.onStdout(chunk));
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    // Writing to a server that already exited must not crash the test runner.
    this.child.stdin.on('error', () => {});
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  private onStdout(chunk: Buffer): void {
    this.pending = Buffer.concat([this.pending, chunk]);
    for (let nl = this.pending.indexOf(10); nl !== -1; nl = this.pending.indexOf(10)) {
      const line = this.pending.subarray(0, nl).toString('utf8');
      this.pending = this.pending.subarray(nl + 1);
      this.lines.push(line);
      try {
        const value = JSON.parse(line) as Message;
        if (value === null || typeof value !== 'object' || Array.isArray(value) || value.jsonrpc !== '2.0') throw new Error('not JSON-RPC');
        this.messages.push(value);
      } catch {
        this.garbage.push(line);
      }
    }
    for (const listener of [...this.listeners]) listener();
  }

  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => this.child.stdin.write(data, (err) => (err ? reject(err) : resolve())));
  }

  send(message: object): Promise<void> {
    return this.write(`${JSON.stringify(message)}\n`);
  }

  /** Resolves with the first message from index `from` on that matches. */
  waitFor(match: (m: Message) => boolean, from = 0, timeoutMs = 8000): Promise<Message> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.messages.slice(from).find(match);
        if (!found) return false;
        clearTimeout(timer);
        this.listeners.delete(listener);
        resolve(found);
        return true;
      };
      const listener = () => void check();
      const timer = setTimeout(() => {
        this.listeners.delete(listener);
        reject(new Error(`no matching message within ${timeoutMs} ms; got ${JSON.stringify(this.messages.slice(from))}\nstderr: ${this.stderr}`));
      }, timeoutMs);
      if (!check()) this.listeners.add(listener);
    });
  }

  /** Sends a request and resolves with its response. */
  async request(method: string, params?: Record<string, unknown>, id: string | number = this.nextId++): Promise<Message> {
    const from = this.messages.length;
    await this.send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    return this.waitFor((m) => m.id === id && (m.result !== undefined || m.error !== undefined), from);
  }

  /** The proof that the server still serves: a ping answered with an empty result. */
  async expectAlive(): Promise<void> {
    const response = await this.request('ping');
    expect(response.result).toEqual({});
  }

  async initialize(): Promise<void> {
    const response = await this.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'raw', version: '0' },
    });
    expect(response.result?.protocolVersion).toBe('2025-11-25');
    await this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  /** Writes a raw frame and resolves with the single message it provoked (which must carry an error). */
  async errorFor(frame: string | Buffer): Promise<Message> {
    const from = this.messages.length;
    await this.write(frame);
    // A ping after it: everything the bad frame provoked comes first (frames are handled in order).
    await this.expectAlive();
    const provoked = this.messages.slice(from, -1);
    expect(provoked).toHaveLength(1);
    expect(provoked[0]!.error).toBeDefined();
    return provoked[0]!;
  }

  /** Writes frames that must provoke nothing at all (checked with a ping behind them). */
  async expectSilence(frame: string | Buffer): Promise<void> {
    const from = this.messages.length;
    await this.write(frame);
    await this.expectAlive();
    expect(this.messages.slice(from, -1)).toEqual([]);
  }

  logLines(): Record<string, unknown>[] {
    return this.stderr
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }
}

/** Servers owned by one test, stopped after it. */
const servers: RawServer[] = [];
/** Servers shared by a describe block (spawning one costs ~0.3 s), stopped after that block. */
const sharedServers: RawServer[] = [];

function start(args?: string[]): RawServer {
  const server = new RawServer(args);
  servers.push(server);
  return server;
}

/** One server for a whole describe block: each of its tests must leave it serving. */
function useSharedServer(initialize: boolean): () => RawServer {
  let server: RawServer | undefined;
  beforeAll(async () => {
    server = new RawServer();
    sharedServers.push(server);
    if (initialize) await server.initialize();
  });
  afterAll(async () => {
    sharedServers.splice(sharedServers.indexOf(server!), 1);
    await stop(server!);
    expectCleanStreams(server!);
    expect(await server!.exited).toEqual({ code: 0, signal: null });
  });
  return () => server!;
}

async function stop(server: RawServer): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) {
    server.child.stdin.end();
    // A bound on waiting for the exit (the checks after it expect a clean one), not a speed.
    await Promise.race([server.exited, new Promise((r) => setTimeout(r, 15_000).unref())]);
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
  }
}

function expectCleanStreams(server: RawServer): void {
  // stdout carries nothing but JSON-RPC; the logs went to stderr, as JSON lines.
  expect(server.garbage).toEqual([]);
  expect(server.lines.length).toBe(server.messages.length);
  expect(server.logLines().some((l) => l.msg === 'serving over stdio')).toBe(true);
}

beforeAll(() => {
  if (!existsSync(SERVER)) {
    throw new Error(`${SERVER} does not exist: run "npm run build" first (npm test builds before running jest)`);
  }
});

afterEach(async () => {
  const own = servers.splice(0);
  await Promise.all(own.map(stop));
  for (const server of [...own, ...sharedServers]) expectCleanStreams(server);
});

describe('framing and envelope errors (before initialize: the transport checks them first)', () => {
  const shared = useSharedServer(false);

  it('answers malformed JSON with -32700 and no id', async () => {
    const server = shared();
    const err = await server.errorFor('{"jsonrpc":"2.0","id":1,"method":\n');
    expect(err).not.toHaveProperty('id');
    expect(err.error!.code).toBe(-32700);
    expect(err.error!.message).toMatch(/^Parse error: /);
    const again = await server.errorFor('not json at all\n');
    expect(again).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: expect.stringMatching(/^Parse error: /) } });
  });

  it('answers a wrong or missing jsonrpc version with -32600, echoing a usable id', async () => {
    const server = shared();
    const wrong = await server.errorFor('{"jsonrpc":"1.0","id":7,"method":"ping"}\n');
    expect(wrong.id).toBe(7);
    expect(wrong.error!.code).toBe(-32600);
    expect(wrong.error!.message).toMatch(/"jsonrpc" must be "2.0"/);
    const missing = await server.errorFor('{"id":"x","method":"ping"}\n');
    expect(missing).toMatchObject({ id: 'x', error: { code: -32600, message: expect.stringMatching(/jsonrpc/) } });
  });

  it('rejects a batch array with -32600 and processes none of it', async () => {
    const server = shared();
    const err = await server.errorFor('[{"jsonrpc":"2.0","id":8,"method":"ping"},{"jsonrpc":"2.0","id":9,"method":"ping"}]\n');
    expect(err).not.toHaveProperty('id');
    expect(err.error!.code).toBe(-32600);
    expect(err.error!.message).toMatch(/batch/i);
    expect(server.messages.filter((m) => m.id === 8 || m.id === 9)).toEqual([]);
  });

  it.each([
    ['an object', '{"jsonrpc":"2.0","id":{"n":1},"method":"ping"}'],
    ['a boolean', '{"jsonrpc":"2.0","id":true,"method":"ping"}'],
    ['null', '{"jsonrpc":"2.0","id":null,"method":"ping"}'],
    ['an array', '{"jsonrpc":"2.0","id":[1],"method":"ping"}'],
    ['a fraction', '{"jsonrpc":"2.0","id":1.5,"method":"ping"}'],
    ['a number past the integers', '{"jsonrpc":"2.0","id":1e400,"method":"ping"}'],
  ])('rejects an id that is %s with -32600, without an id', async (_kind, frame) => {
    const server = shared();
    const err = await server.errorFor(`${frame}\n`);
    expect(err).not.toHaveProperty('id');
    expect(err.error!.code).toBe(-32600);
    expect(err.error!.message).toMatch(/"id" must be a string or an integer, got /);
  });

  it('rejects other non-messages with -32600: a scalar, a method that is not a string, a message that is neither', async () => {
    const server = shared();
    expect(await server.errorFor('42\n')).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: expect.stringMatching(/JSON object/) } });
    expect(await server.errorFor('"ping"\n')).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: expect.any(String) } });
    expect(await server.errorFor('{"jsonrpc":"2.0","id":3,"method":5}\n')).toMatchObject({
      id: 3,
      error: { code: -32600, message: expect.stringMatching(/"method" must be a non-empty string/) },
    });
    expect(await server.errorFor('{"jsonrpc":"2.0","id":4}\n')).toMatchObject({ id: 4, error: { code: -32600 } });
  });

  it('answers params that are not an object with -32602 for a request', async () => {
    const server = shared();
    const err = await server.errorFor('{"jsonrpc":"2.0","id":5,"method":"ping","params":[1,2]}\n');
    expect(err).toMatchObject({ id: 5, error: { code: -32602, message: expect.stringMatching(/"params" must be an object/) } });
  });

  it('answers an unknown method with -32601 naming it, and ignores an unknown notification or a stray response', async () => {
    const server = shared();
    const err = await server.errorFor('{"jsonrpc":"2.0","id":"u1","method":"notes/teleport"}\n');
    expect(err).toEqual({ jsonrpc: '2.0', id: 'u1', error: { code: -32601, message: 'Method not found: notes/teleport' } });
    await server.expectSilence('{"jsonrpc":"2.0","method":"notifications/teleported"}\n');
    await server.expectSilence('{"jsonrpc":"2.0","id":99,"result":{}}\n');
    await server.expectSilence('{"jsonrpc":"2.0","id":98,"error":{"code":-1,"message":"no"}}\n');
  });
});

describe('lifecycle', () => {
  it('refuses requests before initialize with an error naming initialize, but answers ping', async () => {
    const server = start();
    const early = await server.request('tools/list', {}, 'early');
    expect(early.result).toBeUndefined();
    expect(early.error!.code).toBe(-32600);
    expect(early.error!.message).toMatch(/initialize/);
    expect(early.error!.message).toMatch(/tools\/list/);
    await server.expectAlive(); // ping is allowed before initialize
    await server.initialize();
    const later = await server.request('tools/list', {});
    expect(later.result!.tools).toHaveLength(2);
    // A second initialize is refused; the session goes on.
    const twice = await server.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } });
    expect(twice.error).toMatchObject({ code: -32600, message: expect.stringMatching(/already initialized/) });
    await server.expectAlive();
  });

  it('negotiates the version: a supported older one is echoed, an unknown one gets the latest', async () => {
    const older = start();
    const unknown = start();
    const init = (server: RawServer, protocolVersion: string) => server.request('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '0' } });
    const [a, b] = await Promise.all([init(older, '2025-06-18'), init(unknown, '1999-01-01')]);
    expect(a.result!.protocolVersion).toBe('2025-06-18');
    expect(b.result!.protocolVersion).toBe('2025-11-25');
  });

  it('answers an initialize without clientInfo or capabilities with -32602, and accepts a proper one afterwards', async () => {
    const server = start();
    const noInfo = await server.request('initialize', { protocolVersion: '2025-11-25', capabilities: {} });
    expect(noInfo.error).toMatchObject({ code: -32602, message: expect.stringMatching(/clientInfo/) });
    const noCaps = await server.request('initialize', { protocolVersion: '2025-11-25', clientInfo: { name: 'raw', version: '0' } });
    expect(noCaps.error).toMatchObject({ code: -32602, message: expect.stringMatching(/capabilities/) });
    await server.initialize();
  });
});

describe('parameter errors after initialize (-32602, each naming the bad parameter)', () => {
  const shared = useSharedServer(true);

  it.each([
    ['tools/call with a numeric name', 'tools/call', { name: 5 }, /"name" must be a string, got a number/],
    ['tools/call with arguments that are a string', 'tools/call', { name: 'search', arguments: 'query=x' }, /"arguments" must be an object/],
    ['resources/read without uri', 'resources/read', {}, /"uri" must be a string and is missing/],
    ['logging/setLevel to an unknown level', 'logging/setLevel', { level: 'loud' }, /"level" must be one of debug, .*, got "loud"/],
    ['tools/list with a forged cursor', 'tools/list', { cursor: 'bogus' }, /Invalid cursor/],
    ['resources/list with a numeric cursor', 'resources/list', { cursor: 3 }, /"cursor" must be a string/],
    ['prompts/get without name', 'prompts/get', { arguments: {} }, /"name" must be a string and is missing/],
    ['completion/complete without ref', 'completion/complete', { argument: { name: 'x', value: '' } }, /"ref"/],
  ])('%s', async (_title, method, params, message) => {
    const server = shared();
    const response = await server.request(method, params as Record<string, unknown>);
    expect(response.result).toBeUndefined();
    expect(response.error!.code).toBe(-32602);
    expect(response.error!.message).toMatch(message);
    await server.expectAlive();
  });

  it('refuses a request id that is still in flight with -32600, and answers the original', async () => {
    const server = shared();
    const from = server.messages.length;
    // One write, so one read: the ping is handled in the same turn as the call, which waits 50 ms before its first note.
    const call = { jsonrpc: '2.0', id: 'dup', method: 'tools/call', params: { name: 'export', arguments: { format: 'json', delayMs: 50 } } };
    await server.write(`${JSON.stringify(call)}\n${JSON.stringify({ jsonrpc: '2.0', id: 'dup', method: 'ping' })}\n`);
    const refused = await server.waitFor((m) => m.id === 'dup' && m.error !== undefined, from);
    expect(refused.error).toMatchObject({ code: -32600, message: expect.stringMatching(/already in use/) });
    const answered = await server.waitFor((m) => m.id === 'dup' && m.result !== undefined, from);
    expect(answered.result!.content[0].text.split('\n')).toHaveLength(3);
  });
});

describe('framing', () => {
  const shared = useSharedServer(false);

  it('answers a line over the 4 MiB limit with an error, then keeps serving; a line just under it is served', async () => {
    const server = shared();
    const head = '{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"';
    const tail = '"}}';
    const over = head + 'x'.repeat(4 * MiB + 10 - head.length - tail.length) + tail;
    expect(Buffer.byteLength(over)).toBeGreaterThan(4 * MiB);
    const err = await server.errorFor(`${over}\n`);
    expect(err.id).toBe('big'); // found by the bounded scan of the skipped frame
    expect(err.error!.code).toBe(-32600);
    expect(err.error!.message).toMatch(/Message too large: \d+ bytes exceeds the limit of 4194304 bytes/);
    expect(server.messages.filter((m) => m.id === 'big')).toEqual([err]); // the error only: the line was not served
    // Logged on stderr as well.
    await server.expectAlive();
    expect(server.logLines().some((l) => l.msg === 'message over the size limit; skipped' && l.limit === 4 * MiB)).toBe(true);

    const under = head + 'y'.repeat(4 * MiB - 100 - head.length - tail.length) + tail;
    const from = server.messages.length;
    await server.write(`${under}\n`);
    expect(await server.waitFor((m) => m.id === 'big', from)).toEqual({ jsonrpc: '2.0', id: 'big', result: {} });
  });

  it('handles an oversized line arriving in many writes, resynchronising on the next newline', async () => {
    const server = shared();
    const from = server.messages.length;
    const piece = 'z'.repeat(MiB);
    await server.write('{"jsonrpc":"2.0","id":"huge","method":"ping","params":{"pad":"');
    for (let i = 0; i < 5; i++) await server.write(piece);
    // The end of the huge line and a good message in one write.
    await server.write('"}}\n{"jsonrpc":"2.0","id":"after","method":"ping"}\n');
    const tooLarge = await server.waitFor((m) => m.error !== undefined, from);
    expect(tooLarge).toEqual({ jsonrpc: '2.0', id: 'huge', error: { code: -32600, message: expect.stringMatching(/Message too large/) } });
    expect(await server.waitFor((m) => m.id === 'after', from)).toEqual({ jsonrpc: '2.0', id: 'after', result: {} });
    expect(server.messages.slice(from)).toHaveLength(2);
  });

  it('ignores blank and whitespace-only lines', async () => {
    const server = shared();
    await server.expectSilence('\n\n   \n\t\n\r\n');
  });

  it('accepts CRLF line endings', async () => {
    const server = shared();
    const from = server.messages.length;
    await server.write('{"jsonrpc":"2.0","id":"crlf1","method":"ping"}\r\n{"jsonrpc":"2.0","id":"crlf2","method":"ping"}\r\n');
    expect(await server.waitFor((m) => m.id === 'crlf1', from)).toEqual({ jsonrpc: '2.0', id: 'crlf1', result: {} });
    expect(await server.waitFor((m) => m.id === 'crlf2', from)).toEqual({ jsonrpc: '2.0', id: 'crlf2', result: {} });
  });

  it('reassembles a line split across several writes, even inside a multi-byte character', async () => {
    const server = shared();
    const frame = Buffer.from('{"jsonrpc":"2.0","id":"caf\u00e9 \u2615","method":"ping"}\n', 'utf8');
    const cup = frame.indexOf(Buffer.from('\u2615', 'utf8'));
    const cuts = [5, 20, cup + 1, cup + 2, frame.length - 1];
    const from = server.messages.length;
    let offset = 0;
    for (const cut of cuts) {
      await server.write(frame.subarray(offset, cut));
      await new Promise((r) => setTimeout(r, 15)); // separate chunks on the server's side
      offset = cut;
    }
    // Nothing is answered before the newline arrives.
    expect(server.messages.slice(from)).toEqual([]);
    await server.write(frame.subarray(offset));
    expect(await server.waitFor((m) => m.id === 'caf\u00e9 \u2615', from)).toEqual({ jsonrpc: '2.0', id: 'caf\u00e9 \u2615', result: {} });
  });

  it('handles two messages, and a message plus half of the next, in one write', async () => {
    const server = shared();
    const from = server.messages.length;
    await server.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await server.waitFor((m) => m.id === 2, from);
    await server.write('{"jsonrpc":"2.0","id":3,"method":"ping"}\n{"jsonrpc":"2.0","id":4,');
    await server.waitFor((m) => m.id === 3, from);
    await server.write('"method":"ping"}\n');
    await server.waitFor((m) => m.id === 4, from);
    expect(server.messages.slice(from)).toEqual([1, 2, 3, 4].map((id) => ({ jsonrpc: '2.0', id, result: {} })));
  });

  it('serves a final line that has no newline when stdin ends', async () => {
    const server = start();
    server.child.stdin.end('{"jsonrpc":"2.0","id":"last","method":"ping"}');
    expect(await server.waitFor((m) => m.id === 'last')).toEqual({ jsonrpc: '2.0', id: 'last', result: {} });
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });
});

describe('shutdown', () => {
  async function exitedCleanly(server: RawServer): Promise<void> {
    const { code, signal } = await server.exited;
    expect(signal).toBeNull();
    expect(code).toBe(0);
  }

  // These servers have a 10 min drain deadline (LONG_DRAIN): exiting at all shows they did not wait for it.
  it('exits 0 as soon as stdin ends', async () => {
    const server = start(LONG_DRAIN);
    await server.initialize();
    server.child.stdin.end();
    await exitedCleanly(server);
  });

  it('finishes a request already read when stdin ends, then exits 0', async () => {
    const server = start(LONG_DRAIN);
    await server.initialize();
    await server.send({ jsonrpc: '2.0', id: 'x', method: 'tools/call', params: { name: 'export', arguments: { format: 'json', delayMs: 100 } } });
    server.child.stdin.end();
    await exitedCleanly(server);
    const response = server.messages.find((m) => m.id === 'x');
    expect(response?.result?.content[0].text.split('\n')).toHaveLength(3);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('exits 0 as soon as it gets %s, logging it', async (signal) => {
    const server = start(LONG_DRAIN);
    await server.initialize();
    server.child.kill(signal);
    await exitedCleanly(server);
    expect(server.logLines().some((l) => l.msg === 'stopping' && l.signal === signal)).toBe(true);
  });

  it('exits 0 without a crash when the client closes its end of stdout (EPIPE)', async () => {
    const server = start(LONG_DRAIN);
    await server.initialize();
    server.child.stdout.destroy();
    await server.send({ jsonrpc: '2.0', id: 'p1', method: 'ping' });
    await server.send({ jsonrpc: '2.0', id: 'p2', method: 'ping' });
    await exitedCleanly(server);
    expect(server.stderr).not.toMatch(/Unhandled 'error' event/);
    expect(server.logLines().some((l) => l.msg === 'stdout error; closing' && l.level === 40)).toBe(true);
  });

  it('gives up on a request that outlives the drain time (the example’s 2 s), and still exits 0 without answering it', async () => {
    const server = start();
    await server.initialize();
    // 3 notes × 10 s: far longer than the drain deadline.
    await server.send({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'export', arguments: { format: 'json', delayMs: 10_000 } } });
    await server.expectAlive(); // the export is running
    const started = Date.now();
    server.child.kill('SIGTERM');
    await exitedCleanly(server);
    // It waited for the drain (timers never fire early), then gave up long before the export could end.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1990);
    expect(server.messages.some((m) => m.id === 'slow')).toBe(false);
  });
});

describe('hostile arguments and protocol fields', () => {
  const shared = useSharedServer(true);
  const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
  const manyKeys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`key${i}`, i]));
  const rawCall = (id: string, argumentsJson: string) => `{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":{"name":"search","arguments":${argumentsJson}}}\n`;
  const toolText = (m: Message) => (m.result!.content as { text: string }[]).map((c) => c.text).join('\n');

  it('refuses 200,000 extra keys (2.6 MB) before parsing them, and answers the call written right behind them', async () => {
    const server = shared();
    const from = server.messages.length;
    const hostile = rawCall('hostile', JSON.stringify({ query: 'x', extra: manyKeys(200_000) }));
    const normal = `${JSON.stringify({ jsonrpc: '2.0', id: 'normal', method: 'tools/call', params: { name: 'search', arguments: { query: 'milk' } } })}\n`;
    await server.write(hostile + normal);
    expect(await server.waitFor((m) => m.id === 'hostile', from)).toEqual({
      jsonrpc: '2.0',
      id: 'hostile',
      error: { code: -32602, message: 'Invalid params: params.arguments.extra has an object with more than 10000 keys (a limit this server sets)' },
    });
    const answered = await server.waitFor((m) => m.id === 'normal', from);
    expect(answered.result!.structuredContent).toEqual({ notes: [{ id: '2', title: 'Shopping', tags: ['home'] }], total: 1 });
  });

  it('answers 100,000 levels of nesting with -32602 naming the depth limit, never an internal error', async () => {
    const server = shared();
    expect(await server.errorFor(rawCall('deep', nested(100_000)))).toEqual({
      jsonrpc: '2.0',
      id: 'deep',
      error: { code: -32602, message: 'Invalid params: params.arguments.a.a nests deeper than 64 levels (a limit this server sets)' },
    });
  });

  it('answers arguments over the argument limits, or with undeclared properties, with a tool error naming them', async () => {
    const server = shared();
    const from = server.messages.length;
    await server.write(rawCall('keys', JSON.stringify({ query: 'x', extra: manyKeys(8_000) })));
    await server.write(rawCall('nest', `{"query":"x","extra":${nested(40)}}`));
    await server.write(rawCall('undeclared', '{"query":"x","admin":true}'));
    const keys = await server.waitFor((m) => m.id === 'keys', from);
    expect(keys.result!.isError).toBe(true);
    expect(toolText(keys)).toBe('Invalid arguments:\n- extra: the arguments hold more than 5000 keys and items in all (the limit)');
    const nest = await server.waitFor((m) => m.id === 'nest', from);
    expect(nest.result!.isError).toBe(true);
    expect(toolText(nest)).toMatch(/^Invalid arguments:\n- extra(\.a)+: nesting deeper than the limit of 32 levels$/);
    const undeclared = await server.waitFor((m) => m.id === 'undeclared', from);
    expect(undeclared.result!.isError).toBe(true);
    expect(toolText(undeclared)).toBe('Invalid arguments:\n- admin: property admin should not exist');
  });

  it('answers params._meta that is not an object with -32602, and a level that is not one of the eight', async () => {
    const server = shared();
    for (const meta of [5, 'x', [], null]) {
      const response = await server.request('tools/call', { name: 'search', arguments: { query: 'x' }, _meta: meta });
      expect(response.error).toMatchObject({ code: -32602, message: expect.stringContaining('"params._meta" must be an object') });
    }
    for (const level of ['__proto__', 'constructor', 'hasOwnProperty']) {
      const response = await server.request('logging/setLevel', { level });
      expect(response.error).toMatchObject({ code: -32602, message: expect.stringContaining('"level" must be one of debug, info, notice') });
    }
  });

  it('sends no log notification before the client sets a level, and sends them once it has', async () => {
    const server = start();
    await server.initialize();
    const created = await server.request('tools/call', { name: 'create', arguments: { title: 'quiet', body: 'b' } });
    expect(created.result!.isError).toBeUndefined();
    expect(server.messages.filter((m) => m.method === 'notifications/message')).toEqual([]);
    expect((await server.request('logging/setLevel', { level: 'info' })).result).toEqual({});
    const from = server.messages.length;
    await server.request('tools/call', { name: 'create', arguments: { title: 'loud', body: 'b' } });
    expect(
      server.messages
        .slice(from)
        .filter((m) => m.method === 'notifications/message')
        .map((m) => m.params!.data),
    ).toEqual([{ message: 'note created', id: '5' }]);
  });

  it('refuses a request over maxRequestsInFlight with -32004, and serves the session again once one ends', async () => {
    const server = start([
      '-e',
      `require(${JSON.stringify(resolve(ROOT, 'packages/stdio/dist/index.js'))}).serveStdio(` +
        `new (require(${JSON.stringify(resolve(ROOT, 'apps/example/dist/notes-server.js'))}).NotesServer)(), { maxRequestsInFlight: 1 });`,
    ]);
    await server.initialize();
    // 3 notes × 10 s: running until the test cancels it.
    await server.send({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'export', arguments: { format: 'json', delayMs: 10_000 } } });
    const over = await server.request('tools/call', { name: 'search', arguments: { query: 'x' } }, 'over');
    expect(over.error).toEqual({
      code: -32004,
      message: 'Too many requests in flight: this session already has 1 requests running (maxRequestsInFlight); wait for some to finish',
      data: { limit: 'maxRequestsInFlight', max: 1 },
    });
    await server.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow' } });
    // The cancelled export leaves the session once its handler sees the abort: retry until it has.
    let after: Message;
    do after = await server.request('ping');
    while (after.error?.code === -32004);
    expect(after.result).toEqual({});
    expect(server.messages.some((m) => m.id === 'slow')).toBe(false);
  });
});
