/**
 * The example's notes in Redis when Redis cannot be reached: a tool answers the model with a clean
 * tool error ("Storage unavailable, try again"), never the Redis client's own error, and the cause
 * is logged.
 */
import 'reflect-metadata';
import { Writable } from 'node:stream';
import pino from 'pino';
import { connect, type TestClient } from '@mcpx/testing';
import { NotesServer } from '../src/notes-server';
import { RedisNotesStore } from '../src/notes-redis-store';
import { freePort } from '../../../packages/redis/test/redis-kit';

describe('the notes in Redis, with Redis unreachable', () => {
  let client: TestClient | undefined;
  let store: RedisNotesStore | undefined;
  afterEach(async () => {
    client?.close();
    await store?.close();
  });

  it('answers a tool call with a clean tool error and logs the cause', async () => {
    // Nothing listens on this port: every connection is refused.
    const url = `redis://127.0.0.1:${await freePort()}`;
    const causes: Error[] = [];
    store = new RedisNotesStore({ url, prefix: 'mcpx-test-unreachable:', connectTimeoutMs: 300, onError: (err) => causes.push(err) });
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
    client = await connect(new NotesServer(store), { logger: pino({ level: 'warn' }, sink) });

    for (const [name, args] of [
      ['search', { query: 'x' }],
      ['create', { title: 'T', body: 'B' }],
    ] as const) {
      const result = await client.callTool(name, args);
      expect(result.isError).toBe(true);
      expect(result.content).toEqual([{ type: 'text', text: 'Storage unavailable, try again' }]);
    }
    // The cause is logged: with the tool's failure, and through the store's onError.
    expect(causes.length).toBeGreaterThan(0);
    expect(lines.join('')).toMatch(/tool failed/);
    expect(lines.join('')).toMatch(/Storage unavailable, try again: /);
  });
});
