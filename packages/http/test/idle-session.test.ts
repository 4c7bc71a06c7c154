import 'reflect-metadata';
import { McpServer, Server, Tool, type RequestContext } from '@mcpx/core';
import { Writable } from 'node:stream';
import pino from 'pino';
import { deleteSession, openSession, post, postSse, rpc, startServer, streamOf } from './http-kit';

@Server({ name: 'idle-fixture', version: '1.0.0' })
class IdleFixture extends McpServer {
  @Tool()
  hello(_input: void) {
    return 'hi';
  }

  @Tool()
  async ask(_input: void, ctx: RequestContext) {
    const answer = await ctx.elicit('Go on?', { type: 'object', properties: { go: { type: 'boolean' } } });
    return answer.action;
  }
}

// What an open session keeps is the bulk of a server's memory under many idle clients: what all
// sessions have alike is held once, and what few use is made on first use.
describe('an idle session', () => {
  it('shares the declared-nothing capabilities object and its network origin with other sessions', async () => {
    const server = await startServer(new IdleFixture());
    try {
      const ids = [await openSession(server.url), await openSession(server.url), await openSession(server.url)];
      const sessions = ids.map((id) => server.endpoint.sessions.get(id)!.session);
      expect(sessions[0]!.clientCapabilities).toEqual({});
      expect(Object.isFrozen(sessions[0]!.clientCapabilities)).toBe(true);
      expect(sessions[1]!.clientCapabilities).toBe(sessions[0]!.clientCapabilities);
      expect(sessions[2]!.clientCapabilities).toBe(sessions[0]!.clientCapabilities);
      // What initialize settled (version, client, capabilities both ways) is one object for all three.
      expect(sessions[1]!.terms).toBe(sessions[0]!.terms);
      expect(sessions[2]!.terms).toBe(sessions[0]!.terms);
      // The origin keeps the client's network, not the opening request's headers or port.
      expect(sessions[0]!.origin).toEqual({ transport: 'tcp', httpVersion: '1.1', clientAddress: '127.0.0.1' });
      expect(sessions[1]!.origin).toBe(sessions[0]!.origin);

      // A client that declares capabilities gets them, as declared, to decide what it may be asked.
      const declared = await post(server.url, rpc(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'asks', version: '1.0.0' } }));
      const asking = declared.headers['mcp-session-id'] as string;
      expect(server.endpoint.sessions.get(asking)!.session.clientCapabilities).toEqual({ elicitation: {} });
    } finally {
      await server.close();
    }
  });

  it('shares one frozen clientInfo among sessions from the same client, up to a bound, and keeps any other its own', async () => {
    const server = await startServer(new IdleFixture());
    const open = async (clientInfo: Record<string, unknown>) => {
      const init = await post(server.url, rpc(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo }));
      expect(init.status).toBe(200);
      return server.endpoint.sessions.get(init.headers['mcp-session-id'] as string)!.session;
    };
    try {
      const a = await open({ name: 'editor', version: '2.1.0' });
      const b = await open({ name: 'editor', version: '2.1.0' });
      expect(a.clientInfo).toEqual({ name: 'editor', version: '2.1.0' });
      expect(Object.isFrozen(a.clientInfo)).toBe(true);
      expect(b.clientInfo).toBe(a.clientInfo);
      // Another version, a title, or a name that would run into the version with a separator: each its own.
      const other = await open({ name: 'editor', version: '2.1.1' });
      const titled = await open({ name: 'editor', version: '2.1.0', title: 'Editor' });
      expect(other.clientInfo).toEqual({ name: 'editor', version: '2.1.1' });
      expect(titled.clientInfo).toEqual({ name: 'editor', version: '2.1.0', title: 'Editor' });
      expect(titled.clientInfo).not.toBe(a.clientInfo);
      const x = await open({ name: 'a\nb', version: 'c' });
      const y = await open({ name: 'a', version: 'b\nc' });
      expect(x.clientInfo).toEqual({ name: 'a\nb', version: 'c' });
      expect(y.clientInfo).toEqual({ name: 'a', version: 'b\nc' });
      // Anything beyond name, version and title is the client's own, kept whole and unshared.
      const icons = [{ src: 'https://example.com/icon.png' }];
      const rich = await open({ name: 'editor', version: '2.1.0', websiteUrl: 'https://example.com', icons });
      const rich2 = await open({ name: 'editor', version: '2.1.0', websiteUrl: 'https://example.com', icons });
      expect(rich.clientInfo).toEqual({ name: 'editor', version: '2.1.0', websiteUrl: 'https://example.com', icons });
      expect(rich2.clientInfo).not.toBe(rich.clientInfo);
      // Clients inventing names fill the table only up to its bound; past it a session keeps its own, correct, copy.
      const invented = [];
      for (let i = 0; i < 70; i++) invented.push(await open({ name: `made-up-${i}`, version: '1' }));
      expect(invented.map((s) => s.clientInfo!.name)).toEqual(invented.map((_, i) => `made-up-${i}`));
      const last = invented.slice(-3);
      expect(last.some((s) => !Object.isFrozen(s.clientInfo))).toBe(true);
      const again = await open({ name: 'editor', version: '2.1.0' });
      expect(again.clientInfo).toBe(a.clientInfo);
    } finally {
      await server.close();
    }
  });

  it('shares one deeply frozen copy of the capabilities among sessions that declared the same, up to a bound', async () => {
    const server = await startServer(new IdleFixture());
    const open = async (capabilities: Record<string, unknown>) => {
      const init = await post(server.url, rpc(0, 'initialize', { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'caps', version: '1' } }));
      expect(init.status).toBe(200);
      return server.endpoint.sessions.get(init.headers['mcp-session-id'] as string)!.session;
    };
    try {
      const declaration = { roots: { listChanged: true }, sampling: {}, elicitation: { form: {}, url: {} } };
      const a = await open(declaration);
      const b = await open(structuredClone(declaration));
      expect(a.clientCapabilities).toEqual(declaration);
      expect(b.clientCapabilities).toBe(a.clientCapabilities);
      expect(Object.isFrozen(a.clientCapabilities) && Object.isFrozen(a.clientCapabilities.roots) && Object.isFrozen(a.clientCapabilities.elicitation!.url)).toBe(true);
      // Another declaration is its own; one whose JSON is over 1 KB is each session's own.
      const other = await open({ roots: { listChanged: false } });
      expect(other.clientCapabilities).toEqual({ roots: { listChanged: false } });
      expect(other.clientCapabilities).not.toBe(a.clientCapabilities);
      const long = { experimental: { note: { text: 'x'.repeat(1100) } } };
      const big = await open(long);
      const big2 = await open(long);
      expect(big.clientCapabilities).toEqual(long);
      expect(big2.clientCapabilities).not.toBe(big.clientCapabilities);
      expect(Object.isFrozen(big.clientCapabilities)).toBe(false);
      // Clients inventing declarations fill the table only up to its bound.
      const invented = [];
      for (let i = 0; i < 70; i++) invented.push(await open({ experimental: { [`made-up-${i}`]: {} } }));
      expect(invented.map((s) => Object.keys(s.clientCapabilities.experimental!)[0])).toEqual(invented.map((_, i) => `made-up-${i}`));
      expect(invented.slice(-3).some((s) => !Object.isFrozen(s.clientCapabilities))).toBe(true);
      expect((await open(declaration)).clientCapabilities).toBe(a.clientCapabilities);
    } finally {
      await server.close();
    }
  });

  it('keeps its open time and last activity to the millisecond', async () => {
    const server = await startServer(new IdleFixture());
    try {
      const before = Date.now();
      const id = await openSession(server.url);
      const after = Date.now();
      const http = server.endpoint.sessions.get(id)!;
      expect(http.session.openedAt).toBeGreaterThanOrEqual(before);
      expect(http.session.openedAt).toBeLessThanOrEqual(after);
      expect(http.lastActivity).toBeGreaterThanOrEqual(before);
      expect(http.lastActivity).toBeLessThanOrEqual(after);
      // A shared session's copy takes the record's time, whatever it is.
      http.session.openedAt = 1_234_567_890_123;
      expect(http.session.openedAt).toBe(1_234_567_890_123);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const used = Date.now();
      expect((await post(server.url, rpc(2, 'ping'), id)).status).toBe(200);
      expect(http.lastActivity).toBeGreaterThanOrEqual(used);
      expect(http.lastActivity).toBeLessThanOrEqual(Date.now());
    } finally {
      await server.close();
    }
  });

  it('logs its initialize at info yet keeps no logger, no streams and no requests map once idle', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const server = await startServer(new IdleFixture(), { logger: pino({ level: 'info' }, sink) });
    try {
      const id = await openSession(server.url);
      expect((await post(server.url, rpc(2, 'tools/list'), id)).status).toBe(200);
      const http = server.endpoint.sessions.get(id)!;
      const initialized = lines.find((line) => line.msg === 'session initialized');
      expect(initialized).toMatchObject({ session: id.slice(0, 8), protocolVersion: '2025-11-25' });
      // What the session made for its requests and its lines is let go once they are done.
      expect(http.session['more']).toBeUndefined();
      expect(http.session['requests']).toBeUndefined();
      expect(http['streams']).toBeUndefined();
      expect(http.session.requestsInFlight).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('is held in the engine’s map alone, and counts out of the cap however it ends', async () => {
    const server = await startServer(new IdleFixture(), { maxSessions: 3 });
    const sessions = server.endpoint.sessions;
    try {
      const ids = [await openSession(server.url), await openSession(server.url), await openSession(server.url)];
      // The endpoint finds each through the engine's session (its channel is the HTTP session).
      for (const id of ids) expect(server.engine.getSession(id)!.channel).toBe(sessions.get(id));
      expect(Object.values(sessions).some((field) => field instanceof Map)).toBe(false);
      expect(sessions.size).toBe(3);
      expect((await post(server.url, rpc(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } }))).status).toBe(503);
      // Ended by DELETE, by the engine itself, or by idling: each leaves the count and the lookup.
      expect((await deleteSession(server.url, ids[0]!)).status).toBe(200);
      server.engine.getSession(ids[1]!)!.close();
      expect(sessions.get(ids[1]!)).toBeUndefined();
      expect(sessions.size).toBe(1);
      expect((await post(server.url, rpc(2, 'ping'), ids[1]!)).status).toBe(404);
      expect(sessions.expireIdle(Date.now() + 24 * 3600_000)).toBe(1);
      expect(sessions.size).toBe(0);
      expect(server.engine.sessionCount).toBe(0);
      const again = await openSession(server.url);
      expect(sessions.get(again)?.id).toBe(again);
      expect(sessions.size).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('holds its endpoint’s settings and stream numbering on its class, not in each session', async () => {
    const server = await startServer(new IdleFixture());
    try {
      const [a, b] = [await openSession(server.url), await openSession(server.url)];
      const [httpA, httpB] = [server.endpoint.sessions.get(a)!, server.endpoint.sessions.get(b)!];
      expect(Object.hasOwn(httpA, 'settings')).toBe(false);
      expect(httpA.settings).toBe(httpB.settings);
      expect(Object.keys(httpA).sort()).toEqual(['active', 'session', 'streams']);
      // Request streams are numbered for the endpoint: a session never sees one of its stream ids again.
      const streamIdOf = async (session: string, id: number) => {
        const events = await (await postSse(server.url, session, rpc(id, 'tools/call', { name: 'hello', arguments: {} }))).rest();
        const first = events.find((event) => event.id !== undefined);
        expect(events.some((event) => event.message?.id === id && event.message.result)).toBe(true);
        return streamOf(first!.id!);
      };
      const streams = [await streamIdOf(a, 1), await streamIdOf(a, 2), await streamIdOf(b, 3), await streamIdOf(a, 4)];
      expect(new Set(streams).size).toBe(4);
      expect(streams.map(Number)).toEqual([...streams.map(Number)].sort((x, y) => x - y));
    } finally {
      await server.close();
    }
  });

  it('keeps its state, kind and client log level in one small integer', async () => {
    const server = await startServer(new IdleFixture());
    try {
      const id = await openSession(server.url);
      const session = server.endpoint.sessions.get(id)!.session;
      expect([session.state, session.unsolicited, session.stateless, session.logLevel]).toEqual(['ready', true, false, undefined]);
      expect((await post(server.url, rpc(2, 'logging/setLevel', { level: 'critical' }), id)).status).toBe(200);
      expect([session.state, session.unsolicited, session.stateless, session.logLevel]).toEqual(['ready', true, false, 'critical']);
      expect(Object.keys(session)).not.toContain('logLevel');
      expect(typeof session['bits']).toBe('number');
      // A level that is none (a damaged shared record) counts as none; a state that is none is refused.
      session.logLevel = 'loud' as never;
      expect(session.logLevel).toBeUndefined();
      expect(() => (session.state = 'asleep' as never)).toThrow(TypeError);
      expect(session.state).toBe('ready');
      session.close();
      expect([session.state, session.unsolicited, session.stateless]).toEqual(['closed', true, false]);
      const once = server.engine.createSession({ send: () => undefined }, 'one-request', { stateless: true });
      expect([once.state, once.unsolicited, once.stateless, once.logLevel]).toEqual(['new', false, true, undefined]);
      once.close();
    } finally {
      await server.close();
    }
  });

  it('still asks its client and gets the answer once it first needs to (the question bookkeeping is made then)', async () => {
    const server = await startServer(new IdleFixture());
    try {
      const init = await post(server.url, rpc(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'asks', version: '1.0.0' } }));
      const id = init.headers['mcp-session-id'] as string;
      await post(server.url, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), id);
      const call = await postSse(server.url, id, rpc(1, 'tools/call', { name: 'ask', arguments: {} }));
      let question: { id: string | number; method: string } | undefined;
      while (!question) {
        const block = await call.nextEvent();
        if (block === undefined) throw new Error('the stream ended before the question');
        if (block.message?.method === 'elicitation/create') question = block.message;
      }
      expect(question.method).toBe('elicitation/create');
      const answered = await post(server.url, JSON.stringify({ jsonrpc: '2.0', id: question.id, result: { action: 'decline' } }), id);
      expect(answered.status).toBe(202);
      let result: unknown;
      while (result === undefined) {
        const block = await call.nextEvent();
        if (block === undefined) throw new Error('the stream ended before the result');
        if (block.message?.id === 1) result = block.message.result;
      }
      expect(result).toMatchObject({ content: [{ type: 'text', text: 'decline' }] });
    } finally {
      await server.close();
    }
  });
});
