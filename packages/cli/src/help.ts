import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The CLI's version, from packages/cli/package.json (dist/ and src/ both sit one level below it). */
export function version(): string {
  return (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
}

export const MAIN_HELP = `mcpx: serve and inspect mcpx MCP servers

Usage:
  mcpx serve <entry> [options]   serve a decorated server over HTTP (default) or stdio
  mcpx list <entry> [--json]     print the tools, resources, templates and prompts it offers
  mcpx init <dir> [--name <n>]   scaffold a project that builds and passes its own test

  <entry> is a compiled .js module, or a .ts one (loaded through ts-node), that exports a
  class decorated with @Server (or an instance of one, or a default export).

Options:
  -h, --help      show help (also: mcpx <command> --help)
  -v, --version   print the version

Exit codes: 0 ok, 1 runtime failure, 2 usage or definition error.
`;

export const SERVE_HELP = `Usage: mcpx serve <entry> [options]

Loads <entry> (.js, or .ts through ts-node), instantiates its @Server class and serves it over
Streamable HTTP (default) or stdio. Flags win over environment variables.

Options:                                              env
  --stdio                  serve on stdin/stdout; logs go to stderr
  --server <Name>          which server class, when the module exports several
  --port <n>               HTTP port, 0 = any free one (default 3000)     MCPX_PORT, PORT
  --host <addr>            address to bind (default 127.0.0.1)            MCPX_HOST, HOST
  --path <path>            MCP endpoint path (default /mcp)               MCPX_PATH
  --stateless              no sessions: each POST served on its own       MCPX_STATELESS
  --json-response          answer with one JSON body instead of SSE       MCPX_JSON_RESPONSE
  --allowed-origins <list> comma list of allowed Origins, or *            MCPX_ALLOWED_ORIGINS
                           (default: loopback origins)
  --allowed-hosts <list>   comma list of Host values accepted on          MCPX_ALLOWED_HOSTS
                           loopback (default: localhost, 127.0.0.1, [::1])
  --session-idle-timeout <ms>  end idle sessions after this (default 30 min) MCPX_SESSION_IDLE_TIMEOUT
  --log-level <level>      fatal|error|warn|info|debug|trace|silent       MCPX_LOG_LEVEL
  -h, --help               show this help

OAuth 2.1 resource server (HTTP; every MCP request then needs a bearer JWT):
  --auth-jwks-url <url>    the authorization server's JWKS; turns auth on MCPX_AUTH_JWKS_URL
  --auth-issuer <url>      the issuer tokens must carry (iss)              MCPX_AUTH_ISSUER
  --auth-audience <url>    this server's public MCP URL: the audience      MCPX_AUTH_AUDIENCE
                           tokens must be issued for (aud, RFC 8707)
  --auth-scopes-supported <list>  scopes listed in the metadata            MCPX_AUTH_SCOPES_SUPPORTED
  --auth-authorization-server <list>  issuers clients get tokens from      MCPX_AUTH_AUTHORIZATION_SERVER
                           (default: the issuer)

Boolean env vars take 1/0, true/false, yes/no. Logs are pino JSON when stdout is not a
terminal or CI is set, coloured lines on a terminal. SIGTERM/SIGINT stop cleanly (exit 0).

Examples:
  mcpx serve dist/server.js --port 8080
  mcpx serve src/server.ts --stdio
  MCPX_PORT=0 mcpx serve dist/servers.js --server NotesServer
`;

export const LIST_HELP = `Usage: mcpx list <entry> [options]

Loads <entry> like mcpx serve (without serving) and prints what the server offers: tools
(name, title, description, input schema), resources, resource templates and prompts.

Options:
  --json            print one JSON object (server, tools, resources, resourceTemplates, prompts)
  --server <Name>   which server class, when the module exports several
  -h, --help        show this help
`;
