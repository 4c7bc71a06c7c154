import { listen } from '@mcpx/http';
import { HostileTarget } from './hostile-server';

// The server side of `npm run bench:hostile`, on 127.0.0.1:$PORT with the default limits.
void listen(new HostileTarget(), { host: '127.0.0.1', logLevel: 'warn' }).catch((err: Error) => {
  process.stderr.write(`bench:hostile server: cannot start: ${err.message}\n`);
  process.exit(1);
});
