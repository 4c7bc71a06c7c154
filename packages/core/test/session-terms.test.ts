import 'reflect-metadata';
import pino from 'pino';
import { McpServer, Server, Tool, createEngine } from '../src';
import { NO_TERMS, termsOf } from '../src/eras/legacy/session-terms';
import { sharedCapabilities, sharedInfo } from '../src/eras/legacy/shared-client-values';

@Server({ name: 'terms-fixture', version: '1.0.0' })
class TermsFixture extends McpServer {
  @Tool()
  ping(_input: void) {
    return 'pong';
  }
}

const silent = { send: () => undefined };

function initialize(engine: ReturnType<typeof createEngine>, capabilities: Record<string, unknown>, clientInfo = { name: 'terms', version: '1' }) {
  const session = engine.createSession(silent);
  const message = { jsonrpc: '2.0' as const, id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities, clientInfo } };
  return session.handleRequest(message, silent).then((response) => {
    expect(response && 'result' in response).toBe(true);
    return session;
  });
}

// What initialize settles is the same for most sessions of a server: one shared, frozen object
// holds it, so an idle session keeps one field for the version, the client and both capabilities.
describe('session terms', () => {
  it('are one frozen object for every session that settled the same, read through the session as four values', async () => {
    const engine = createEngine(new TermsFixture(), { logger: pino({ level: 'silent' }) });
    const a = await initialize(engine, { roots: { listChanged: true } });
    const b = await initialize(engine, { roots: { listChanged: true } });
    expect(b.terms).toBe(a.terms);
    expect(Object.isFrozen(a.terms)).toBe(true);
    expect([a.protocolVersion, a.clientInfo, a.clientCapabilities]).toEqual(['2025-11-25', { name: 'terms', version: '1' }, { roots: { listChanged: true } }]);
    expect(a.serverCapabilities).toBe(engine.capabilities());
    for (const key of ['protocolVersion', 'clientInfo', 'clientCapabilities', 'serverCapabilities', 'principal']) expect(Object.keys(a)).not.toContain(key);
    // Another client is other terms; setting one value moves a session to the terms with it, the others' stay.
    const other = await initialize(engine, {}, { name: 'other', version: '2' });
    expect(other.terms).not.toBe(a.terms);
    b.protocolVersion = '2025-06-18';
    expect([b.protocolVersion, b.clientCapabilities]).toEqual(['2025-06-18', { roots: { listChanged: true } }]);
    expect(a.protocolVersion).toBe('2025-11-25');
    b.protocolVersion = '2025-11-25';
    expect(b.terms).toBe(a.terms);
    // A request's view keeps the terms it came with.
    const env = a.envFor(undefined);
    a.clientCapabilities = sharedCapabilities({ sampling: {} });
    expect(env.clientCapabilities).toEqual({ roots: { listChanged: true } });
    expect(a.envFor(undefined).clientCapabilities).toEqual({ sampling: {} });
  });

  it('share only values the shared tables handed out, and only up to a bound', () => {
    const caps = sharedCapabilities({ elicitation: {} });
    const info = sharedInfo({ name: 'bounded', version: '1' });
    const server = Object.freeze({ tools: {} });
    // The server's capabilities were not marked shared: such terms are a session's own, held by no table.
    const own = termsOf('2025-11-25', info, caps, server);
    expect(termsOf('2025-11-25', info, caps, server)).not.toBe(own);
    expect(Object.isFrozen(own)).toBe(true);
    // A declaration the client sized (not from the tables) is never held by the table either.
    const declared = { experimental: { note: 'x'.repeat(2000) } };
    const big = termsOf('2025-11-25', info, sharedCapabilities(declared), NO_TERMS.serverCapabilities);
    expect(termsOf('2025-11-25', info, sharedCapabilities(declared), NO_TERMS.serverCapabilities)).not.toBe(big);
    // Shared values make shared terms, until the table is full.
    const first = termsOf('2025-11-25', info, caps, NO_TERMS.serverCapabilities);
    expect(termsOf('2025-11-25', info, caps, NO_TERMS.serverCapabilities)).toBe(first);
    const versions = Array.from({ length: 80 }, (_, i) => `v${i}`);
    const made = versions.map((v) => termsOf(v, info, caps, NO_TERMS.serverCapabilities));
    const again = versions.map((v) => termsOf(v, info, caps, NO_TERMS.serverCapabilities));
    const shared = made.filter((terms, i) => again[i] === terms).length;
    expect(shared).toBeGreaterThan(50);
    expect(shared).toBeLessThan(64);
    expect(again.slice(-5).every((terms, i) => terms !== made[made.length - 5 + i] && terms.protocolVersion === versions[versions.length - 5 + i])).toBe(true);
  });
});
