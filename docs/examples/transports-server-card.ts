import { listen, type ListenOptions } from '@mcpx/http';

/** The MCP server card (experimental) of a server whose public endpoint is https://mcp.example.com/mcp. */
export const serverCardOptions: ListenOptions = {
  serverCard: {
    url: 'https://mcp.example.com/mcp', // the public MCP URL; default: auth.resource, else loopback requests' own
    name: 'com.example/weather', // default: @Server's name when reverse-DNS, else com.example.mcp/<@Server's name>
    repository: { url: 'https://github.com/example/weather', source: 'github' },
  },
};

export { listen };
