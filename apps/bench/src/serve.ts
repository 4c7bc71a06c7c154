import { randomBytes } from 'node:crypto';
import type { LevelWithSilent } from 'pino';
import { BenchServer } from './bench-server';
import { logCalls } from './log-middleware';

/**
 * `npm run bench:serve`: the benchmark server alone, for any outside harness.
 *   HTTP on 127.0.0.1:$PORT/mcp (default 3000), stateful with SSE responses;
 *   --json-response answers plain JSON, --stateless keeps no sessions; --stdio serves stdin/stdout;
 *   --redis shares sessions, event log and bus through Redis at $MCPX_BENCH_REDIS_URL
 *   (default redis://127.0.0.1:6379), keys under $MCPX_BENCH_REDIS_PREFIX (default a fresh
 *   `mcpx-bench:<random>:`, so runs never meet; its keys expire by their TTLs);
 *   --otel records every span and metric with the OpenTelemetry SDK (exported nowhere: the cost measured is the instrumentation's);
 *   --log-middleware registers one middleware that logs each request at debug level (src/log-middleware.ts).
 * Per-request log lines are off (level warn; MCPX_LOG_LEVEL overrides): the other servers measured log nothing either.
 */
const args = new Set(process.argv.slice(2));
const known = new Set(['--stdio', '--stateless', '--json-response', '--redis', '--otel', '--log-middleware']);
for (const arg of args) {
  if (!known.has(arg)) {
    process.stderr.write(`bench:serve: unknown flag ${arg} (known: ${[...known].join(', ')})\n`);
    process.exit(2);
  }
}
const logLevel = (process.env.MCPX_LOG_LEVEL ?? 'warn') as LevelWithSilent;
// The OpenTelemetry SDK is loaded only when asked for.
if (args.has('--otel')) (require('./trace-everything') as typeof import('./trace-everything')).traceEverything();
// Without the flag no middleware is registered at all: the pipeline's path with none.
const middleware = args.has('--log-middleware') ? [logCalls] : undefined;

// Each transport's package is loaded only when served: a stdio server's start (its time to a first answer) loads no HTTP stack.
if (args.has('--stdio')) {
  const { serveStdio } = require('@mcpx/stdio') as typeof import('@mcpx/stdio');
  serveStdio(new BenchServer(), { logLevel, middleware });
} else {
  const { listen } = require('@mcpx/http') as typeof import('@mcpx/http');
  const redis = args.has('--redis')
    ? {
        url: process.env.MCPX_BENCH_REDIS_URL || 'redis://127.0.0.1:6379',
        prefix: process.env.MCPX_BENCH_REDIS_PREFIX || `mcpx-bench:${randomBytes(6).toString('hex')}:`,
      }
    : undefined;
  // Without --redis the server stays in memory even where MCPX_REDIS_URL is set (listen() reads it).
  if (!redis) delete process.env.MCPX_REDIS_URL;
  void listen(new BenchServer(), {
    host: '127.0.0.1',
    logLevel,
    stateless: args.has('--stateless'),
    jsonResponse: args.has('--json-response'),
    redis,
    middleware,
  })
    .then((server) => process.stderr.write(`mcpx bench server on ${server.url}${redis ? ` (Redis at ${redis.url.replace(/\/\/[^@/]*@/, '//')}, keys under ${redis.prefix})` : ''}\n`))
    .catch((err: Error) => {
      process.stderr.write(`bench:serve: cannot start: ${err.message}\n`);
      process.exit(1);
    });
}
