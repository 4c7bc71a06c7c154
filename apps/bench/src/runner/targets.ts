import path from 'node:path';

/** The servers the benchmark measures, and how each is started. */
export interface Target {
  key: string;
  label: string;
  family: 'mcpx' | 'sdk' | 'sdk2' | 'fastmcp' | 'raw';
  transport: 'http' | 'stdio';
  /** Relative to apps/bench. */
  script: string;
  args: string[];
  /** Keeps sessions (initialize mints an Mcp-Session-Id): sessions/s and memory per session apply. */
  stateful: boolean;
  /** Answers initialize: a legacy-era load opens a session on each connection before its calls (a modern load never does). */
  mcp: boolean;
  /** Measured in the modern era (2026-07-28: per-request _meta, no sessions) instead of the legacy one. */
  modern?: boolean;
  /** Shares its state through Redis (at MCPX_BENCH_REDIS_URL): skipped when Redis does not answer. */
  redis?: boolean;
  /** Served by another build of mcpx (`--baseline`): the target of this key, as that build serves it. */
  baselineOf?: string;
}

export const TARGETS: Target[] = [
  { key: 'mcpx-sse', label: 'mcpx SSE', family: 'mcpx', transport: 'http', script: 'dist/serve.js', args: [], stateful: true, mcp: true },
  // The same server with one logging middleware, measured right after it: the difference in CPU per call is the middleware's cost.
  { key: 'mcpx-mw', label: 'mcpx SSE + log middleware', family: 'mcpx', transport: 'http', script: 'dist/serve.js', args: ['--log-middleware'], stateful: true, mcp: true },
  // The in-memory server, with its sessions, event log and bus in Redis.
  { key: 'mcpx-redis', label: 'mcpx SSE on Redis', family: 'mcpx', transport: 'http', script: 'dist/serve.js', args: ['--redis'], stateful: true, mcp: true, redis: true },
  { key: 'mcpx-otel', label: 'mcpx SSE traced', family: 'mcpx', transport: 'http', script: 'dist/serve.js', args: ['--otel'], stateful: true, mcp: true },
  { key: 'mcpx-json', label: 'mcpx JSON', family: 'mcpx', transport: 'http', script: 'dist/serve.js', args: ['--json-response'], stateful: true, mcp: true },
  { key: 'mcpx-2026', label: 'mcpx 2026-07-28', family: 'mcpx', transport: 'http', script: 'dist/serve.js', args: [], stateful: false, mcp: true, modern: true },
  {
    key: 'mcpx-mw-2026',
    label: 'mcpx 2026-07-28 + log middleware',
    family: 'mcpx',
    transport: 'http',
    script: 'dist/serve.js',
    args: ['--log-middleware'],
    stateful: false,
    mcp: true,
    modern: true,
  },
  { key: 'mcpx-stateless', label: 'mcpx stateless', family: 'mcpx', transport: 'http', script: 'dist/serve.js', args: ['--stateless'], stateful: false, mcp: true },
  { key: 'sdk', label: 'SDK', family: 'sdk', transport: 'http', script: 'anchors/sdk.mjs', args: [], stateful: true, mcp: true },
  // SDK v2 serves 2025 clients statelessly by default (createMcpHandler): no sessions to count.
  { key: 'sdk2', label: 'SDK v2', family: 'sdk2', transport: 'http', script: 'anchors/sdk2.mjs', args: [], stateful: false, mcp: true },
  { key: 'sdk2-2026', label: 'SDK v2 2026-07-28', family: 'sdk2', transport: 'http', script: 'anchors/sdk2.mjs', args: [], stateful: false, mcp: true, modern: true },
  { key: 'fastmcp', label: 'FastMCP', family: 'fastmcp', transport: 'http', script: 'anchors/fastmcp.mjs', args: [], stateful: true, mcp: true },
  // The ceiling route keeps a map of sessions (a small record each): the floor of RSS per open session.
  { key: 'raw', label: 'raw Fastify', family: 'raw', transport: 'http', script: 'anchors/raw-fastify.mjs', args: [], stateful: true, mcp: true },
  // The same route sent 2026-07-28 requests: it answers with the result a 2026 server sends.
  { key: 'raw-2026', label: 'raw Fastify 2026-07-28', family: 'raw', transport: 'http', script: 'anchors/raw-fastify.mjs', args: [], stateful: false, mcp: false, modern: true },
  // The floor of an SSE-answering stateful server: bare node:http, sessions in a Map, one-event SSE streams.
  { key: 'node-sse', label: 'bare node:http SSE', family: 'raw', transport: 'http', script: 'anchors/node-sse.mjs', args: [], stateful: true, mcp: true },
  { key: 'node-sse-2026', label: 'bare node:http SSE 2026-07-28', family: 'raw', transport: 'http', script: 'anchors/node-sse.mjs', args: [], stateful: false, mcp: true, modern: true },
  { key: 'mcpx-stdio', label: 'mcpx stdio', family: 'mcpx', transport: 'stdio', script: 'dist/serve.js', args: ['--stdio'], stateful: true, mcp: true },
  { key: 'mcpx-stdio-2026', label: 'mcpx stdio 2026-07-28', family: 'mcpx', transport: 'stdio', script: 'dist/serve.js', args: ['--stdio'], stateful: false, mcp: true, modern: true },
  { key: 'sdk-stdio', label: 'SDK stdio', family: 'sdk', transport: 'stdio', script: 'anchors/sdk.mjs', args: ['--stdio'], stateful: true, mcp: true },
  { key: 'sdk2-stdio', label: 'SDK v2 stdio', family: 'sdk2', transport: 'stdio', script: 'anchors/sdk2.mjs', args: ['--stdio'], stateful: true, mcp: true },
  { key: 'fastmcp-stdio', label: 'FastMCP stdio', family: 'fastmcp', transport: 'stdio', script: 'anchors/fastmcp.mjs', args: ['--stdio'], stateful: true, mcp: true },
];

/** The targets `--baseline` adds: the plain server of each era, served by the build whose bench is at `checkout`/apps/bench. */
export const BASELINED = ['mcpx-sse', 'mcpx-2026'];

export function baselineTargets(checkout: string): Target[] {
  return BASELINED.map((key) => {
    const target = TARGETS.find((t) => t.key === key)!;
    return { ...target, key: `${key}-base`, label: `${target.label}, baseline build`, script: path.resolve(checkout, 'apps/bench', target.script), baselineOf: key };
  });
}
