/**
 * The Skills extension over stdio (serveStdio() on in-memory streams, newline-delimited JSON-RPC as
 * stdin and stdout carry it), driven by the official client's `ext/skills` in 2025-11-25 and
 * 2026-07-28 (core/test/skills/skills-suite.ts).
 */
import type { Transport } from '@modelcontextprotocol/client';
import { clientOf, skillsSuite } from '../../core/test/skills/skills-suite';
import { serveOnStreams } from './stream-pair';

describe('skills over stdio', () => {
  skillsSuite(async (server, folder, era) => {
    const { server: stdio, transport } = serveOnStreams(server, { skills: folder, logLevel: 'silent' });
    const client = clientOf(era);
    await client.connect(transport as unknown as Transport, { timeout: 10_000 });
    return {
      client,
      close: async () => {
        await client.close();
        await stdio.closed;
      },
    };
  });
});
