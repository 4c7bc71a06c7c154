import { CliError } from './errors';

/**
 * `mcpx proxy CONFIG`: a gateway serving the upstream servers a CONFIG file names (the `mcpServers`
 * shape of Claude Desktop, Cursor and VS Code), with every `mcpx serve` flag in front of them.
 */
export async function proxyInstance(configFile: string): Promise<{ name: string; instance: object }> {
  const { proxyServer } = await import('@mcpx/proxy');
  try {
    const instance = await proxyServer(configFile);
    return { name: 'mcpx-proxy', instance };
  } catch (err) {
    throw new CliError(`cannot proxy ${configFile}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`, 2, { cause: err });
  }
}

export const PROXY_HELP = `Usage: mcpx proxy <config> [options]

Serves the MCP servers a configuration file names through one mcpx server: a gateway. <config>
is JSON in the shape Claude Desktop, Claude Code, Cursor (and VS Code, as "servers") use:

  { "mcpServers": {
      "github": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                  "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "\${GITHUB_TOKEN}" } },
      "search": { "url": "https://search.example.com/mcp", "headers": { "Authorization": "Bearer \${SEARCH_KEY}" },
                  "prefix": "web", "scopes": { "*": ["search:read"] } } } }

Each server's tools and prompts are served as <prefix>_<name>, its resources as
scheme://<prefix>/..., the prefix being its key unless it sets "prefix" (false: none).
\${NAME} and \${env:NAME} are read from the environment; credentials never reach clients.
A server that stops is started again (stdio) or reached again (HTTP) with backoff; its entries
are hidden meanwhile and calls to them say why. "scopes" (by the server's own names, "*" for
the rest) are required of callers when --auth-jwks-url turns OAuth on.

Options: every mcpx serve option but --server and --openapi (see mcpx serve --help):
  --stdio, --port, --host, --path, --auth-*, --cors-origin, --redis-*, --otel, --metrics,
  --log-level, --mask-errors...
  -h, --help      show this help

Examples:
  mcpx proxy ~/Library/Application\\ Support/Claude/claude_desktop_config.json --port 8080
  mcpx proxy gateway.json --stdio
`;
