/**
 * `mcpx install` asking for the variables a server declares required: runInstall in this process,
 * on a stand-in terminal (streams that say they are TTYs) typed into once each prompt shows, and a
 * stand-in registry lookup. install.test.ts runs the built CLI without a terminal, `npm view` and all.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { CliError } from '../src/errors';
import { runInstall, type Host } from '../src/install';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

let stdout = '';
let stderr = '';
beforeEach(() => {
  stdout = '';
  stderr = '';
  jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
  jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
});
afterEach(() => jest.restoreAllMocks());

const TOKEN = { description: 'API token of the notes service', required: true, secret: true };
const URL_ = { description: 'Where the notes live', required: true };
const REGION = { description: 'Region', default: 'eu' };

/**
 * A terminal that types each answer once its prompt (a fragment of it) is on the screen, as a person
 * would: `\r` is Enter, `\x03` Ctrl-C, `\x04` Ctrl-D.
 */
function terminal(script: [prompt: string, keys: string][], tty = true) {
  const input = Object.assign(new PassThrough(), { isTTY: tty });
  const output = Object.assign(new PassThrough(), { isTTY: tty, columns: 100 });
  let shown = '';
  let from = 0;
  output.on('data', (chunk: Buffer) => {
    shown += chunk.toString();
    const next = script[0];
    if (next && shown.indexOf(next[0], from) >= 0) {
      script.shift();
      from = shown.length;
      setImmediate(() => input.write(next[1]));
    }
  });
  return { input, output, shown: () => shown, left: () => script.length };
}

/** A home and a project with a built entry and this package.json `mcpx.env`; the registry answers `published`. */
function machine(env: Record<string, object> | undefined, t: ReturnType<typeof terminal>, published?: unknown) {
  const root = mkdtempSync(join(tmpdir(), 'mcpx-install-env-'));
  made.push(root);
  const project = join(root, 'project');
  const write = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };
  write(join(project, 'package.json'), JSON.stringify({ name: '@acme/notes', bin: 'dist/main.js', ...(env && { mcpx: { env } }) }));
  write(join(project, 'dist', 'main.js'), '');
  const lookup = jest.fn((_spec: string, _cwd: string) => (published instanceof Error ? Promise.reject(published) : Promise.resolve(published)));
  const host: Host = { platform: 'linux', env: {}, home: join(root, 'home'), cwd: project, input: t.input, output: t.output, lookup };
  const file = join(root, 'home', '.cursor', 'mcp.json');
  return { host, project, lookup, file, entry: join(project, 'dist', 'main.js') };
}

/** Cursor's file holding one server, as a new file is written. */
const cursorFile = (name: string, entry: object) => `${JSON.stringify({ mcpServers: { [name]: entry } }, null, 2)}\n`;

describe('on a terminal', () => {
  it('asks for each required variable, the secret without echo, again after an empty answer; not for an optional one', async () => {
    const t = terminal([
      ['NOTES_TOKEN (API token of the notes service) [hidden]: ', 's3cret-token\r'],
      ['NOTES_URL (Where the notes live): ', '\r'],
      ['NOTES_URL (Where the notes live): ', 'https://notes.example\r'],
    ]);
    const m = machine({ NOTES_URL: URL_, NOTES_TOKEN: TOKEN, NOTES_REGION: REGION }, t);
    expect(await runInstall(['--client', 'cursor'], m.host)).toBe(0);
    expect(t.left()).toBe(0);
    expect(readFileSync(m.file, 'utf8')).toBe(cursorFile('notes', { command: 'node', args: [m.entry], env: { NOTES_TOKEN: 's3cret-token', NOTES_URL: 'https://notes.example' } }));
    expect(t.shown()).toContain('"notes" requires these variables');
    expect(t.shown()).toContain('  NOTES_URL is required: type its value, or Ctrl-C to stop\n');
    expect(t.shown()).toContain('https://notes.example'); // typed in the open
    expect(t.shown()).not.toContain('s3cret'); // typed blind
    expect(t.shown()).not.toContain('NOTES_REGION');
    expect(stdout).toBe(`installed "notes" for Cursor in ${m.file} (new file)\n`);
    expect(stderr).toBe('');
    expect(m.lookup).not.toHaveBeenCalled(); // the project's own package.json says it
  });

  it('asks only for what --env did not give, and nothing when it gave all', async () => {
    const t = terminal([['NOTES_URL', 'https://n\r']]);
    const m = machine({ NOTES_TOKEN: TOKEN, NOTES_URL: URL_ }, t);
    expect(await runInstall(['--client', 'cursor', '--env', 'NOTES_TOKEN=given'], m.host)).toBe(0);
    expect(t.shown()).not.toContain('NOTES_TOKEN');
    expect(JSON.parse(readFileSync(m.file, 'utf8')).mcpServers.notes.env).toEqual({ NOTES_TOKEN: 'given', NOTES_URL: 'https://n' });

    const quiet = terminal([]);
    const m2 = machine({ NOTES_TOKEN: TOKEN, NOTES_URL: URL_ }, quiet);
    expect(await runInstall(['--client', 'cursor', '--env', 'NOTES_URL=u', '--env', 'NOTES_TOKEN=t'], m2.host)).toBe(0);
    expect(quiet.shown()).toBe('');
    expect(JSON.parse(readFileSync(m2.file, 'utf8')).mcpServers.notes.env).toEqual({ NOTES_URL: 'u', NOTES_TOKEN: 't' });
  });

  it('looks a published package up, and asks for what it declares', async () => {
    const t = terminal([['NOTES_TOKEN', 'tok-9f2\r']]);
    const m = machine(undefined, t, { env: { NOTES_TOKEN: TOKEN, NOTES_REGION: REGION } });
    expect(await runInstall(['@acme/notes-mcp@1.2.0', '--client', 'cursor'], m.host)).toBe(0);
    expect(m.lookup).toHaveBeenCalledWith('@acme/notes-mcp@1.2.0', m.project);
    expect(readFileSync(m.file, 'utf8')).toBe(cursorFile('notes-mcp', { command: 'npx', args: ['-y', '@acme/notes-mcp@1.2.0'], env: { NOTES_TOKEN: 'tok-9f2' } }));
    expect(t.shown()).not.toContain('tok-9f2');
  });

  it('offers a required variable its declared default: an empty answer takes it', async () => {
    const t = terminal([['NOTES_REGION (Region) [default eu]: ', '\r']]);
    const m = machine({ NOTES_REGION: { ...REGION, required: true } }, t);
    expect(await runInstall(['--client', 'cursor'], m.host)).toBe(0);
    expect(JSON.parse(readFileSync(m.file, 'utf8')).mcpServers.notes.env).toEqual({ NOTES_REGION: 'eu' });
  });

  it.each([
    ['Ctrl-D', '\x04'],
    ['Ctrl-C', '\x03'],
  ])('%s stops: nothing is written', async (_key, keys) => {
    const t = terminal([
      ['NOTES_TOKEN', 'tok\r'],
      ['NOTES_URL', keys],
    ]);
    const m = machine({ NOTES_TOKEN: TOKEN, NOTES_URL: URL_ }, t);
    const failure = runInstall(['--client', 'cursor'], m.host);
    await expect(failure).rejects.toThrow(new CliError('stopped before NOTES_URL was given: nothing was written (it can also be given with --env NOTES_URL=...)', 1));
    await expect(failure).rejects.toMatchObject({ exitCode: 1 });
    expect(existsSync(m.file)).toBe(false);
  });

  it('--print asks too, and prints the entry with the answers', async () => {
    const t = terminal([['NOTES_URL', 'https://n\r']]);
    const m = machine({ NOTES_URL: URL_ }, t);
    expect(await runInstall(['--print'], m.host)).toBe(0);
    expect(stdout).toBe(cursorFile('notes', { command: 'node', args: [m.entry], env: { NOTES_URL: 'https://n' } }));
  });

  it('never asks for a server at --url: it has its own environment', async () => {
    const t = terminal([]);
    const m = machine({ NOTES_TOKEN: TOKEN }, t, { env: { NOTES_TOKEN: TOKEN } });
    expect(await runInstall(['--url', 'https://notes.acme.dev/mcp', '--client', 'cursor'], m.host)).toBe(0);
    expect(t.shown()).toBe('');
    expect(m.lookup).not.toHaveBeenCalled();
    expect(readFileSync(m.file, 'utf8')).toBe(cursorFile('notes', { url: 'https://notes.acme.dev/mcp' }));
  });

  it('asks nothing when a published package cannot be looked up, and says so', async () => {
    const t = terminal([]);
    const m = machine(undefined, t, new Error('npm view: E404 Not Found - GET https://registry.npmjs.org/nope'));
    expect(await runInstall(['nope', '--client', 'cursor'], m.host)).toBe(0);
    expect(t.shown()).toBe('');
    expect(stderr).toBe(
      'mcpx: cannot look up the environment variables nope declares (npm view: E404 Not Found - GET https://registry.npmjs.org/nope): none asked for; give any it needs with --env KEY=VALUE\n',
    );
    expect(readFileSync(m.file, 'utf8')).toBe(cursorFile('nope', { command: 'npx', args: ['-y', 'nope'] }));
  });

  it('shows a published description without the control characters that would drive the terminal', async () => {
    const t = terminal([['NOTES_URL (the  ]0;pwned  URL): ', 'u\r']]);
    const m = machine(undefined, t, { env: { NOTES_URL: { description: 'the \x1b]0;pwned\x07 URL', required: true } } });
    expect(await runInstall(['notes', '--client', 'cursor'], m.host)).toBe(0);
    expect(t.shown()).not.toContain('\x1b]0;');
    expect(t.shown()).not.toContain('\x07');
  });
});

describe('without a terminal', () => {
  it('writes the entry, names what is missing and how to give it, and fills a required default', async () => {
    const t = terminal([], false);
    const m = machine({ NOTES_TOKEN: TOKEN, NOTES_URL: URL_, NOTES_REGION: { ...REGION, required: true }, OPTIONAL: { description: 'x' } }, t);
    expect(await runInstall(['--client', 'cursor'], m.host)).toBe(0);
    expect(t.shown()).toBe('');
    expect(readFileSync(m.file, 'utf8')).toBe(cursorFile('notes', { command: 'node', args: [m.entry], env: { NOTES_REGION: 'eu' } }));
    expect(stderr).toBe('mcpx: "notes" requires NOTES_TOKEN and NOTES_URL, left out of the entry (no terminal to ask on): give them with --env NOTES_TOKEN=... --env NOTES_URL=...\n');
  });

  it('asks on a terminal only when both stdin and stdout are one', async () => {
    const t = terminal([]);
    t.output.isTTY = false; // mcpx install ... > log
    const m = machine({ NOTES_TOKEN: TOKEN }, t);
    expect(await runInstall(['--client', 'cursor'], m.host)).toBe(0);
    expect(stderr).toContain('"notes" requires NOTES_TOKEN, left out of the entry (no terminal to ask on): give it with --env NOTES_TOKEN=...');
  });

  it('finds the package.json above a built entry file', async () => {
    const t = terminal([], false);
    const m = machine({ NOTES_TOKEN: TOKEN }, t);
    expect(await runInstall(['dist/main.js', '--client', 'cursor'], m.host)).toBe(0);
    expect(stderr).toContain('"main" requires NOTES_TOKEN');
  });

  it("refuses the project's own declaration when it is wrong, as mcpx manifest does", async () => {
    const m = machine({ NOTES_TOKEN: { required: true } }, terminal([], false));
    await expect(runInstall(['--client', 'cursor'], m.host)).rejects.toThrow('package.json "mcpx.env.NOTES_TOKEN" needs a "description"');
    expect(existsSync(m.file)).toBe(false);
  });
});
