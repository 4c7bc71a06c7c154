import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The CLI's version, from packages/cli/package.json (dist/ and src/ both sit one level below it). */
export function version(): string {
  return (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
}

export const MAIN_HELP = `mcpx: serve and inspect mcpx MCP servers

Usage:
  mcpx serve <entry> [options]          serve a decorated server over HTTP (default) or stdio
  mcpx proxy <config> [options]         serve the MCP servers a Claude Desktop-style config names, as one
  mcpx dev <entry> [options]            serve it, and reload it whenever its source changes
  mcpx list <entry> [--json]            print the tools, resources, templates and prompts it offers
  mcpx call <entry|url> <tool> [json]   call a tool once and print the result
  mcpx read <entry|url> <uri>           read a resource once and print it
  mcpx prompt <entry|url> <name> [json] get a prompt and print its messages
  mcpx init <dir> [--name <n>]          scaffold a project that builds and passes its own test
            [--template app]            (app: a tool with an MCP Apps view, an HTML UI hosts render)
  mcpx manifest [entry] [--check]       write the registry's server.json and package.json mcpName
  mcpx install [entry|pkg] --client <c> add the server to a client's config (Claude, Cursor, VS Code...)
  mcpx uninstall <name> --client <c>    remove it from that config again

  <entry> is a compiled .js module, or a .ts one (loaded through ts-node), that exports a
  class decorated with @Server (or an instance of one, or a default export). <url> is the
  Streamable HTTP endpoint of a running server, e.g. http://127.0.0.1:3000/mcp.

Options:
  -h, --help      show help (also: mcpx <command> --help)
  -v, --version   print the version

Exit codes: 0 ok, 1 runtime failure, 2 usage or definition error.
`;

export const SERVE_HELP = `Usage: mcpx serve <entry> [options]
       mcpx serve --openapi <file|url> --base-url <url> [options]

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
  --cors-origin <list>     CORS for browser clients: comma list of page   MCPX_CORS_ORIGINS
                           origins, or * (default off; also allowed Origins)
  --session-idle-timeout <ms>  end idle sessions after this (default 30 min) MCPX_SESSION_IDLE_TIMEOUT
  --log-level <level>      fatal|error|warn|info|debug|trace|silent       MCPX_LOG_LEVEL
  --mask-errors            an unexpected tool error reaches the client as MCPX_MASK_ERRORS
                           a generic message (ToolError's stay); the log has it all
  --skills <dir>           serve the skills in <dir> (one folder per skill,   MCPX_SKILLS
                           each with a SKILL.md) as io.modelcontextprotocol/skills
  -h, --help               show this help

OAuth 2.1 resource server (HTTP; every MCP request then needs a bearer JWT):
  --auth-jwks-url <url>    the authorization server's JWKS; turns auth on MCPX_AUTH_JWKS_URL
  --auth-issuer <url>      the issuer tokens must carry (iss)              MCPX_AUTH_ISSUER
  --auth-audience <url>    this server's public MCP URL: the audience      MCPX_AUTH_AUDIENCE
                           tokens must be issued for (aud, RFC 8707)
  --auth-scopes-supported <list>  scopes listed in the metadata            MCPX_AUTH_SCOPES_SUPPORTED
  --auth-authorization-server <list>  issuers clients get tokens from      MCPX_AUTH_AUTHORIZATION_SERVER
                           (default: the issuer)

Several instances as one server (HTTP; sessions, SSE event logs and tasks live in Redis, so a
load balancer may send any request to any instance; see docs/deployment.md):
  --redis-url <url>        a single Redis node, redis:// or rediss://     MCPX_REDIS_URL
  --redis-cluster-nodes <list>  a Redis Cluster: some of its nodes' URLs  MCPX_REDIS_CLUSTER_NODES
  --redis-sentinels <list> a primary behind Sentinel: the sentinels' URLs MCPX_REDIS_SENTINELS
  --redis-sentinel-name <name>  the name they monitor it under            MCPX_REDIS_SENTINEL_NAME
                           (its credentials: MCPX_REDIS_USERNAME, MCPX_REDIS_PASSWORD)
  --redis-prefix <prefix>  prefix of every key (default mcpx:)            MCPX_REDIS_PREFIX

An OpenAPI 3.0/3.1 description as tools, no entry file (see docs/composition.md):
  --openapi <file|url>     each operation becomes a tool calling the API  MCPX_OPENAPI
  --base-url <url>         the API the tools call, and the only one       MCPX_OPENAPI_BASE_URL
  --openapi-header <h>     "Name: value" sent with every call (repeat     MCPX_OPENAPI_HEADERS
                           it; the env var is a JSON object of headers)
  --openapi-tags <list>    only operations with one of these tags         MCPX_OPENAPI_TAGS
  --openapi-exclude-tags <list>  leave out operations with these tags     MCPX_OPENAPI_EXCLUDE_TAGS

Observability (see docs/observability.md):
  --otel                   traces and metrics over OTLP, set up by the    MCPX_OTEL
                           OTEL_* variables (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME,
                           OTEL_EXPORTER_OTLP_PROTOCOL...); HTTP and --stdio
  --metrics                Prometheus text at GET /metrics, no token      MCPX_METRICS
                           needed (HTTP only)
  --metrics-port <n>       serve /metrics on this port instead (turns     MCPX_METRICS_PORT
                           --metrics on)

Discovery (HTTP only; see docs/transports.md):
  --server-card            experimental: the MCP server card, public, at  MCPX_SERVER_CARD
                           <path>/server-card and /.well-known/mcp/server-card.json

Boolean env vars take 1/0, true/false, yes/no. Logs are pino JSON when stdout is not a
terminal or CI is set, coloured lines on a terminal. SIGTERM/SIGINT stop cleanly (exit 0).

Examples:
  mcpx serve dist/server.js --port 8080
  mcpx serve src/server.ts --stdio
  MCPX_PORT=0 mcpx serve dist/servers.js --server NotesServer
  mcpx serve dist/server.js --host 0.0.0.0 --redis-url redis://redis:6379
  mcpx serve dist/server.js --redis-sentinels redis://s1:26379,redis://s2:26379 --redis-sentinel-name mcpx
  OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 mcpx serve dist/server.js --otel --metrics
  mcpx serve --openapi ./openapi.yaml --base-url https://api.example.com --openapi-header "Authorization: Bearer $TOKEN"
`;

export const LIST_HELP = `Usage: mcpx list <entry> [options]

Loads <entry> like mcpx serve (without serving) and prints what the server offers: tools
(name, title, description, input schema), resources, resource templates and prompts.

Options:
  --json            print one JSON object (server, tools, resources, resourceTemplates, prompts, warnings)
  --strict          fail (exit 2) on definition warnings too: what an input schema cannot check,
                    such as a union typed property (the server logs them at startup; MCPX_STRICT_DEFINITIONS=1
                    makes a served server fail on them)
  --server <Name>   which server class, when the module exports several
  -h, --help        show this help
`;

export const DEV_HELP = `Usage: mcpx dev <entry> [serve options] [--watch <dir>]...

Serves <entry> like mcpx serve, in a child process, and restarts it when a file changes in the
entry's project folder (the nearest folder with a package.json). A .ts entry needs no build
step: it is compiled on load by ts-node without type-checking (decorator metadata intact), so
run tsc or your editor for type errors. If the new code fails to load, the error is printed and
the next save that loads starts the server again.

Options:
  --watch <dir>   watch this folder instead (repeatable); node_modules, dist, build,
                  coverage and hidden folders are skipped, unless the entry is inside one
  every mcpx serve option (see mcpx serve --help): --stdio, --port, --host, --log-level...
  -h, --help      show this help

What a reload means to clients:
  HTTP   the new process has no sessions: a client's next request gets 404 and, as the
         protocol says, it initializes again. --port 0 picks one free port, kept across reloads.
  stdio  mcpx dev keeps the client's pipe: it replays the client's initialize (and log level
         and subscriptions) to the new process and sends list_changed. Requests in flight
         during a reload are answered with an error; so are requests while the code is broken.

Ctrl-C or SIGTERM stops the server and mcpx dev (exit 0).

Examples:
  mcpx dev src/server.ts --port 8080
  mcpx dev src/server.ts --stdio
  mcpx dev dist/server.js --watch dist      (with tsc --watch compiling in another terminal)
`;

const CALL_OPTIONS = `Options:
  --json              print the raw result as JSON
  --header <h>        an HTTP header for a URL, as 'Name: value' (repeatable), e.g.
                      --header 'Authorization: Bearer <token>'
  --server <Name>     which server class, when the entry exports several
  --timeout <ms>      give up waiting for the answer after this (default 60000)
  --answer <json>     fills a form the server asks for (elicitation): the content as a JSON
                      object, or decline, or cancel; repeat it for several, in order. Without
                      one, the form is asked on a terminal; piped, the server is told there is
                      no one to ask
  --log-level <l>     what an <entry> logs, on stderr (default warn: a failure's cause shows) MCPX_LOG_LEVEL
  -h, --help          show this help

<entry> is loaded in this process (.ts through ts-node), as mcpx serve would load it; <url> is
the endpoint of a running Streamable HTTP server: a session is opened, used once and deleted.`;

export const CALL_HELP = `Usage: mcpx call <entry|url> <tool> [json-arguments] [options]

Calls a tool once and prints its result: structured content as indented JSON, text as it is,
other content (images, audio, links, resources) summarised on one line each. The arguments are
one JSON object, quoted for the shell.

${CALL_OPTIONS}

Exit codes: 0 ok; 1 the tool reported an error (isError: its text goes to stderr), or the
server could not be reached; 2 bad arguments or a JSON-RPC error (unknown tool, invalid params).

Examples:
  mcpx call dist/server.js search '{"query":"milk"}'
  mcpx call http://127.0.0.1:3000/mcp search '{"query":"milk"}' --json
`;

export const READ_HELP = `Usage: mcpx read <entry|url> <uri> [options]

Reads a resource once and prints its contents: text as it is (JSON indented), binary contents
summarised. With several contents, each comes under its URI.

${CALL_OPTIONS}

Exit codes: 0 ok; 1 the server could not be reached; 2 bad arguments or a JSON-RPC error
(no such resource).

Examples:
  mcpx read dist/server.js notes://index
  mcpx read http://127.0.0.1:3000/mcp notes://notes/1
`;

export const PROMPT_HELP = `Usage: mcpx prompt <entry|url> <name> [json-arguments] [options]

Gets a prompt and prints its description and messages, each under its role. The arguments are
one JSON object of strings, quoted for the shell.

${CALL_OPTIONS}

Exit codes: 0 ok; 1 the server could not be reached; 2 bad arguments or a JSON-RPC error
(unknown prompt, missing argument).

Examples:
  mcpx prompt dist/server.js summarize '{"noteId":"1"}'
  mcpx prompt http://127.0.0.1:3000/mcp summarize '{"noteId":"1","style":"detailed"}' --json
`;

export const MANIFEST_HELP = `Usage: mcpx manifest [entry] [options]

Writes server.json, the MCP registry's description of the server (schema 2025-12-11), from
package.json and the server <entry> exports (default: package.json "main"), checks it against the
registry's schema, and sets package.json "mcpName" to its name: the registry's proof that the npm
package is this server's. Run it in the package folder, after building.

  name         --name, else package.json "mcpx.name" or "mcpName", else io.github.<owner>/<package
               name without scope> from a GitHub "repository"
  description  @Server({ description }), else package.json's, within the registry's 100 characters
  packages     the npm package with its stdio transport (unless private or without "bin"), and the
               environment variables package.json "mcpx.env" declares:
               { "API_KEY": { "description": "...", "required": true, "secret": true } }
  remotes      a Streamable HTTP deployment: --url, else package.json "mcpx.url"
  _meta        the server's tools, prompts and resource templates (publisher-provided metadata)

Options:
  --server <name>   which exported server, when the entry exports several
  --name <name>     the registry name, e.g. io.github.acme/notes
  --url <url>       the public MCP endpoint of a deployment, e.g. https://notes.acme.dev/mcp
  --out <file>      where to write (default server.json)
  --check           write nothing; exit 1 naming what differs when server.json or mcpName are not
                    what the code makes now (for CI)

Then publish with the registry's mcp-publisher: mcp-publisher login github && mcp-publisher publish
(see docs/publishing.md).

Exit codes: 0 ok; 1 out of date (--check) or cannot write; 2 bad arguments or definition error.
`;

export const INSTALL_HELP = `Usage: mcpx install [entry|package] --client <client> [options]
       mcpx install [entry|package] --print [--client <client>] [options]
       mcpx uninstall <name> --client <client> [--workspace]

Adds one MCP server to a client application's configuration file, leaving its other servers and
settings byte for byte as they were; uninstall takes it out again. What the client runs:
  <package>    an npm package name (an existing path wins): npx -y <package>
  <entry>      a built .js entry file: node <its absolute path>
  (nothing)    the package in the current folder: node <its "bin", else its "main">
  --url <url>  a running Streamable HTTP server, in the client's HTTP shape

Clients (the user's file; with --workspace, the project's file in the current folder):
  claude-desktop  claude_desktop_config.json in Claude's app folder (stdio only: HTTP servers are
                  custom connectors, added in the app)
  claude-code     ~/.claude.json ($CLAUDE_CONFIG_DIR/.claude.json)  --workspace: .mcp.json
  cursor          ~/.cursor/mcp.json                                 --workspace: .cursor/mcp.json
  vscode          mcp.json in VS Code's User folder ("servers")     --workspace: .vscode/mcp.json
  windsurf        ~/.codeium/windsurf/mcp_config.json
  gemini-cli      ~/.gemini/settings.json                            --workspace: .gemini/settings.json
  App folders: ~/Library/Application Support (macOS), %APPDATA% (Windows), $XDG_CONFIG_HOME or
  ~/.config (Linux).

Options:
  --client <client>   the client whose file to change (above)
  --name <name>       the server's name there: letters, digits, - _ . (default: the package name
                      without scope, the entry file's name, or the first label of the URL's host)
  --url <url>         install an HTTP server at this URL instead of one the client starts
  --env KEY=VALUE     set a variable in the started server's environment (repeatable); the
                      required ones the server declares (package.json "mcpx.env", or the
                      published package's) and --env leaves out are asked for on a terminal,
                      secrets without echo, and named on stderr elsewhere
  --workspace         the project's file instead of the user's
  --force             replace an entry of the same name that says something else
  --print             write nothing: print the entry as JSON to paste, in --client's shape or,
                      without --client, the common "mcpServers" shape
  -h, --help          show this help

A changed file is first copied to <file>.bak (replacing an older backup), then replaced at once
(written beside it and renamed). A file that is not valid JSON is refused and left as it is.
Restart the client (or reload its MCP servers) to pick the change up.

Exit codes: 0 ok (also when the same entry is already there); 1 the file cannot be read or
written, the name is taken (without --force), or uninstall finds no such entry; 2 bad arguments.

Examples:
  mcpx install @acme/notes-mcp --client claude-desktop --env NOTES_TOKEN=secret
  mcpx install dist/main-stdio.js --client cursor --workspace
  mcpx install --url https://notes.acme.dev/mcp --client vscode --name notes
  mcpx install @acme/notes-mcp --print
  mcpx uninstall notes-mcp --client claude-desktop
`;
