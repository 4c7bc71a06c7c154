/**
 * The Skills extension over Streamable HTTP (listen()), driven by the official client's
 * `ext/skills` in 2025-11-25 and 2026-07-28 (core/test/skills/skills-suite.ts).
 */
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { clientOf, skillsSuite } from '../../core/test/skills/skills-suite';
import { startServer } from './http-kit';

describe('skills over HTTP', () => {
  skillsSuite(async (server, folder, era) => {
    const http = await startServer(server, { skills: folder });
    const client = clientOf(era);
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)), { timeout: 10_000 });
    return {
      client,
      close: async () => {
        await client.close();
        await http.close();
      },
    };
  });
});
