/**
 * A protocol extension defined outside core (pipeline-fixture.ts) over real HTTP, in both eras:
 * declared in capabilities, its method called, its params checked, its client-declaration rule,
 * its notification, its middleware's place, and its settings function turning it on and off,
 * all through the official clients (sdk 1.x in a 2025-11-25 session, client 2.x in 2026-07-28).
 */
import 'reflect-metadata';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpHttpServer } from '@mcpx/http';
import type { McpEngine } from '@mcpx/core/transport';
import { startServer } from './http-kit';
import { extensionSuite, legacyPeer, modernPeer } from '../../core/test/pipeline-suite';

/**
 * sdk 1.x tries to resume a POST stream that ended with an error response (it counts only results
 * as answers); these tests need no resumption, so no retry timer outlives them.
 */
const NO_RECONNECTION = { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 30_000, reconnectionDelayGrowFactor: 1.5 };

describe('a protocol extension over HTTP, in both eras', () => {
  const servers = new Map<McpEngine, Promise<McpHttpServer>>();
  const urlOf = async (engine: McpEngine) => {
    if (!servers.has(engine)) servers.set(engine, startServer(engine));
    return new URL((await servers.get(engine)!).url);
  };

  extensionSuite({
    legacy: async (engine) => {
      const transport = new LegacyTransport(await urlOf(engine), { reconnectionOptions: NO_RECONNECTION });
      return legacyPeer(transport, 'legacy-extension-test', { close: () => transport.terminateSession() });
    },
    modern: async (engine, capabilities) => modernPeer(new StreamableHTTPClientTransport(await urlOf(engine)), 'modern-extension-test', capabilities),
    close: async () => {
      for (const server of servers.values()) await (await server).close();
    },
  });
});
