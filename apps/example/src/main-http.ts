import { listen } from '@mcpx/http';
import { NotesServer } from './notes-server';

// `npm start`: the notes server over Streamable HTTP on $HOST:$PORT (default 127.0.0.1:3000), path /mcp.
// MCPX_CORS_ORIGINS (a comma list of page origins, or *), as `mcpx serve` reads it: a browser host
// rendering the notes board can then reach the server.
const corsOrigins = process.env.MCPX_CORS_ORIGINS?.split(',')
  .map((o) => o.trim())
  .filter(Boolean);
void listen(new NotesServer(), {
  pageSize: Number(process.env.MCPX_PAGE_SIZE) || undefined,
  ...(corsOrigins?.length ? { cors: { origins: corsOrigins } } : {}),
}).catch((err: Error) => {
  process.stderr.write(`mcpx: cannot start: ${err.message}\n`);
  process.exit(1);
});
