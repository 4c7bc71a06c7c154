import { listen } from '@mcpx/http';
import { NotesServer } from './notes-server';

// `npm start`: the notes server over Streamable HTTP on $HOST:$PORT (default 127.0.0.1:3000), path /mcp.
void listen(new NotesServer(), {
  pageSize: Number(process.env.MCPX_PAGE_SIZE) || undefined,
}).catch((err: Error) => {
  process.stderr.write(`mcpx: cannot start: ${err.message}\n`);
  process.exit(1);
});
