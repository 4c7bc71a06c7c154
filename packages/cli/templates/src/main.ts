import { listen } from '@mcpx/http';
import { createLogger } from './logger';
import { AppServer } from './server';

// `npm start`: Streamable HTTP on http://$HOST:$PORT/mcp (default 127.0.0.1:3000), with /healthz and /readyz.
// Stops cleanly on SIGTERM/SIGINT.
listen(new AppServer(), { logger: createLogger('{{name}}', 'stdout') }).catch((err: Error) => {
  process.stderr.write(`{{name}}: cannot start: ${err.message}\n`);
  process.exit(1);
});
