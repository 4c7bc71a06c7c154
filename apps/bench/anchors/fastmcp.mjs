// Anchor: the two benchmark tools on FastMCP TS, Streamable HTTP (its default, stateful) on
// 127.0.0.1:$PORT/mcp, or stdio with --stdio.
import { FastMCP } from 'fastmcp';
import { z } from 'zod';
import payload from '../dist/payload.js';

const server = new FastMCP({ name: 'fastmcp-bench', version: '1.0.0' });
server.addTool({
  name: 'echo',
  description: payload.ECHO_DESCRIPTION,
  parameters: z.object({ text: z.string().describe('The text to return') }),
  execute: async ({ text }) => text,
});
server.addTool({
  name: 'big',
  description: payload.BIG_DESCRIPTION,
  execute: async () => payload.BIG_TEXT,
});

if (process.argv.includes('--stdio')) {
  await server.start({ transportType: 'stdio' });
} else {
  const port = Number(process.env.PORT ?? 3000);
  await server.start({ transportType: 'httpStream', httpStream: { port, host: '127.0.0.1', endpoint: '/mcp' } });
  process.stderr.write(`fastmcp bench server on http://127.0.0.1:${port}/mcp\n`);
}
