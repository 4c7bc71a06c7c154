/**
 * The key 2026-07-28 requestState is sealed with, across instances sharing Redis:
 * - after Redis loses its data and one instance restarts, every instance converges on one key by
 *   itself (a question asked on one is answered on the other), and a state sealed before the loss
 *   still opens where it was sealed;
 * - a key set by the operator (`requestStateKey`, MCPX_REQUEST_STATE_KEY) wins over the one stored
 *   in Redis, so an instance without Redis but with the same key opens the state too.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import type { McpHttpServer } from '@mcpx/http';
import { NotesServer, SAMPLE_NOTES } from '../../../apps/example/src/notes-server';
import { NotesStore } from '../../../apps/example/src/notes-store';
import { startServer } from './http-kit';
import { META_CAPABILITIES, modernMeta, modernPost, responseOf } from './modern-kit';

jest.setTimeout(60_000);

const REDIS_URL = process.env.MCPX_TEST_REDIS_URL || 'redis://127.0.0.1:6379';
const LEASE_MS = 1000;
const ELICITING = { _meta: modernMeta({ [META_CAPABILITIES]: { elicitation: {} } }) };
const YES = { action: 'accept', content: { confirm: true } };
const NO = { action: 'decline' };

const dirs: string[] = [];
const servers: McpHttpServer[] = [];
const prefix = `mcpx-test:state-key:${randomBytes(4).toString('hex')}:`;

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  await deleteKeys();
});

function notes(): NotesServer {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-state-key-'));
  dirs.push(dir);
  return new NotesServer(new NotesStore({ dir, seed: SAMPLE_NOTES }));
}

async function instance(options: Parameters<typeof startServer>[1] = {}): Promise<McpHttpServer> {
  const server = await startServer(notes(), options);
  servers.push(server);
  return server;
}

const onRedis = () => ({ redis: { url: REDIS_URL, prefix, leaseMs: LEASE_MS } });

let ids = 0;
/** Asks on `on` to delete note `id`: the requestState of the question. */
async function ask(on: McpHttpServer, id = '1'): Promise<string> {
  const rpcId = ++ids;
  const first = responseOf(await modernPost(on.url, rpcId, 'tools/call', { ...ELICITING, name: 'delete', arguments: { id } }), rpcId).result;
  expect(first.resultType).toBe('input_required');
  return first.requestState as string;
}

/** Answers yes on `on`: the response (a result, or the -32602 refusal of a state it cannot open). */
async function answer(on: McpHttpServer, state: string, id = '1', reply: Record<string, unknown> = YES): Promise<any> {
  const rpcId = ++ids;
  const retry = { ...ELICITING, name: 'delete', arguments: { id }, requestState: state, inputResponses: { 'elicit-1': reply } };
  return responseOf(await modernPost(on.url, rpcId, 'tools/call', retry), rpcId);
}

async function deleteKeys(): Promise<void> {
  const redis = createClient({ url: REDIS_URL });
  await redis.connect();
  for await (const keys of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) if (keys.length > 0) await redis.del(keys);
  await redis.quit();
}

it('converges on one key after Redis loses its data and an instance restarts, without operator action', async () => {
  const a = await instance(onRedis());
  let b = await instance(onRedis());
  expect((await answer(b, await ask(a))).result).toMatchObject({ resultType: 'complete' });

  const before = await ask(a, '2');
  // Redis loses everything (a restart without persistence); instance b restarts on the empty Redis.
  await deleteKeys();
  await b.close();
  servers.splice(servers.indexOf(b), 1);
  b = await instance(onRedis());

  // Within a few leases, a question asked on either instance is answered on the other.
  const deadline = Date.now() + 20 * LEASE_MS;
  let converged = false;
  while (!converged && Date.now() < deadline) {
    // Declined: the note stays, so the next round can ask again.
    const [ab, ba] = await Promise.all([answer(b, await ask(a, '3'), '3', NO), answer(a, await ask(b, '3'), '3', NO)]);
    converged = ab.error === undefined && ba.error === undefined;
    if (!converged) {
      for (const error of [ab.error, ba.error].filter(Boolean)) expect(error).toMatchObject({ code: -32602, message: expect.stringMatching(/failed verification/) });
      await new Promise((resolve) => setTimeout(resolve, LEASE_MS / 4));
    }
  }
  expect(converged).toBe(true);
  // What a was asked before the loss still opens there: the key it replaced is still accepted.
  expect((await answer(a, before, '2')).result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Deleted note 2.' }] });
});

it('an explicit requestStateKey wins over the key stored in Redis', async () => {
  const shared = await instance({ ...onRedis(), requestStateKey: 'pinned by the operator' });
  const alone = await instance({ requestStateKey: 'pinned by the operator' });
  expect((await answer(alone, await ask(shared))).result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Deleted note 1.' }] });
  // And not the Redis one: an instance on Redis without the pinned key cannot open it.
  const unpinned = await instance(onRedis());
  expect((await answer(unpinned, await ask(shared, '2'), '2')).error).toMatchObject({ code: -32602, message: expect.stringMatching(/failed verification/) });
});

it('MCPX_REQUEST_STATE_KEY wins over the key stored in Redis', async () => {
  const saved = process.env.MCPX_REQUEST_STATE_KEY;
  process.env.MCPX_REQUEST_STATE_KEY = 'pinned in the environment';
  try {
    const shared = await instance(onRedis());
    const alone = await instance();
    expect((await answer(alone, await ask(shared))).result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Deleted note 1.' }] });
  } finally {
    if (saved === undefined) delete process.env.MCPX_REQUEST_STATE_KEY;
    else process.env.MCPX_REQUEST_STATE_KEY = saved;
  }
});
