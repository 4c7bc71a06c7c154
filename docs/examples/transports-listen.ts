import { listen } from '@mcpx/http';
import { TeamServer } from './tools-input';

export async function main() {
  const server = await listen(new TeamServer(), {
    port: 3000, // 0 picks a free port; default $PORT or 3000
    host: '127.0.0.1', // default $HOST or 127.0.0.1 (loopback only)
    path: '/mcp',
    sessionIdleTimeoutMs: 15 * 60_000,
    maxSessions: 1000,
    allowedOrigins: ['https://app.example.com'],
    allowedHosts: ['localhost', '127.0.0.1', 'mcp.example.com'], // replaces the loopback default
    maxBodyBytes: 1024 * 1024,
  });
  console.error(`serving on ${server.url}`); // also /healthz and /readyz at the root
  return server;
}

if (require.main === module) void main();
