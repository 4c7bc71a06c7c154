import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { InvalidTokenError } from '@mcpx/http';
import { RateLimit, Server, Tool } from '@mcpx/core';
import { startRoundRobinProxy, type RoundRobinProxy } from '@mcpx/testing';
import type { McpHttpServer } from '@mcpx/http';
import { freePort, jsonOf, post, postHeaders, request, initializeBody, notification, type RawResponse } from './http-kit';
import { modernPost } from './modern-kit';
import { REDIS_URL, dropRedisKeys } from './redis-keys';
import { startServer } from './http-kit';

// A rate limit shared by three instances through Redis, behind a round-robin proxy: each principal
// gets exactly its limit across all of them, whichever instance answers, in both eras.

@Server({ name: 'limited-cluster', version: '1.0.0' })
class Quota {
  @Tool({ description: 'Ten a minute per principal' })
  @RateLimit({ limit: 10, windowMs: 60_000, name: 'quota' })
  work() {
    return 'done';
  }
}

const verifier = async (token: string) => {
  if (!/^[a-z]+$/.test(token)) throw new InvalidTokenError('unknown token');
  return { subject: token, scopes: [], claims: { sub: token } };
};

/** The JSON-RPC message of an answer, JSON or SSE. */
function messageOf(res: RawResponse): { id?: unknown; result?: { content: { text: string }[] } } {
  if (!/text\/event-stream/.test(String(res.headers['content-type']))) return jsonOf(res);
  // The last data line of the stream is the response (2025 streams carry event ids, 2026 ones do not).
  const data = res.body.split('\n').filter((line) => line.startsWith('data: ') && line.length > 6);
  return JSON.parse(data.at(-1)!.slice(6));
}

describe('a rate limit shared by three instances through Redis', () => {
  const prefix = `mcpx-test:${randomBytes(4).toString('hex')}:`;
  const instances: McpHttpServer[] = [];
  let proxy: RoundRobinProxy;
  let url: string;

  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}/mcp`;
    const targets: string[] = [];
    for (let i = 0; i < 3; i++) {
      const server = await startServer(new Quota(), { redis: { url: REDIS_URL, prefix }, auth: { resource: url, authorizationServers: ['https://id.example.test'], verifier } });
      instances.push(server);
      targets.push(new URL(server.url).origin);
    }
    proxy = await startRoundRobinProxy(targets, { port });
  });

  afterAll(async () => {
    await proxy?.close();
    for (const server of instances) await server.close();
    await dropRedisKeys(prefix);
  });

  it('gives each of three principals exactly 10 of 30 calls; the rest get 429 with Retry-After and the -32004 error', async () => {
    const auth = (who: string) => ({ authorization: `Bearer ${who}` });
    // ana speaks 2025-11-25 (a session, shared by the instances); bo and cy 2026-07-28.
    const init = await post(url, initializeBody(), undefined, auth('ana'));
    const session = init.headers['mcp-session-id'] as string;
    expect((await post(url, notification('notifications/initialized'), session, auth('ana'))).status).toBe(202);
    const call = (who: string, i: number): Promise<RawResponse> =>
      who === 'ana'
        ? request(url, {
            method: 'POST',
            headers: postHeaders(session, auth('ana')),
            body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'work', arguments: {} } }),
          })
        : modernPost(url, i, 'tools/call', { name: 'work', arguments: {} }, auth(who));

    for (const who of ['ana', 'bo', 'cy']) {
      const answers: RawResponse[] = [];
      for (let i = 1; i <= 30; i++) answers.push(await call(who, i));
      const ok = answers.filter((a) => a.status === 200);
      const refused = answers.filter((a) => a.status === 429);
      expect({ who, ok: ok.length, refused: refused.length }).toEqual({ who, ok: 10, refused: 20 });
      // The first ten pass, whichever instance answered.
      expect(answers.slice(0, 10).every((a) => a.status === 200)).toBe(true);
      for (const a of ok) {
        expect(messageOf(a).result?.content[0]?.text).toBe('done');
        expect(a.headers['ratelimit-policy']).toBe('"quota";q=10;w=60');
        expect(a.headers.ratelimit).toMatch(/^"quota";r=\d;t=\d+$/);
      }
      expect(ok.at(-1)!.headers.ratelimit).toMatch(/^"quota";r=0;t=(59|60)$/);
      for (const [n, a] of refused.entries()) {
        const retryAfter = Number(a.headers['retry-after']);
        expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
        const body = jsonOf(a);
        expect(body).toMatchObject({ jsonrpc: '2.0', id: 11 + n, error: { code: -32004, data: { limit: 'quota', max: 10, windowMs: 60_000 } } });
        expect(Math.ceil(body.error.data.retryAfterMs / 1000)).toBe(retryAfter);
      }
    }
    // Every instance answered some of them: the count was shared, not per instance.
    expect(proxy.counts.every((n) => n > 10)).toBe(true);
  });
});
