/**
 * A protocol extension defined outside core (pipeline-fixture.ts) over stdio, in both eras:
 * serveStdio() on in-memory streams (newline-delimited JSON-RPC as stdin and stdout carry it), one
 * stream per client, driven by the official clients (sdk 1.x in a 2025-11-25 session, client 2.x
 * in 2026-07-28). The same tests as over HTTP (pipeline-suite.ts).
 */
import 'reflect-metadata';
import type { Transport } from '@modelcontextprotocol/client';
import type { Transport as LegacyTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { extensionSuite, legacyPeer, modernPeer } from '../../core/test/pipeline-suite';
import { closingWith, serveOnStreams } from './stream-pair';

describe('a protocol extension over stdio, in both eras', () => {
  extensionSuite({
    legacy: async (engine) => {
      const { server, transport } = serveOnStreams(engine);
      // stdio's one session is always called "stdio".
      return closingWith(await legacyPeer(transport as unknown as LegacyTransport, 'legacy-extension-test', { sessionId: () => 'stdio' }), server);
    },
    modern: async (engine, capabilities) => {
      const { server, transport } = serveOnStreams(engine);
      return closingWith(await modernPeer(transport as unknown as Transport, 'modern-extension-test', capabilities), server);
    },
    close: async () => {},
  });
});
