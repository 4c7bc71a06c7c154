import { listen, type ListenOptions } from '@mcpx/http';

/** A browser client on https://app.example.com (and its dev server) may call and read the answers. */
export const corsOptions: ListenOptions = {
  cors: {
    origins: ['https://app.example.com', 'http://localhost:5173'], // exact origins; also pass the Origin check
    // credentials: false (default): a bearer token in Authorization needs no credentials mode
    maxAgeSec: 7200, // how long a browser reuses a preflight answer (default 7200)
    allowedHeaders: ['Mcp-Param-Region'], // besides the headers MCP uses
  },
};

export { listen };
