import { serveStdio } from '@mcpx/stdio';
import { TeamServer } from './tools-input';

// Newline-delimited JSON-RPC on stdin/stdout; logs go to stderr, never stdout.
if (require.main === module) {
  const server = serveStdio(new TeamServer(), {
    logLevel: 'warn',
    maxMessageBytes: 1024 * 1024,
    drainTimeoutMs: 2000,
  });
  void server.closed.then(() => console.error('client disconnected'));
}
