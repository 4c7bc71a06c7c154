/**
 * Middleware over stdio, in both eras: the shop of pipeline-fixture.ts served by serveStdio()
 * (newline-delimited JSON-RPC on in-memory streams, as stdin and stdout would carry it) with a
 * middleware in serveStdio()'s own options and a configured principal naming the tenant, driven by
 * the official clients (pipeline-suite.ts): sdk 1.x in a 2025-11-25 session, client 2.x in 2026-07-28.
 */
import 'reflect-metadata';
import pino from 'pino';
import type { Transport } from '@modelcontextprotocol/client';
import type { Transport as LegacyTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Shop, record } from '../../core/test/pipeline-fixture';
import { legacyPeer, middlewareSuite, modernPeer } from '../../core/test/pipeline-suite';
import { closingWith, serveOnStreams } from './stream-pair';

/** One server per client (stdio serves one peer), each acting for its tenant's principal. */
function serveShop(tenant: string): ReturnType<typeof serveOnStreams> {
  return serveOnStreams(new Shop(), {
    middleware: [record('options')],
    principal: { subject: `user@${tenant}`, scopes: [], claims: { tenant } },
    logger: pino({ level: 'silent' }),
  });
}

describe('middleware over stdio, 2025-11-25 (sdk 1.x, a session)', () => {
  middlewareSuite(async (tenant) => {
    const { server, transport } = serveShop(tenant);
    return closingWith(await legacyPeer(transport as unknown as LegacyTransport, `legacy-${tenant}`), server);
  });
});

describe('middleware over stdio, 2026-07-28 (client 2.x, no session)', () => {
  middlewareSuite(async (tenant) => {
    const { server, transport } = serveShop(tenant);
    return closingWith(await modernPeer(transport as unknown as Transport, `modern-${tenant}`), server);
  });
});
