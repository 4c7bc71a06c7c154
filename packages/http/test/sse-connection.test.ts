import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Heartbeats, SseConnection } from '../src/sse';
import { atTurnEnd } from '../src/turn-end';

/** A real HTTP server whose every request is handed to `onRequest`; the client reads whole responses. */
async function withServer(onRequest: (req: IncomingMessage, res: ServerResponse) => void, run: (port: number) => Promise<void>): Promise<void> {
  const server: Server = createServer(onRequest);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await run((server.address() as AddressInfo).port);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

function get(port: number): Promise<{ status: number; headers: IncomingMessage['headers']; body: string }> {
  return new Promise((resolve, reject) => {
    httpRequest({ port, host: '127.0.0.1', path: '/' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    })
      .on('error', reject)
      .end();
  });
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('SseConnection', () => {
  it('answered within its first turn: one plain response, no close listener and no heartbeat kept for it', async () => {
    const seen: { listenersBefore: number; listenersAfter: number; beating: number; closes: number }[] = [];
    const heartbeats = new Heartbeats(60_000);
    await withServer(
      (_req, res) => {
        const listenersBefore = res.listenerCount('close');
        let closes = 0;
        const connection = new SseConnection(res, { heartbeats, maxConnectionMs: 0, retryMs: 1000, onClose: () => closes++ });
        connection.prime('1_0', 1000);
        connection.event('1_1', '{"jsonrpc":"2.0","id":1,"result":{}}');
        connection.close();
        expect(connection.closed).toBe(true);
        // Looked at after the turn the connection would have been watched in.
        void nextTurn().then(() =>
          seen.push({ listenersBefore, listenersAfter: res.listenerCount('close'), beating: (heartbeats as unknown as { connections: Set<unknown> }).connections.size, closes }),
        );
      },
      async (port) => {
        const answer = await get(port);
        expect(answer.status).toBe(200);
        expect(answer.headers['content-type']).toBe('text/event-stream');
        expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(answer.body)));
        expect(answer.body).toBe('id: 1_0\nretry: 1000\ndata: \n\nid: 1_1\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n');
        await waitUntil(() => seen.length === 1);
      },
    );
    heartbeats.stop();
    expect(seen[0]!.listenersAfter).toBe(seen[0]!.listenersBefore);
    expect(seen[0]!.beating).toBe(0);
    expect(seen[0]!.closes).toBe(1);
  });

  it('still open after its first turn: streamed chunked, given heartbeats, and closed once when the client goes', async () => {
    const heartbeats = new Heartbeats(40);
    let closes = 0;
    let connection: SseConnection | undefined;
    const firstChunk = new Promise<string>((resolveChunk) => {
      void withServer(
        (_req, res) => {
          connection = new SseConnection(res, { heartbeats, maxConnectionMs: 0, retryMs: 1000, onClose: () => closes++ });
          connection.prime('1_0', 1000);
        },
        async (port) => {
          await new Promise<void>((resolveClient) => {
            const req = httpRequest({ port, host: '127.0.0.1', path: '/' }, (res) => {
              expect(res.headers['transfer-encoding']).toBe('chunked');
              let body = '';
              res.setEncoding('utf8');
              res.on('data', (chunk: string) => {
                body += chunk;
                // The priming event, then a heartbeat: the connection is watched. Then the client leaves.
                if (body.includes(': keep-alive')) {
                  resolveChunk(body);
                  req.destroy();
                }
              });
              res.on('close', () => resolveClient());
            });
            req.on('error', () => resolveClient());
            req.end();
          });
          await waitUntil(() => closes === 1);
        },
      );
    });
    expect(await firstChunk).toMatch(/^id: 1_0\nretry: 1000\ndata: \n\n(: keep-alive\n\n)+$/);
    await waitUntil(() => closes === 1);
    expect(connection!.closed).toBe(true);
    expect((heartbeats as unknown as { connections: Set<unknown> }).connections.size).toBe(0);
    // Closing it again changes nothing.
    connection!.close();
    expect(closes).toBe(1);
    heartbeats.stop();
  });

  it('arms its max-age timer only if it outlives its first turn, and then closes at that age with a retry hint', async () => {
    const timersOf = (c: SseConnection) => (c as unknown as { maxAge?: NodeJS.Timeout }).maxAge;
    const seen: { answeredAtOnce?: NodeJS.Timeout; livingArmed?: boolean } = {};
    let living: SseConnection | undefined;
    let livingOpenedAt = 0;
    await withServer(
      (req, res) => {
        const connection = new SseConnection(res, { maxConnectionMs: 150, retryMs: 700, onClose: () => undefined });
        connection.prime('1_0', 700);
        if (req.url === '/') {
          connection.close();
          void nextTurn().then(() => (seen.answeredAtOnce = timersOf(connection)));
          return;
        }
        living = connection;
        livingOpenedAt = Date.now();
        void nextTurn().then(() => (seen.livingArmed = timersOf(connection) !== undefined));
      },
      async (port) => {
        expect((await get(port)).status).toBe(200);
        await waitUntil(() => 'answeredAtOnce' in seen);
        expect(seen.answeredAtOnce).toBeUndefined();
        const answer = await new Promise<{ body: string; at: number }>((resolve, reject) => {
          httpRequest({ port, host: '127.0.0.1', path: '/live' }, (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (body += chunk));
            res.on('end', () => resolve({ body, at: Date.now() }));
          })
            .on('error', reject)
            .end();
        });
        expect(seen.livingArmed).toBe(true);
        expect(living!.closed).toBe(true);
        // Closed by its age (150 ms), not before; the client is told when to come back.
        expect(answer.at - livingOpenedAt).toBeGreaterThanOrEqual(140);
        expect(answer.body).toBe('id: 1_0\nretry: 700\ndata: \n\nretry: 700\n\n');
      },
    );
  });

  it('made for a response whose client already left: writes nothing, watches nothing, closes once', async () => {
    let closes = 0;
    let seen: { closedAtOnce: boolean; wrote: boolean; listeners: number } | undefined;
    await withServer(
      (_req, res) => {
        // Node knows the client is gone (the response is destroyed) before the connection is made,
        // as when the client left while its body was read: nothing may be written, nothing watched.
        res.once('close', () => {
          const connection = new SseConnection(res, { maxConnectionMs: 0, retryMs: 1000, onClose: () => closes++ });
          connection.prime('1_0', 1000);
          const closedAtOnce = connection.closed;
          void nextTurn().then(() => {
            seen = { closedAtOnce, wrote: res.headersSent, listeners: res.listenerCount('close') };
            connection.close();
          });
        });
        res.socket!.destroy();
      },
      async (port) => {
        await get(port).catch(() => undefined);
        await waitUntil(() => seen !== undefined);
      },
    );
    expect(seen).toEqual({ closedAtOnce: true, wrote: false, listeners: 0 });
    expect(closes).toBe(1);
  });
});

describe('atTurnEnd', () => {
  it('calls each waiter once at the end of the turn, in order, with one immediate for all; waiters queued meanwhile wait a turn more', async () => {
    const order: string[] = [];
    atTurnEnd({ turnEnded: () => order.push('a') });
    atTurnEnd({
      turnEnded: () => {
        order.push('b');
        atTurnEnd({ turnEnded: () => order.push('late') });
      },
    });
    atTurnEnd({ turnEnded: () => order.push('c') });
    expect(order).toEqual([]);
    await nextTurn();
    expect(order).toEqual(['a', 'b', 'c']);
    await nextTurn();
    expect(order).toEqual(['a', 'b', 'c', 'late']);
  });
});

async function waitUntil(done: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
