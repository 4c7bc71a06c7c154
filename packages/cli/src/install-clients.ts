import { posix, win32 } from 'node:path';
import { CliError } from './errors';

/**
 * The clients `mcpx install` writes to: where each keeps its MCP servers and the shape of one
 * entry. Paths and shapes follow each client's documentation (see docs/publishing.md for the
 * sources); the functions take the platform and environment as arguments so the table can be
 * checked for macOS and Windows on any machine.
 */

export const CLIENT_NAMES = ['claude-desktop', 'claude-code', 'cursor', 'vscode', 'windsurf', 'gemini-cli'] as const;
export type ClientName = (typeof CLIENT_NAMES)[number];

/** What to start or reach, before a client's shape is put on it. */
export type ServerSpec = { kind: 'stdio'; command: string; args: string[]; env?: Record<string, string> } | { kind: 'http'; url: string };

/** Where the configuration files are looked for: the machine's facts, passed in rather than read. */
export interface Where {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  /** os.homedir(): HOME on Linux and macOS, USERPROFILE on Windows. */
  home: string;
  /** The current directory: project files (--workspace) are relative to it. */
  cwd: string;
}

export interface Client {
  name: ClientName;
  title: string;
  /** The top-level key that holds the servers, by name. */
  key: 'mcpServers' | 'servers';
  /** The client reads its file as JSON with comments (and trailing commas): mcpx accepts and keeps them. */
  jsonc: boolean;
  userFile(where: Where): string;
  /** The project-level file, relative to the current directory; undefined when the client has none. */
  workspaceFile?: string[];
  entry(spec: ServerSpec): Record<string, unknown>;
}

type Path = typeof posix;

/** Windows paths with backslashes even when computed elsewhere (the tests check them on Linux). */
const pathOf = (where: Where): Path => (where.platform === 'win32' ? win32 : posix);

/** A variable that is set and not empty: an empty one means unset for every client here. */
const envOf = (where: Where, name: string): string | undefined => (where.env[name] ? where.env[name] : undefined);

/**
 * The per-user application data folder, as Electron's app.getPath('appData') and VS Code compute it:
 * %APPDATA% on Windows, ~/Library/Application Support on macOS, $XDG_CONFIG_HOME or ~/.config elsewhere
 * (a relative XDG_CONFIG_HOME is ignored, as the XDG spec says).
 */
function appData(where: Where): string {
  const path = pathOf(where);
  if (where.platform === 'win32') return envOf(where, 'APPDATA') ?? path.join(where.home, 'AppData', 'Roaming');
  if (where.platform === 'darwin') return path.join(where.home, 'Library', 'Application Support');
  const xdg = envOf(where, 'XDG_CONFIG_HOME');
  return xdg && path.isAbsolute(xdg) ? xdg : path.join(where.home, '.config');
}

function stdioEntry(spec: Extract<ServerSpec, { kind: 'stdio' }>, type?: 'stdio'): Record<string, unknown> {
  return { ...(type ? { type } : {}), command: spec.command, args: spec.args, ...(spec.env && Object.keys(spec.env).length > 0 ? { env: spec.env } : {}) };
}

export const CLIENTS: Record<ClientName, Client> = {
  'claude-desktop': {
    name: 'claude-desktop',
    title: 'Claude Desktop',
    key: 'mcpServers',
    jsonc: false,
    userFile: (where) => pathOf(where).join(appData(where), 'Claude', 'claude_desktop_config.json'),
    entry: (spec) => {
      // Its config file starts local processes only; remote servers are custom connectors, added in the app.
      if (spec.kind === 'http') {
        throw new CliError(
          'Claude Desktop takes HTTP servers as custom connectors (Settings > Connectors > Add custom connector), not in its config file: install the stdio entry instead, or pick another --client',
        );
      }
      return stdioEntry(spec);
    },
  },
  'claude-code': {
    name: 'claude-code',
    title: 'Claude Code',
    key: 'mcpServers',
    jsonc: false,
    // The user scope lives at the top of ~/.claude.json (in CLAUDE_CONFIG_DIR when that is set).
    userFile: (where) => pathOf(where).join(envOf(where, 'CLAUDE_CONFIG_DIR') ?? where.home, '.claude.json'),
    workspaceFile: ['.mcp.json'],
    // The shapes `claude mcp add` writes.
    entry: (spec) => (spec.kind === 'http' ? { type: 'http', url: spec.url } : stdioEntry(spec, 'stdio')),
  },
  cursor: {
    name: 'cursor',
    title: 'Cursor',
    key: 'mcpServers',
    jsonc: false,
    userFile: (where) => pathOf(where).join(where.home, '.cursor', 'mcp.json'),
    workspaceFile: ['.cursor', 'mcp.json'],
    // Cursor tells Streamable HTTP from SSE itself: a URL is enough.
    entry: (spec) => (spec.kind === 'http' ? { url: spec.url } : stdioEntry(spec)),
  },
  vscode: {
    name: 'vscode',
    title: 'VS Code',
    key: 'servers',
    jsonc: true,
    // The default profile's mcp.json (MCP: Open User Configuration); other profiles keep theirs under User/profiles/<id>/.
    userFile: (where) => pathOf(where).join(appData(where), 'Code', 'User', 'mcp.json'),
    workspaceFile: ['.vscode', 'mcp.json'],
    entry: (spec) => (spec.kind === 'http' ? { type: 'http', url: spec.url } : stdioEntry(spec, 'stdio')),
  },
  windsurf: {
    name: 'windsurf',
    title: 'Windsurf',
    key: 'mcpServers',
    jsonc: false,
    userFile: (where) => pathOf(where).join(where.home, '.codeium', 'windsurf', 'mcp_config.json'),
    entry: (spec) => (spec.kind === 'http' ? { serverUrl: spec.url } : stdioEntry(spec)),
  },
  'gemini-cli': {
    name: 'gemini-cli',
    title: 'Gemini CLI',
    key: 'mcpServers',
    // Gemini CLI strips comments before parsing its settings.
    jsonc: true,
    // GEMINI_CLI_HOME stands in for the home folder when set.
    userFile: (where) => pathOf(where).join(envOf(where, 'GEMINI_CLI_HOME') ?? where.home, '.gemini', 'settings.json'),
    workspaceFile: ['.gemini', 'settings.json'],
    // httpUrl is Streamable HTTP; url would be the older SSE transport.
    entry: (spec) => (spec.kind === 'http' ? { httpUrl: spec.url } : stdioEntry(spec)),
  },
};

/** The client named by --client, or a usage error listing them. */
export function clientOf(name: string): Client {
  if ((CLIENT_NAMES as readonly string[]).includes(name)) return CLIENTS[name as ClientName];
  throw new CliError(`unknown client "${name}": expected ${CLIENT_NAMES.slice(0, -1).join(', ')} or ${CLIENT_NAMES.at(-1)!} (--print shows the entry for another client)`);
}

/** The file to change: the client's user file, or with --workspace its project file in the current directory. */
export function configFile(client: Client, where: Where, workspace: boolean): string {
  if (!workspace) return client.userFile(where);
  if (!client.workspaceFile) throw new CliError(`${client.title} has no project configuration file: drop --workspace to install for the user`);
  return pathOf(where).join(where.cwd, ...client.workspaceFile);
}

/**
 * The entry for --print without --client: the `mcpServers` shape most clients share (Claude Desktop,
 * Claude Code, Cursor, Windsurf, Gemini CLI for stdio), with `type: "http"` and `url` for a URL.
 */
export function genericEntry(spec: ServerSpec): Record<string, unknown> {
  return spec.kind === 'http' ? { type: 'http', url: spec.url } : stdioEntry(spec);
}
