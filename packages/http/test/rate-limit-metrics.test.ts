import 'reflect-metadata';
import pino from 'pino';
import { RateLimit, Server, Tool, createEngine } from '@mcpx/core';
import { listen, type McpHttpServer } from '@mcpx/http';
import { connect, rpcErrorOf } from '@mcpx/testing';
import { otelKit, valueOf, waitUntil } from '../../core/test/telemetry-kit';
import { modernPost } from './modern-kit';

// Rate limit refusals in mcpx.refusal.count: by reason (limit) and the limit's name, over HTTP (with
// the 429) and where the engine answers them itself (stdio, in process).

const kit = otelKit();
const logger = pino({ level: 'silent' });

@Server({ name: 'counted', version: '1.0.0' })
class Counted {
  @Tool()
  @RateLimit({ limit: 1, windowMs: 60_000, name: 'one-a-minute' })
  once() {
    return 'once';
  }
}

let server: McpHttpServer;
beforeAll(async () => {
  const engine = createEngine(new Counted(), { logger });
  engine.telemetry.use(kit.providers);
  server = await listen(engine, { host: '127.0.0.1', port: 0, handleSignals: false, logger });
});
afterAll(async () => {
  await server?.close();
  await kit.shutdown();
});

it('counts a 429 of a rate limit under its name', async () => {
  expect((await modernPost(server.url, 1, 'tools/call', { name: 'once', arguments: {} })).status).toBe(200);
  expect((await modernPost(server.url, 2, 'tools/call', { name: 'once', arguments: {} })).status).toBe(429);
  await waitUntil(async () => valueOf(await kit.points('mcpx.refusal.count'), { 'mcpx.limit': 'one-a-minute' }) === 1, 'the 429 to be counted');
  expect((await kit.points('mcpx.refusal.count')).find((p) => p.attributes['mcpx.limit'] === 'one-a-minute')!.attributes).toEqual({
    'mcpx.refusal.reason': 'limit',
    'mcpx.limit': 'one-a-minute',
    'http.response.status_code': 429,
  });
});

it('counts a -32004 the engine answers itself (no HTTP status) under the limit’s name', async () => {
  const engine = createEngine(new Counted(), { logger });
  engine.telemetry.use(kit.providers);
  const client = await connect(engine, { protocolVersion: '2026-07-28' });
  await client.callTool('once', {});
  expect((await rpcErrorOf(client.callTool('once', {}))).code).toBe(-32004);
  await waitUntil(
    async () => (await kit.points('mcpx.refusal.count')).some((p) => p.attributes['mcpx.limit'] === 'one-a-minute' && p.attributes['http.response.status_code'] === undefined),
    'the refusal to be counted',
  );
});
