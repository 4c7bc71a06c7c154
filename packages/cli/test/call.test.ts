import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestAuthorizationServer, type TestAuthorizationServer } from '../../http/test/auth/test-authorization-server';
import { EXAMPLE_JS, FIXTURES, freePort, requireBuild, runAsync, serveHttp, type RunResult, type Running } from './cli';

beforeAll(requireBuild);
// Each case starts a process (an entry also loads the framework): slow when the machine is busy.
jest.setTimeout(60_000);

const dataDir = mkdtempSync(join(tmpdir(), 'mcpx-call-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** The notes example, served over HTTP for the URL cases (its notes in a folder of its own). */
let server: Running;
beforeAll(async () => {
  server = await serveHttp([EXAMPLE_JS, '--port', '0'], { MCPX_DATA_DIR: join(dataDir, 'http') });
}, 60_000);
afterAll(async () => {
  expect(await server.stop()).toBe(0);
});

/** A user error: one `mcpx:` line on stderr, nothing on stdout, no stack trace. */
function expectOneLine(r: RunResult, status: number, message: RegExp): void {
  expect({ status: r.status, stdout: r.stdout }).toEqual({ status, stdout: '' });
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(message);
}

type LogLine = { msg: string; session?: string; method?: string; status?: number };

/**
 * The server's log lines from offset `from`, once one matches `until`: a request's line can reach
 * the test a moment after the client has exited. Bounded, and asserted on by the caller.
 */
async function logLines(running: Running, from: number, until: (line: LogLine) => boolean): Promise<LogLine[]> {
  const lines = () =>
    running
      .logs()
      .slice(from)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as LogLine);
  for (const deadline = Date.now() + 30_000; !lines().some(until) && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 50));
  return lines();
}

// The same cases against an entry loaded in process and against a listening server.
const TARGETS: { target: string; at: () => string }[] = [
  { target: 'an entry', at: () => EXAMPLE_JS },
  { target: 'a URL', at: () => server.url },
];
const mcpx = (args: string[], env: Record<string, string> = {}) => runAsync(args, { MCPX_DATA_DIR: join(dataDir, 'entry'), ...env });

describe("mcpx call of an entry: the server's log", () => {
  it.concurrent("an isError result exits 1 with its text on stderr, after the server's own log line saying why", async () => {
    const r = await mcpx(['call', EXAMPLE_JS, 'append', '{"id":"999","line":"more"}']);
    expect(r).toMatchObject({ status: 1, stdout: '' });
    const [logLine, ...rest] = r.stderr.split('\n');
    expect(JSON.parse(logLine!)).toMatchObject({ level: 40, msg: 'tool failed', tool: 'append', err: { message: 'No note 999', stack: expect.stringContaining('NotesServer.append') } });
    expect(rest.join('\n')).toBe('No note 999\n');
  });

  it.concurrent('--log-level (or MCPX_LOG_LEVEL) sets what the server logs: silent leaves the result alone', async () => {
    expect(await mcpx(['call', EXAMPLE_JS, 'append', '{"id":"999","line":"more"}', '--log-level', 'silent'])).toEqual({ status: 1, stdout: '', stderr: 'No note 999\n' });
    expect(await mcpx(['call', EXAMPLE_JS, 'append', '{"id":"999","line":"more"}'], { MCPX_LOG_LEVEL: 'error' })).toEqual({ status: 1, stdout: '', stderr: 'No note 999\n' });
    const noisy = await mcpx(['call', EXAMPLE_JS, 'search', '{"query":"milk"}', '--log-level', 'debug']);
    expect(noisy.status).toBe(0);
    expect(
      noisy.stderr
        .split('\n')
        .filter(Boolean)
        .every((line) => (JSON.parse(line) as { level: number }).level >= 20),
    ).toBe(true);
    expect(noisy.stderr).toContain('"level":20');
  });

  it.concurrent('--answer fills the forms the tool asks, in order: accept with content, or decline', async () => {
    const own = { MCPX_DATA_DIR: join(dataDir, 'answers') };
    expect(await mcpx(['call', EXAMPLE_JS, 'delete', '{"id":"3"}', '--answer', 'decline', '--log-level', 'silent'], own)).toEqual({
      status: 0,
      stdout: 'Kept note 3: the deletion was not confirmed.\n',
      stderr: '',
    });
    expect(await mcpx(['call', EXAMPLE_JS, 'delete', '{"id":"3"}', '--answer', '{"confirm":true}', '--log-level', 'silent'], own)).toEqual({
      status: 0,
      stdout: 'Deleted note 3.\n',
      stderr: '',
    });
  });

  it.concurrent('without --answer and without a terminal, it says it cannot ask: the tool is told so by the server', async () => {
    const r = await mcpx(['call', EXAMPLE_JS, 'delete', '{"id":"1"}', '--log-level', 'silent']);
    expect(r).toEqual({ status: 1, stdout: '', stderr: expect.stringMatching(/^Kept note 1: this client cannot show the confirmation form/) });
  });

  it.concurrent('refuses an --answer that is not a JSON object, decline or cancel', async () => {
    expectOneLine(await mcpx(['call', EXAMPLE_JS, 'delete', '{"id":"1"}', '--answer', 'yes']), 2, /^mcpx: --answer must be a JSON object \(the form's content\), or decline or cancel/);
  });

  it.concurrent('--log-level is refused for a URL: that server logs where it runs', async () => {
    expectOneLine(await mcpx(['call', server.url, 'search', '{}', '--log-level', 'debug']), 2, /^mcpx: --log-level applies to entry files/);
  });
});

describe.each(TARGETS)('mcpx call, read and prompt against $target', ({ at }) => {
  it.concurrent('call prints structured content as indented JSON', async () => {
    const r = await mcpx(['call', at(), 'search', '{"query":"milk"}']);
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    expect(r.stdout).toBe(`${JSON.stringify({ notes: [{ id: '2', title: 'Shopping', tags: ['home'] }], total: 1 }, null, 2)}\n`);
  });

  it.concurrent('call prints text as it is and summarises a resource link', async () => {
    const r = await mcpx(['call', at(), 'create', '{"title":"Groceries","body":"bread"}']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Created note (\d+)\.\n\[link: notes:\/\/notes\/\1 \(text\/markdown\) "Groceries"\]\n$/);
  });

  it.concurrent('--json prints the raw result', async () => {
    const r = await mcpx(['call', at(), 'search', '{"query":"milk"}', '--json']);
    expect(r.status).toBe(0);
    const result = JSON.parse(r.stdout) as { content: { type: string; text: string }[]; structuredContent: { total: number } };
    expect(result.structuredContent.total).toBe(1);
    expect(result.content[0]!.type).toBe('text');
    expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent);
  });

  it.concurrent('an isError result exits 1 with its text on stderr', async () => {
    const r = await mcpx(['call', at(), 'append', '{"id":"999","line":"more"}', ...(at() === EXAMPLE_JS ? ['--log-level', 'silent'] : [])]);
    expect(r).toEqual({ status: 1, stdout: '', stderr: 'No note 999\n' });
  });

  it.concurrent('arguments that are not a JSON object exit 2 before connecting', async () => {
    expectOneLine(await mcpx(['call', at(), 'search', '{"query":']), 2, /^mcpx: arguments must be a JSON object, e\.g\. '\{"query":"milk"\}': .*JSON/);
    expectOneLine(await mcpx(['call', at(), 'search', '["milk"]']), 2, /^mcpx: arguments must be a JSON object, e\.g\. '\{"query":"milk"\}', got an array$/);
  });

  it.concurrent('an unknown tool is a JSON-RPC error: exit 2', async () => {
    expectOneLine(await mcpx(['call', at(), 'nope']), 2, /^mcpx: tools\/call failed \(-32602\): Unknown tool: nope$/);
  });

  it.concurrent('read prints a resource (JSON indented); an unknown one exits 2', async () => {
    const r = await mcpx(['read', at(), 'notes://index']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^\[\n {2}\{\n {4}"id": "1",/);
    expect((JSON.parse(r.stdout) as { title: string }[]).map((n) => n.title)).toEqual(expect.arrayContaining(['Welcome', 'Shopping', 'Release plan']));
    expectOneLine(await mcpx(['read', at(), 'notes://nope']), 2, /^mcpx: resources\/read failed \(-32002\): Resource not found: notes:\/\/nope$/);
  });

  it.concurrent('prompt prints the description and each message under its role', async () => {
    const r = await mcpx(['prompt', at(), 'summarize', '{"noteId":"1","style":"detailed"}']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      [
        'Summary of "Welcome"',
        '',
        '[user]',
        '[resource: notes://notes/1 (text/markdown)]',
        '# Welcome',
        '',
        'This is the notes example served by mcpx.',
        '',
        '[user]',
        'Summarise the note above in detail.',
        '',
      ].join('\n'),
    );
  });

  it.concurrent('prompt errors: a missing argument exits 2, and so does an argument that is not a string', async () => {
    expectOneLine(await mcpx(['prompt', at(), 'summarize']), 2, /^mcpx: prompts\/get failed \(-32602\): .*noteId/);
    expectOneLine(await mcpx(['prompt', at(), 'summarize', '{"noteId":1}']), 2, /^mcpx: prompt arguments are strings: noteId is 1; write it as "1"$/);
    expectOneLine(await mcpx(['prompt', at(), 'nope']), 2, /^mcpx: prompts\/get failed \(-32602\): .*nope/);
  });
});

describe('mcpx call against an entry', () => {
  const kinds = join(FIXTURES, 'content-kinds.js');

  it.concurrent("summarises images, audio, links and embedded resources; the handler's console output goes to stderr", async () => {
    const r = await runAsync(['call', kinds, 'kinds']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      [
        'plain words',
        '[image: image/png, 2.0 KiB]',
        '[audio: audio/wav, 10 bytes]',
        '[link: kinds://linked (text/plain) "linked"]',
        '[resource: kinds://embedded (text/plain)]',
        'embedded text',
        '',
      ].join('\n'),
    );
    expect(r.stderr).toBe('noise from the handler\n');
  });

  it.concurrent('read shows several contents each under its URI; prompt shows each role', async () => {
    const read = await runAsync(['read', kinds, 'kinds://pair']);
    expect(read.stdout).toBe('[resource: kinds://pair (application/json)]\n{\n  "a": 1\n}\n[blob: kinds://pair (application/octet-stream), 3 bytes]\n');
    const prompt = await runAsync(['prompt', kinds, 'chat']);
    expect(prompt.stdout).toBe('A short exchange\n\n[user]\nHello?\n\n[assistant]\nHi.\n');
  });

  it.concurrent('options that do not fit the target, and a missing tool name, are usage errors', async () => {
    expectOneLine(await runAsync(['call', kinds, 'kinds', '--header', 'X-A: b']), 2, /^mcpx: --header applies to URLs/);
    expectOneLine(await runAsync(['call', 'http://127.0.0.1:9/mcp', 'kinds', '--server', 'KindsServer']), 2, /^mcpx: --server picks a class in an entry file/);
    expectOneLine(await runAsync(['call', kinds]), 2, /^mcpx: call needs a server \(entry file or URL\) and a tool name, e\.g\. .*\(see mcpx call --help\)$/);
    expectOneLine(await runAsync(['read', kinds, 'a://b', 'c']), 2, /^mcpx: read takes at most 2 arguments, got 3/);
    expectOneLine(await runAsync(['call', 'nope.js', 'kinds']), 2, /^mcpx: cannot find entry file nope\.js/);
  });
});

describe('mcpx call against a URL', () => {
  it.concurrent('an unreachable server exits 1', async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    expectOneLine(await runAsync(['call', url, 'search']), 1, new RegExp(`^mcpx: cannot reach ${url.replace(/[.:/]/g, '\\$&')}: connection refused$`));
  });

  it.concurrent('no MCP endpoint at the path exits 1', async () => {
    const url = new URL('/nope', server.url).href;
    expectOneLine(await runAsync(['call', url, 'search']), 1, /^mcpx: no MCP endpoint at http:\/\/127\.0\.0\.1:\d+\/nope \(404\)$/);
  });

  it('resumes an SSE stream the server closed before answering (GET with Last-Event-ID)', async () => {
    const kinds = await serveHttp([join(FIXTURES, 'content-kinds.js'), '--port', '0']);
    try {
      const r = await runAsync(['call', kinds.url, 'resumable']);
      expect(r).toEqual({ status: 0, stdout: 'after the break\n', stderr: '' });
      const lines = await logLines(kinds, 0, (l) => l.method === 'GET');
      expect(lines.filter((l) => l.method === 'GET')).toEqual([expect.objectContaining({ status: 200 })]);
    } finally {
      expect(await kinds.stop()).toBe(0);
    }
  });

  describe('with authorization, and JSON responses instead of SSE', () => {
    let as: TestAuthorizationServer;
    let guarded: Running;
    beforeAll(async () => {
      as = await startTestAuthorizationServer();
      const port = await freePort();
      guarded = await serveHttp([EXAMPLE_JS, '--port', String(port), '--json-response', '--auth-jwks-url', as.jwksUrl, '--auth-issuer', as.issuer], {
        MCPX_AUTH_AUDIENCE: `http://127.0.0.1:${port}/mcp`,
        MCPX_DATA_DIR: join(dataDir, 'guarded'),
      });
    }, 60_000);
    afterAll(async () => {
      expect(await guarded.stop()).toBe(0);
      await as.close();
    });

    it('without a token exits 1 and says how to pass one; --header sends it, and the session is deleted after', async () => {
      expectOneLine(
        await runAsync(['call', guarded.url, 'search', '{"query":"milk"}']),
        1,
        /^mcpx: http:\/\/\S+ needs authorization \(401\).*; pass a token with --header 'Authorization: Bearer <token>'$/,
      );

      const token = await as.mintToken({ audience: guarded.url });
      const before = guarded.logs().length;
      const r = await runAsync(['call', guarded.url, 'search', '{"query":"milk"}', '--header', `Authorization: Bearer ${token}`]);
      expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
      expect((JSON.parse(r.stdout) as { total: number }).total).toBe(1);

      const lines = await logLines(guarded, before, (l) => l.method === 'DELETE');
      const opened = lines.filter((l) => l.msg === 'session initialized');
      expect(opened).toHaveLength(1);
      expect(lines.filter((l) => l.method === 'DELETE')).toEqual([expect.objectContaining({ session: opened[0]!.session, status: 200 })]);
    });

    it('a refused token exits 1', async () => {
      expectOneLine(
        await runAsync(['call', guarded.url, 'search', '--header', 'Authorization: Bearer not-a-jwt']),
        1,
        /^mcpx: http:\/\/\S+ needs authorization \(401\).*; the token was refused$/,
      );
    });
  });
});

describe('help for call, read and prompt', () => {
  it('each --help names its options and exit codes', async () => {
    for (const command of ['call', 'read', 'prompt']) {
      const r = await runAsync([command, '--help']);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: mcpx ${command} <entry\\|url>`));
      for (const option of ['--json', '--header', '--server', '--timeout']) expect(r.stdout).toContain(option);
      expect(r.stdout).toContain('Exit codes');
    }
    const main = await runAsync(['--help']);
    for (const command of ['dev', 'call', 'read', 'prompt']) expect(main.stdout).toContain(`mcpx ${command} <`);
  });
});
