/**
 * `mcpx install` and `mcpx uninstall` as a user runs them: the built CLI in a child process, with
 * HOME and XDG_CONFIG_HOME pointed at a fresh folder, writing the real files each client reads.
 * Build it first: npx tsc -b packages/cli. The macOS and Windows paths, which this machine cannot
 * produce, are checked on the client table itself; the text edits' corner cases on install-file's
 * functions.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { CLIENTS, CLIENT_NAMES, configFile, type ClientName, type Where } from '../src/install-clients';
import { withEntry, withoutEntry } from '../src/install-file';
import { BIN, cleanEnv } from './cli';

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npx tsc -b packages/cli\` before these tests`);
});

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

interface Sandbox {
  home: string;
  xdg: string;
  project: string;
  /** The environment mcpx runs in. */
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
  mcpx(args: string[], options?: { cwd?: string; env?: Record<string, string> }): { status: number | null; stdout: string; stderr: string };
  /** The arguments of each `npm` mcpx ran. */
  npmCalls(): string[];
}

/**
 * The npm on the sandbox's PATH, standing in for the registry: it prints $FAKE_NPM_VIEW (by default
 * nothing, which is what `npm view` prints for a package without an "mcpx" field) and exits with
 * $FAKE_NPM_EXIT, logging its arguments.
 */
const FAKE_NPM = `#!/bin/sh
printf '%s\\n' "$*" >> "$(dirname "$0")/calls"
printf '%s' "$FAKE_NPM_VIEW"
exit "\${FAKE_NPM_EXIT:-0}"
`;

/** A fresh home, XDG config folder and project folder; the variables that move client files are cleared. */
function sandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), 'mcpx-install-'));
  made.push(root);
  const home = join(root, 'home');
  const xdg = join(root, 'xdg');
  const project = join(root, 'project');
  const bin = join(root, 'bin');
  mkdirSync(home);
  mkdirSync(project);
  mkdirSync(bin);
  writeFileSync(join(bin, 'npm'), FAKE_NPM, { mode: 0o755 });
  const base = { HOME: home, XDG_CONFIG_HOME: xdg, CLAUDE_CONFIG_DIR: '', GEMINI_CLI_HOME: '', APPDATA: '', PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` };
  const env = (extra: Record<string, string> = {}) => cleanEnv({ ...base, ...extra });
  return {
    home,
    xdg,
    project,
    env,
    mcpx: (args, options = {}) => {
      const r = spawnSync(process.execPath, [BIN, ...args], { cwd: options.cwd ?? project, env: env(options.env), encoding: 'utf8', timeout: 30_000 });
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    },
    npmCalls: () => (existsSync(join(bin, 'calls')) ? readFileSync(join(bin, 'calls'), 'utf8').trimEnd().split('\n') : []),
  };
}

/** Every file under a folder, relative to it. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => statSync(join(dir, f)).isFile())
    .sort();
}

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** The user file each client reads on Linux, written out rather than taken from the table under test. */
const USER_FILE: Record<ClientName, (s: Sandbox) => string> = {
  'claude-desktop': (s) => join(s.xdg, 'Claude', 'claude_desktop_config.json'),
  'claude-code': (s) => join(s.home, '.claude.json'),
  cursor: (s) => join(s.home, '.cursor', 'mcp.json'),
  vscode: (s) => join(s.xdg, 'Code', 'User', 'mcp.json'),
  windsurf: (s) => join(s.home, '.codeium', 'windsurf', 'mcp_config.json'),
  'gemini-cli': (s) => join(s.home, '.gemini', 'settings.json'),
};
const WORKSPACE_FILE: Partial<Record<ClientName, string>> = {
  'claude-code': '.mcp.json',
  cursor: '.cursor/mcp.json',
  vscode: '.vscode/mcp.json',
  'gemini-cli': '.gemini/settings.json',
};
const TITLE: Record<ClientName, string> = {
  'claude-desktop': 'Claude Desktop',
  'claude-code': 'Claude Code',
  cursor: 'Cursor',
  vscode: 'VS Code',
  windsurf: 'Windsurf',
  'gemini-cli': 'Gemini CLI',
};
const keyOf = (client: ClientName) => (client === 'vscode' ? 'servers' : 'mcpServers');
/** Claude Code and VS Code write `type: "stdio"`; the others take command and args alone. */
const typed = (client: ClientName) => client === 'claude-code' || client === 'vscode';
const stdio = (client: ClientName, command: string, args: string[], env?: Record<string, string>) => ({
  ...(typed(client) ? { type: 'stdio' } : {}),
  command,
  args,
  ...(env ? { env } : {}),
});
const URL_ = 'https://notes.acme.dev/mcp';
const HTTP_ENTRY: Record<ClientName, Record<string, string> | undefined> = {
  'claude-desktop': undefined,
  'claude-code': { type: 'http', url: URL_ },
  cursor: { url: URL_ },
  vscode: { type: 'http', url: URL_ },
  windsurf: { serverUrl: URL_ },
  'gemini-cli': { httpUrl: URL_ },
};
/** A new file: 2-space JSON and a final newline. */
const fresh = (client: ClientName, name: string, entry: unknown) => `${JSON.stringify({ [keyOf(client)]: { [name]: entry } }, null, 2)}\n`;

describe.each(CLIENT_NAMES)('mcpx install --client %s', (client) => {
  it('installs a published package as npx -y <package>, in the user file', () => {
    const s = sandbox();
    const r = s.mcpx(['install', '@acme/notes-mcp', '--client', client]);
    const file = USER_FILE[client](s);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`installed "notes-mcp" for ${TITLE[client]} in ${file} (new file)\n`);
    expect(readFileSync(file, 'utf8')).toBe(fresh(client, 'notes-mcp', stdio(client, 'npx', ['-y', '@acme/notes-mcp'])));
    // Nothing else: no backup of a file that did not exist, no temporary file left behind.
    expect([...filesUnder(s.home), ...filesUnder(s.xdg)]).toHaveLength(1);
  });

  it('installs a built entry file as node <absolute path>, with --env', () => {
    const s = sandbox();
    write(join(s.project, 'dist', 'main-stdio.js'), '');
    const r = s.mcpx(['install', 'dist/main-stdio.js', '--client', client, '--env', 'NOTES_TOKEN=abc=def', '--env', 'EMPTY=']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const entry = stdio(client, 'node', [join(s.project, 'dist', 'main-stdio.js')], { NOTES_TOKEN: 'abc=def', EMPTY: '' });
    expect(readFileSync(USER_FILE[client](s), 'utf8')).toBe(fresh(client, 'main-stdio', entry));
  });

  it(HTTP_ENTRY[client] ? 'installs an HTTP server with --url in its HTTP shape' : 'refuses --url: HTTP servers are connectors in the app', () => {
    const s = sandbox();
    const r = s.mcpx(['install', '--url', URL_, '--client', client]);
    const file = USER_FILE[client](s);
    if (!HTTP_ENTRY[client]) {
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^mcpx: Claude Desktop takes HTTP servers as custom connectors .*\n$/);
      expect(existsSync(file)).toBe(false);
      return;
    }
    expect(r.status).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(fresh(client, 'notes', HTTP_ENTRY[client]));
  });

  it('merges into a file with other servers and settings: they stay byte for byte, its 4-space indentation kept', () => {
    const s = sandbox();
    const file = USER_FILE[client](s);
    const key = keyOf(client);
    const before = `{\n    "theme": "dark",\n    "${key}": {\n        "other": { "command": "other-server", "args": ["--flag"] }\n    },\n    "zzz": [1, 2]\n}\n`;
    write(file, before);
    const r = s.mcpx(['install', 'notes-mcp@1.2.0', '--client', client]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`installed "notes-mcp" for ${TITLE[client]} in ${file} (backup: ${file}.bak)\n`);
    const type = typed(client) ? `            "type": "stdio",\n` : '';
    const added = `,\n        "notes-mcp": {\n${type}            "command": "npx",\n            "args": [\n                "-y",\n                "notes-mcp@1.2.0"\n            ]\n        }`;
    const at = before.indexOf(' }\n    },') + 2;
    expect(readFileSync(file, 'utf8')).toBe(before.slice(0, at) + added + before.slice(at));
    expect(readFileSync(`${file}.bak`, 'utf8')).toBe(before);

    // uninstall takes exactly that out again: the file is what it was.
    const u = s.mcpx(['uninstall', 'notes-mcp', '--client', client]);
    expect(u.stderr).toBe('');
    expect(u.status).toBe(0);
    expect(u.stdout).toBe(`removed "notes-mcp" for ${TITLE[client]} from ${file} (backup: ${file}.bak)\n`);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(readFileSync(`${file}.bak`, 'utf8')).toBe(before.slice(0, at) + added + before.slice(at));

    const again = s.mcpx(['uninstall', 'notes-mcp', '--client', client]);
    expect(again.status).toBe(1);
    expect(again.stderr).toBe(`mcpx: "notes-mcp" is not installed in ${file} (it has: other)\n`);
  });

  it('adds the servers key with tabs to a tab-indented file without a final newline', () => {
    const s = sandbox();
    const file = USER_FILE[client](s);
    write(file, '{\n\t"theme": "dark"\n}');
    expect(s.mcpx(['install', 'notes-mcp', '--client', client]).status).toBe(0);
    const type = typed(client) ? '\t\t\t"type": "stdio",\n' : '';
    expect(readFileSync(file, 'utf8')).toBe(
      `{\n\t"theme": "dark",\n\t"${keyOf(client)}": {\n\t\t"notes-mcp": {\n${type}\t\t\t"command": "npx",\n\t\t\t"args": [\n\t\t\t\t"-y",\n\t\t\t\t"notes-mcp"\n\t\t\t]\n\t\t}\n\t}\n}`,
    );
  });

  it('does nothing when the same entry is there, refuses another one of that name without --force, replaces it with --force', () => {
    const s = sandbox();
    const file = USER_FILE[client](s);
    expect(s.mcpx(['install', '@acme/notes-mcp', '--client', client]).status).toBe(0);
    const first = readFileSync(file, 'utf8');

    const same = s.mcpx(['install', '@acme/notes-mcp', '--client', client]);
    expect(same.status).toBe(0);
    expect(same.stdout).toBe(`"notes-mcp" is already installed for ${TITLE[client]} in ${file}: nothing changed\n`);
    expect(existsSync(`${file}.bak`)).toBe(false);

    const other = s.mcpx(['install', '@other/notes-mcp', '--client', client]);
    expect(other.status).toBe(1);
    expect(other.stdout).toBe('');
    expect(other.stderr).toBe(`mcpx: ${file} already has a server named "notes-mcp", set up otherwise: --force replaces it, --name <name> installs this one beside it\n`);
    expect(readFileSync(file, 'utf8')).toBe(first);
    expect(existsSync(`${file}.bak`)).toBe(false);

    const forced = s.mcpx(['install', '@other/notes-mcp', '--client', client, '--force']);
    expect(forced.status).toBe(0);
    expect(forced.stdout).toBe(`replaced "notes-mcp" for ${TITLE[client]} in ${file} (backup: ${file}.bak)\n`);
    expect(readFileSync(file, 'utf8')).toBe(fresh(client, 'notes-mcp', stdio(client, 'npx', ['-y', '@other/notes-mcp'])));
    expect(readFileSync(`${file}.bak`, 'utf8')).toBe(first);
  });

  it('--print writes nothing and prints the entry in the client shape', () => {
    const s = sandbox();
    const r = s.mcpx(['install', '@acme/notes-mcp', '--client', client, '--print', '--env', 'A=1']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(fresh(client, 'notes-mcp', stdio(client, 'npx', ['-y', '@acme/notes-mcp'], { A: '1' })));
    expect([...filesUnder(s.home), ...filesUnder(s.xdg), ...filesUnder(s.project)]).toEqual([]);
  });

  it('refuses a file that is not valid JSON and leaves it untouched', () => {
    const s = sandbox();
    const file = USER_FILE[client](s);
    const broken = `{\n  "${keyOf(client)}": {\n    "other": { "command": "x" }\n  \n`;
    write(file, broken);
    const r = s.mcpx(['install', 'notes-mcp', '--client', client]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^mcpx: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not valid JSON.*: line 5, column 1: expected ',' or '}', found the end; fix or move it \\(nothing was changed\\)\\n$`,
      ),
    );
    expect(readFileSync(file, 'utf8')).toBe(broken);
    expect(filesUnder(dirname(file))).toEqual([file.slice(dirname(file).length + 1)]);
    expect(s.mcpx(['uninstall', 'other', '--client', client]).status).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe(broken);
  });

  const project = WORKSPACE_FILE[client];
  it(project ? `--workspace writes the project file ${project}` : '--workspace is refused: no project file', () => {
    const s = sandbox();
    const r = s.mcpx(['install', 'notes-mcp', '--client', client, '--workspace']);
    if (!project) {
      expect(r.status).toBe(2);
      expect(r.stderr).toBe(`mcpx: ${TITLE[client]} has no project configuration file: drop --workspace to install for the user\n`);
      expect([...filesUnder(s.home), ...filesUnder(s.xdg), ...filesUnder(s.project)]).toEqual([]);
      return;
    }
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(readFileSync(join(s.project, project), 'utf8')).toBe(fresh(client, 'notes-mcp', stdio(client, 'npx', ['-y', 'notes-mcp'])));
    expect(filesUnder(s.home)).toEqual([]);
    expect(s.mcpx(['uninstall', 'notes-mcp', '--client', client, '--workspace']).status).toBe(0);
    expect(readFileSync(join(s.project, project), 'utf8')).toBe(`{\n  "${keyOf(client)}": {}\n}\n`);
  });
});

describe('mcpx install: what to install and its name', () => {
  it('with no argument, installs the package in the current folder: its bin, named after it', () => {
    const s = sandbox();
    write(join(s.project, 'package.json'), JSON.stringify({ name: '@acme/notes', main: 'dist/server.js', bin: { notes: 'dist/main-stdio.js', other: 'dist/other.js' } }));
    write(join(s.project, 'dist', 'main-stdio.js'), '');
    const r = s.mcpx(['install', '--client', 'cursor']);
    expect(r.stderr).toBe('');
    expect(JSON.parse(readFileSync(USER_FILE.cursor(s), 'utf8'))).toEqual({ mcpServers: { notes: { command: 'node', args: [join(s.project, 'dist', 'main-stdio.js')] } } });
  });

  it('with no argument and no bin, takes main; a package folder given as the argument works the same', () => {
    const s = sandbox();
    const pkg = join(s.project, 'pkg');
    write(join(pkg, 'package.json'), JSON.stringify({ name: 'solo', main: 'index.js' }));
    write(join(pkg, 'index.js'), '');
    expect(s.mcpx(['install', 'pkg', '--client', 'windsurf', '--name', 'my.solo_1']).status).toBe(0);
    expect(JSON.parse(readFileSync(USER_FILE.windsurf(s), 'utf8'))).toEqual({ mcpServers: { 'my.solo_1': { command: 'node', args: [join(pkg, 'index.js')] } } });
  });

  it('--print without --client prints the common mcpServers shape', () => {
    const s = sandbox();
    expect(s.mcpx(['install', '--url', 'http://127.0.0.1:3000/mcp', '--name', 'local', '--print']).stdout).toBe(
      `${JSON.stringify({ mcpServers: { local: { type: 'http', url: 'http://127.0.0.1:3000/mcp' } } }, null, 2)}\n`,
    );
  });

  const CASES: { name: string; args: string[]; files?: Record<string, string>; message: string }[] = [
    { name: 'no server at all', args: ['install', '--client', 'cursor'], message: 'install needs a server: a package name (mcpx install @acme/notes-mcp), a built entry file' },
    { name: 'no --client', args: ['install', 'notes-mcp'], message: 'install needs --client: claude-desktop, claude-code, cursor, vscode, windsurf, gemini-cli (or --print' },
    {
      name: 'unknown client',
      args: ['install', 'notes-mcp', '--client', 'zed'],
      message: 'unknown client "zed": expected claude-desktop, claude-code, cursor, vscode, windsurf or gemini-cli',
    },
    {
      name: 'malformed --env',
      args: ['install', 'notes-mcp', '--client', 'cursor', '--env', 'NOVALUE'],
      message: '--env takes KEY=VALUE, KEY letters, digits and _ (not starting with a digit), got "NOVALUE"',
    },
    { name: 'bad --env key', args: ['install', 'notes-mcp', '--client', 'cursor', '--env', '1A=x'], message: '--env takes KEY=VALUE' },
    { name: 'repeated --env key', args: ['install', 'notes-mcp', '--client', 'cursor', '--env', 'A=1', '--env', 'A=2'], message: '--env A is given twice' },
    { name: '--env with --url', args: ['install', '--url', URL_, '--client', 'cursor', '--env', 'A=1'], message: '--env sets the environment of a server the client starts' },
    { name: 'bad --name', args: ['install', 'notes-mcp', '--client', 'cursor', '--name', 'my server'], message: '--name must be 1 to 64 letters, digits, "-", "_" or ".", got "my server"' },
    { name: 'bad --url', args: ['install', '--url', 'ftp://x/mcp', '--client', 'cursor'], message: '--url must be an http(s) URL, got "ftp://x/mcp"' },
    {
      name: 'loopback --url without --name',
      args: ['install', '--url', 'http://localhost:3000/mcp', '--client', 'cursor'],
      message: 'name the server at http://localhost:3000/mcp with --name',
    },
    { name: 'missing entry file', args: ['install', 'dist/nope.js', '--client', 'cursor'], message: 'cannot find entry file dist/nope.js' },
    { name: 'TypeScript entry', args: ['install', 'src/server.ts', '--client', 'cursor'], files: { 'src/server.ts': '' }, message: 'src/server.ts is TypeScript: install the built entry' },
    { name: 'not a package name', args: ['install', 'Notes MCP', '--client', 'cursor'], message: 'Notes MCP is neither an entry file here nor an npm package name' },
    {
      name: 'unbuilt bin',
      args: ['install', '--client', 'cursor'],
      files: { 'package.json': '{"name":"n","bin":"dist/main.js"}' },
      message: 'does not exist: build the package first (npm run build)',
    },
    { name: '--force with --print', args: ['install', 'notes-mcp', '--print', '--force'], message: '--force applies to writing a file, not to --print' },
    { name: 'uninstall without a name', args: ['uninstall', '--client', 'cursor'], message: "uninstall takes the server's name, e.g. mcpx uninstall notes --client cursor" },
    { name: 'unknown flag', args: ['install', 'notes-mcp', '--client', 'cursor', '--bogus'], message: "unknown option '--bogus' (see mcpx install --help)" },
  ];
  it.each(CASES)('usage error, exit 2: $name', ({ args, files, message }) => {
    const s = sandbox();
    for (const [path, text] of Object.entries(files ?? {})) write(join(s.project, path), text);
    const r = s.mcpx(args);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.startsWith('mcpx: ')).toBe(true);
    expect(r.stderr).toContain(message);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(filesUnder(s.home)).toEqual([]);
  });

  it('--help for both commands, and mcpx --help and the unknown-command message name them', () => {
    const s = sandbox();
    for (const command of ['install', 'uninstall']) {
      const r = s.mcpx([command, '--help']);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^Usage: mcpx install \[entry\|package\] --client <client>/);
      for (const word of ['--print', '--workspace', '--force', '--env', 'mcpx uninstall <name>', '.bak', 'Exit codes']) expect(r.stdout).toContain(word);
    }
    const main = s.mcpx(['--help']);
    expect(main.stdout).toContain('mcpx install [entry|pkg] --client <c>');
    expect(main.stdout).toContain('mcpx uninstall <name> --client <c>');
    expect(s.mcpx(['frob']).stderr).toContain('or install or uninstall to set up a client');
  });

  it('uninstall of a file that does not exist: exit 1', () => {
    const s = sandbox();
    const r = s.mcpx(['uninstall', 'notes', '--client', 'gemini-cli']);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`mcpx: "notes" is not installed for Gemini CLI: ${USER_FILE['gemini-cli'](s)} does not exist\n`);
  });
});

describe('mcpx install: the variables a server declares required', () => {
  const TOKEN = { description: 'API token of the notes service', required: true, secret: true };
  const REGION = { description: 'Region', default: 'eu' };

  it("looks a published package's declaration up with npm view; without a terminal, writes the entry and names what is missing", () => {
    const s = sandbox();
    const r = s.mcpx(['install', '@acme/notes-mcp', '--client', 'cursor'], { env: { FAKE_NPM_VIEW: JSON.stringify({ env: { NOTES_TOKEN: TOKEN, NOTES_REGION: REGION } }) } });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('mcpx: "notes-mcp" requires NOTES_TOKEN, left out of the entry (no terminal to ask on): give it with --env NOTES_TOKEN=...\n');
    expect(readFileSync(USER_FILE.cursor(s), 'utf8')).toBe(fresh('cursor', 'notes-mcp', stdio('cursor', 'npx', ['-y', '@acme/notes-mcp'])));
    expect(s.npmCalls()).toEqual(['view --json -- @acme/notes-mcp mcpx']);

    // Given with --env: nothing to say.
    const given = s.mcpx(['install', '@acme/notes-mcp', '--client', 'cursor', '--force', '--env', 'NOTES_TOKEN=t'], {
      env: { FAKE_NPM_VIEW: JSON.stringify({ env: { NOTES_TOKEN: TOKEN } }) },
    });
    expect(given.stderr).toBe('');
    expect(readFileSync(USER_FILE.cursor(s), 'utf8')).toBe(fresh('cursor', 'notes-mcp', stdio('cursor', 'npx', ['-y', '@acme/notes-mcp'], { NOTES_TOKEN: 't' })));
  });

  it('takes the newest of the versions a range matches', () => {
    const s = sandbox();
    const versions = [{ env: { OLD_TOKEN: TOKEN } }, { env: { NEW_TOKEN: TOKEN } }];
    const r = s.mcpx(['install', 'notes-mcp@^1', '--client', 'cursor'], { env: { FAKE_NPM_VIEW: JSON.stringify(versions) } });
    expect(r.stderr).toContain('"notes-mcp" requires NEW_TOKEN,');
    expect(s.npmCalls()).toEqual(['view --json -- notes-mcp@^1 mcpx']);
  });

  it('installs anyway when the package cannot be looked up, and says so in one line', () => {
    const s = sandbox();
    const npmError = { error: { code: 'E404', summary: 'Not Found - GET https://registry.npmjs.org/nope', detail: 'more' } };
    const r = s.mcpx(['install', 'nope', '--client', 'cursor'], { env: { FAKE_NPM_VIEW: JSON.stringify(npmError), FAKE_NPM_EXIT: '1' } });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(
      'mcpx: cannot look up the environment variables nope declares (npm view: E404 Not Found - GET https://registry.npmjs.org/nope): none asked for; give any it needs with --env KEY=VALUE\n',
    );
    expect(readFileSync(USER_FILE.cursor(s), 'utf8')).toBe(fresh('cursor', 'nope', stdio('cursor', 'npx', ['-y', 'nope'])));
  });

  it("reads a local server's declaration from its package.json, and asks npm nothing", () => {
    const s = sandbox();
    write(join(s.project, 'package.json'), JSON.stringify({ name: 'notes', bin: 'dist/main.js', mcpx: { env: { NOTES_TOKEN: TOKEN } } }));
    write(join(s.project, 'dist', 'main.js'), '');
    const r = s.mcpx(['install', 'dist/main.js', '--client', 'cursor', '--print']);
    expect(r.stderr).toBe('mcpx: "main" requires NOTES_TOKEN, left out of the entry (no terminal to ask on): give it with --env NOTES_TOKEN=...\n');
    expect(s.npmCalls()).toEqual([]);
  });

  // script(1) runs mcpx on a pseudo-terminal: the real stdin in raw mode, typed into once each prompt shows.
  const script = process.platform === 'linux' && spawnSync('script', ['--version']).status === 0;
  (script ? it : it.skip)('asks on a real terminal, the secret without echo', async () => {
    const s = sandbox();
    write(
      join(s.project, 'package.json'),
      JSON.stringify({ name: 'notes', bin: 'dist/main.js', mcpx: { env: { NOTES_TOKEN: TOKEN, NOTES_URL: { description: 'Where', required: true } } } }),
    );
    write(join(s.project, 'dist', 'main.js'), '');
    const command = `'${process.execPath}' '${BIN}' install --client cursor; echo "exit $?"`;
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: s.project, env: s.env() });
    const answers: [string, string][] = [
      ['NOTES_TOKEN (API token of the notes service) [hidden]: ', 's3cret-pty\r'],
      ['NOTES_URL (Where): ', 'https://n.example\r'],
    ];
    let shown = '';
    child.stdout.on('data', (chunk: Buffer) => {
      shown += chunk.toString();
      if (answers[0] && shown.includes(answers[0][0])) child.stdin.write(answers.shift()![1]);
    });
    const stuck = setTimeout(() => child.kill(), 15_000); // a prompt that never came: fail, not hang
    await new Promise((resolve) => child.once('close', resolve));
    clearTimeout(stuck);
    expect(shown).toContain('exit 0');
    expect(shown).toContain('https://n.example');
    expect(shown).not.toContain('s3cret');
    expect(JSON.parse(readFileSync(USER_FILE.cursor(s), 'utf8'))).toEqual({
      mcpServers: { notes: { command: 'node', args: [join(s.project, 'dist', 'main.js')], env: { NOTES_TOKEN: 's3cret-pty', NOTES_URL: 'https://n.example' } } },
    });
  });
});

describe('mcpx install: files as clients and users keep them', () => {
  it('keeps comments and trailing commas in VS Code mcp.json', () => {
    const s = sandbox();
    const file = USER_FILE.vscode(s);
    const before = '// my servers\n{\n  "servers": {\n    /* the old one */\n    "other": { "type": "stdio", "command": "x" },\n  },\n  "inputs": [],\n}\n';
    write(file, before);
    expect(s.mcpx(['install', 'notes-mcp', '--client', 'vscode']).status).toBe(0);
    const after = readFileSync(file, 'utf8');
    expect(after).toBe(
      '// my servers\n{\n  "servers": {\n    /* the old one */\n    "other": { "type": "stdio", "command": "x" },\n    "notes-mcp": {\n      "type": "stdio",\n      "command": "npx",\n      "args": [\n        "-y",\n        "notes-mcp"\n      ]\n    },\n  },\n  "inputs": [],\n}\n',
    );
    expect(s.mcpx(['uninstall', 'notes-mcp', '--client', 'vscode']).status).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('refuses comments where the client reads plain JSON (Cursor)', () => {
    const s = sandbox();
    const file = USER_FILE.cursor(s);
    write(file, '{\n  // mine\n  "mcpServers": {}\n}\n');
    const r = s.mcpx(['install', 'notes-mcp', '--client', 'cursor']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${file} is not valid JSON: line 2, column 3: expected a "key" or '}', found "/"`);
  });

  it('writes through a symlinked file and keeps its permissions', () => {
    const s = sandbox();
    const real = join(s.project, 'dotfiles', 'claude.json');
    write(real, '{}\n');
    chmodSync(real, 0o600);
    symlinkSync(real, join(s.home, '.claude.json'));
    expect(s.mcpx(['install', 'notes-mcp', '--client', 'claude-code']).status).toBe(0);
    expect(JSON.parse(readFileSync(real, 'utf8'))).toEqual({ mcpServers: { 'notes-mcp': { type: 'stdio', command: 'npx', args: ['-y', 'notes-mcp'] } } });
    expect(statSync(real).mode & 0o777).toBe(0o600);
    expect(lstatSync(join(s.home, '.claude.json')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(s.home, '.claude.json.bak'), 'utf8')).toBe('{}\n');
  });

  it('follows CLAUDE_CONFIG_DIR, GEMINI_CLI_HOME, and ~/.config when XDG_CONFIG_HOME is unset', () => {
    const s = sandbox();
    const claudeDir = join(s.project, 'claude-config');
    const geminiHome = join(s.project, 'gemini-home');
    expect(s.mcpx(['install', 'a', '--client', 'claude-code'], { env: { CLAUDE_CONFIG_DIR: claudeDir } }).status).toBe(0);
    expect(s.mcpx(['install', 'a', '--client', 'gemini-cli'], { env: { GEMINI_CLI_HOME: geminiHome } }).status).toBe(0);
    expect(s.mcpx(['install', 'a', '--client', 'claude-desktop'], { env: { XDG_CONFIG_HOME: '' } }).status).toBe(0);
    expect(s.mcpx(['install', 'a', '--client', 'vscode'], { env: { XDG_CONFIG_HOME: 'relative/ignored' } }).status).toBe(0);
    expect(existsSync(join(claudeDir, '.claude.json'))).toBe(true);
    expect(existsSync(join(geminiHome, '.gemini', 'settings.json'))).toBe(true);
    expect(filesUnder(s.home)).toEqual(['.config/Claude/claude_desktop_config.json', '.config/Code/User/mcp.json']);
  });
});

describe('the client table on each platform', () => {
  const on = (platform: NodeJS.Platform, home: string, env: NodeJS.ProcessEnv, cwd: string): Where => ({ platform, home, env, cwd });
  const mac = on('darwin', '/Users/ada', { XDG_CONFIG_HOME: '/ignored' }, '/Users/ada/notes');
  const windows = on('win32', 'C:\\Users\\Ada', { APPDATA: 'C:\\Users\\Ada\\AppData\\Roaming' }, 'C:\\work\\notes');
  const linux = on('linux', '/home/ada', {}, '/home/ada/notes');
  const EXPECTED: Record<ClientName, [string, string, string, string | undefined]> = {
    'claude-desktop': [
      '/Users/ada/Library/Application Support/Claude/claude_desktop_config.json',
      'C:\\Users\\Ada\\AppData\\Roaming\\Claude\\claude_desktop_config.json',
      '/home/ada/.config/Claude/claude_desktop_config.json',
      undefined,
    ],
    'claude-code': ['/Users/ada/.claude.json', 'C:\\Users\\Ada\\.claude.json', '/home/ada/.claude.json', '.mcp.json'],
    cursor: ['/Users/ada/.cursor/mcp.json', 'C:\\Users\\Ada\\.cursor\\mcp.json', '/home/ada/.cursor/mcp.json', '.cursor/mcp.json'],
    vscode: [
      '/Users/ada/Library/Application Support/Code/User/mcp.json',
      'C:\\Users\\Ada\\AppData\\Roaming\\Code\\User\\mcp.json',
      '/home/ada/.config/Code/User/mcp.json',
      '.vscode/mcp.json',
    ],
    windsurf: ['/Users/ada/.codeium/windsurf/mcp_config.json', 'C:\\Users\\Ada\\.codeium\\windsurf\\mcp_config.json', '/home/ada/.codeium/windsurf/mcp_config.json', undefined],
    'gemini-cli': ['/Users/ada/.gemini/settings.json', 'C:\\Users\\Ada\\.gemini\\settings.json', '/home/ada/.gemini/settings.json', '.gemini/settings.json'],
  };
  it.each(CLIENT_NAMES)('%s', (name) => {
    const [macFile, windowsFile, linuxFile, project] = EXPECTED[name];
    expect(configFile(CLIENTS[name], mac, false)).toBe(macFile);
    expect(configFile(CLIENTS[name], windows, false)).toBe(windowsFile);
    expect(configFile(CLIENTS[name], linux, false)).toBe(linuxFile);
    if (project) {
      expect(configFile(CLIENTS[name], mac, true)).toBe(`/Users/ada/notes/${project}`);
      expect(configFile(CLIENTS[name], windows, true)).toBe(`C:\\work\\notes\\${project.replace(/\//g, '\\')}`);
    } else {
      expect(() => configFile(CLIENTS[name], linux, true)).toThrow('has no project configuration file');
    }
  });

  it('falls back to USERPROFILE\\AppData\\Roaming without APPDATA', () => {
    expect(configFile(CLIENTS.vscode, on('win32', 'C:\\Users\\Ada', {}, 'C:\\'), false)).toBe('C:\\Users\\Ada\\AppData\\Roaming\\Code\\User\\mcp.json');
  });
});

describe('install-file edits', () => {
  const options = { key: 'mcpServers', name: 'notes', entry: { command: 'npx', args: ['-y', 'notes'] }, force: false, jsonc: false, path: 'f.json' };

  it('keeps a one-line object on one line', () => {
    expect(withEntry('{"mcpServers": {"a": {"command": "a"}}}', options).text).toBe('{"mcpServers": {"a": {"command": "a"}, "notes": {"command":"npx","args":["-y","notes"]}}}');
  });

  it('fills an empty servers object at its own indentation, and keeps CRLF line ends', () => {
    expect(withEntry('{\r\n    "x": 1,\r\n    "mcpServers": {}\r\n}\r\n', options).text).toBe(
      '{\r\n    "x": 1,\r\n    "mcpServers": {\r\n        "notes": {\r\n            "command": "npx",\r\n            "args": [\r\n                "-y",\r\n                "notes"\r\n            ]\r\n        }\r\n    }\r\n}\r\n',
    );
  });

  it('treats an empty file as {} and keeps a byte order mark', () => {
    expect(withEntry('', options).text).toBe(`${JSON.stringify({ mcpServers: { notes: options.entry } }, null, 2)}\n`);
    expect(withEntry('\uFEFF{}', options).text).toBe(
      '\uFEFF{\n  "mcpServers": {\n    "notes": {\n      "command": "npx",\n      "args": [\n        "-y",\n        "notes"\n      ]\n    }\n  }\n}',
    );
  });

  it('sees the same entry with its keys in another order as installed', () => {
    expect(withEntry('{"mcpServers":{"notes":{"args":["-y","notes"],"command":"npx"}}}', options).change).toBe('unchanged');
  });

  it('removes the first, a middle and the last member, and the only one', () => {
    const text = '{\n  "mcpServers": {\n    "a": 1,\n    "b": 2,\n    "c": 3\n  }\n}\n';
    const remove = (t: string, name: string) => withoutEntry(t, { key: 'mcpServers', name, jsonc: false, path: 'f.json' });
    expect(remove(text, 'a')).toBe('{\n  "mcpServers": {\n    "b": 2,\n    "c": 3\n  }\n}\n');
    expect(remove(text, 'b')).toBe('{\n  "mcpServers": {\n    "a": 1,\n    "c": 3\n  }\n}\n');
    expect(remove(text, 'c')).toBe('{\n  "mcpServers": {\n    "a": 1,\n    "b": 2\n  }\n}\n');
    expect(remove('{"mcpServers": {"a": 1}, "k": true}', 'a')).toBe('{"mcpServers": {}, "k": true}');
  });

  it('refuses servers that are not an object, and a root that is not one', () => {
    expect(() => withEntry('{"mcpServers": []}', options)).toThrow('f.json: "mcpServers" is not an object; fix it by hand (nothing was changed)');
    expect(() => withEntry('[]', options)).toThrow('f.json does not hold a JSON object');
    expect(() => withEntry('{"a": 1,}', options)).toThrow('f.json is not valid JSON: line 1, column 9: expected a "key", found "}"');
    expect(withEntry('{"a": 1,}', { ...options, jsonc: true }).text).toBe('{"a": 1, "mcpServers": {"notes":{"command":"npx","args":["-y","notes"]}},}');
  });
});
