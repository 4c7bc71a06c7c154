import { listen } from '@mcpx/http';
import { ConformanceServer } from './conformance-server';

// `npm run conformance:serve`: the fixtures over Streamable HTTP on 127.0.0.1:$PORT/mcp (default 3001).
void listen(new ConformanceServer(), {
  port: Number(process.env.PORT ?? 3001),
  host: process.env.HOST ?? '127.0.0.1',
  clientLogLevel: 'debug',
}).catch((err: Error) => {
  process.stderr.write(`conformance server: cannot start: ${err.message}\n`);
  process.exit(1);
});
