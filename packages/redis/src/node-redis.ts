import { ClusterUnavailableError } from '@mcpx/core/stores';
import { createClient, ErrorReply } from 'redis';
import type { LuaScript, RedisConnection, ScoredMember, StreamBatch, StreamEntry } from './commands';

export interface NodeRedisConnectionOptions {
  /** How long connecting may take before it fails (default 5000 ms). */
  connectTimeoutMs?: number;
  /** Connection name shown by CLIENT LIST. */
  name?: string;
  /** Errors the client reports while it reconnects (each failed attempt), for logging. */
  onError?: (err: Error) => void;
}

type RedisClient = ReturnType<typeof createClient>;
type Reply = unknown;

/** Longest pause between two reconnection attempts once the connection had been up. */
const MAX_RECONNECT_DELAY_MS = 1000;

/** A `RedisConnection` over node-redis (`redis` 6.x). */
export function nodeRedisConnection(url: string, options: NodeRedisConnectionOptions = {}): RedisConnection {
  return new NodeRedisConnection(url, options);
}

class NodeRedisConnection implements RedisConnection {
  private readonly client: RedisClient;
  private readonly statusListeners: ((ready: boolean) => void)[] = [];
  /** Set once the first connection succeeded: from then on a dropped connection is retried for ever. */
  private connectedOnce = false;
  private up = false;

  constructor(url: string, options: NodeRedisConnectionOptions) {
    this.client = createClient({
      url,
      name: options.name,
      // Commands fail fast while the connection is down (the cluster answers 503) instead of
      // waiting in a queue for an outage of unknown length.
      disableOfflineQueue: true,
      socket: {
        connectTimeout: options.connectTimeoutMs ?? 5000,
        // At start, one attempt: a wrong URL must fail the server's start, not hang it. Later,
        // retry for ever with a short capped backoff: service resumes as soon as Redis is back.
        reconnectStrategy: (retries) => (this.connectedOnce ? Math.min(50 * 2 ** retries, MAX_RECONNECT_DELAY_MS) + Math.floor(Math.random() * 100) : false),
      },
    });
    // node-redis emits 'error' on every failed attempt: without a listener each would be thrown.
    this.client.on('error', (err: Error) => {
      // Most errors come with a dropped connection; some (an unexpected reply) do not.
      this.setUp(this.client.isReady);
      options.onError?.(err);
    });
    this.client.on('ready', () => {
      this.connectedOnce = true;
      this.setUp(true);
    });
    this.client.on('reconnecting', () => this.setUp(false));
    this.client.on('end', () => this.setUp(false));
  }

  get isReady(): boolean {
    return this.client.isReady;
  }

  onStatus(listener: (ready: boolean) => void): void {
    this.statusListeners.push(listener);
  }

  async connect(): Promise<void> {
    await this.client.connect();
  }

  async close(): Promise<void> {
    if (!this.client.isReady) return this.destroy();
    try {
      await this.client.close();
    } catch {
      this.destroy();
    }
  }

  destroy(): void {
    try {
      this.client.destroy();
    } catch {
      // already closed
    }
  }

  get(key: string): Promise<string | null> {
    return this.send(['GET', key]).then(asStringOrNull);
  }

  set(key: string, value: string, options: { nx?: boolean; px?: number } = {}): Promise<boolean> {
    const args = ['SET', key, value];
    if (options.nx) args.push('NX');
    if (options.px !== undefined) args.push('PX', String(Math.max(1, Math.ceil(options.px))));
    return this.send(args).then((reply) => reply !== null && reply !== undefined);
  }

  del(keys: string[]): Promise<number> {
    if (keys.length === 0) return Promise.resolve(0);
    return this.send(['DEL', ...keys]).then(Number);
  }

  exists(key: string): Promise<boolean> {
    return this.send(['EXISTS', key]).then((reply) => Number(reply) > 0);
  }

  pexpire(key: string, ms: number, condition?: 'NX' | 'XX' | 'GT' | 'LT'): Promise<boolean> {
    const args = ['PEXPIRE', key, String(Math.max(1, Math.ceil(ms)))];
    if (condition) args.push(condition);
    return this.send(args).then((reply) => Number(reply) === 1);
  }

  incr(key: string): Promise<number> {
    return this.send(['INCR', key]).then(Number);
  }

  hget(key: string, field: string): Promise<string | null> {
    return this.send(['HGET', key, field]).then(asStringOrNull);
  }

  hgetall(key: string): Promise<Record<string, string>> {
    return this.send(['HGETALL', key]).then(asRecord);
  }

  hset(key: string, fields: Record<string, string>): Promise<number> {
    const args = ['HSET', key];
    for (const [field, value] of Object.entries(fields)) args.push(field, value);
    return this.send(args).then(Number);
  }

  sadd(key: string, members: string[]): Promise<number> {
    if (members.length === 0) return Promise.resolve(0);
    return this.send(['SADD', key, ...members]).then(Number);
  }

  srem(key: string, members: string[]): Promise<number> {
    if (members.length === 0) return Promise.resolve(0);
    return this.send(['SREM', key, ...members]).then(Number);
  }

  smembers(key: string): Promise<string[]> {
    return this.send(['SMEMBERS', key]).then(asStrings);
  }

  zadd(key: string, members: ScoredMember[]): Promise<number> {
    if (members.length === 0) return Promise.resolve(0);
    const args = ['ZADD', key];
    for (const { member, score } of members) args.push(String(score), member);
    return this.send(args).then(Number);
  }

  zrangeByScore(key: string, min: string, max: string, limit?: { offset: number; count: number }): Promise<ScoredMember[]> {
    const args = ['ZRANGE', key, min, max, 'BYSCORE'];
    if (limit) args.push('LIMIT', String(limit.offset), String(limit.count));
    args.push('WITHSCORES');
    return this.send(args).then(asScoredMembers);
  }

  zrem(key: string, members: string[]): Promise<number> {
    if (members.length === 0) return Promise.resolve(0);
    return this.send(['ZREM', key, ...members]).then(Number);
  }

  zremRangeByScore(key: string, min: string, max: string): Promise<number> {
    return this.send(['ZREMRANGEBYSCORE', key, min, max]).then(Number);
  }

  xadd(key: string, id: string, fields: Record<string, string>, maxLen?: number): Promise<string> {
    const args = ['XADD', key];
    if (maxLen !== undefined) args.push('MAXLEN', '~', String(maxLen));
    args.push(id);
    for (const [field, value] of Object.entries(fields)) args.push(field, value);
    return this.send(args).then(String);
  }

  xrange(key: string, start: string, end: string, count?: number): Promise<StreamEntry[]> {
    const args = ['XRANGE', key, start, end];
    if (count !== undefined) args.push('COUNT', String(count));
    return this.send(args).then(asEntries);
  }

  xrevrange(key: string, end: string, start: string, count?: number): Promise<StreamEntry[]> {
    const args = ['XREVRANGE', key, end, start];
    if (count !== undefined) args.push('COUNT', String(count));
    return this.send(args).then(asEntries);
  }

  xtrimMinId(key: string, minId: string): Promise<number> {
    return this.send(['XTRIM', key, 'MINID', minId]).then(Number);
  }

  xread(streams: { key: string; id: string }[], options: { count?: number; blockMs?: number } = {}): Promise<StreamBatch[]> {
    const args = ['XREAD'];
    if (options.count !== undefined) args.push('COUNT', String(options.count));
    if (options.blockMs !== undefined) args.push('BLOCK', String(options.blockMs));
    args.push('STREAMS', ...streams.map((s) => s.key), ...streams.map((s) => s.id));
    return this.send(args).then(asBatches);
  }

  async evalScript(script: LuaScript, keys: string[], args: string[]): Promise<unknown> {
    try {
      return await this.send(['EVALSHA', script.sha, String(keys.length), ...keys, ...args]);
    } catch (err) {
      if (!(err instanceof ErrorReply) || !err.message.startsWith('NOSCRIPT')) throw err;
      return this.send(['EVAL', script.source, String(keys.length), ...keys, ...args]);
    }
  }

  clientId(): Promise<number> {
    return this.send(['CLIENT', 'ID']).then(Number);
  }

  clientUnblock(id: number): Promise<boolean> {
    return this.send(['CLIENT', 'UNBLOCK', String(id)]).then((reply) => Number(reply) === 1);
  }

  private async send(args: string[]): Promise<Reply> {
    try {
      return await this.client.sendCommand(args);
    } catch (err) {
      // A reply from the server (wrong type, NOSCRIPT...) is the caller's; anything else means
      // the server could not be reached or the connection dropped under the command.
      if (err instanceof ErrorReply) throw err;
      throw new ClusterUnavailableError(`Redis is unavailable: ${describe(err)}`, { cause: err });
    }
  }

  private setUp(up: boolean): void {
    if (this.up === up) return;
    this.up = up;
    for (const listener of this.statusListeners) listener(up);
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message || err.name : String(err);
}

// Replies come as RESP3 by default (maps as objects, pairs as arrays); RESP2 shapes (flat arrays)
// are read as well, so the client's protocol choice does not matter here.

function asString(reply: Reply): string {
  return Buffer.isBuffer(reply) ? reply.toString('utf8') : String(reply);
}

function asStringOrNull(reply: Reply): string | null {
  return reply === null || reply === undefined ? null : asString(reply);
}

function asStrings(reply: Reply): string[] {
  if (reply instanceof Set) return [...reply].map(asString);
  return Array.isArray(reply) ? reply.map(asString) : [];
}

function pairs(reply: Reply): [Reply, Reply][] {
  if (reply === null || reply === undefined) return [];
  if (reply instanceof Map) return [...reply.entries()];
  if (Array.isArray(reply)) {
    if (reply.every((item) => Array.isArray(item) && item.length === 2)) return reply as [Reply, Reply][];
    const out: [Reply, Reply][] = [];
    for (let i = 0; i + 1 < reply.length; i += 2) out.push([reply[i], reply[i + 1]]);
    return out;
  }
  if (typeof reply === 'object') return Object.entries(reply as Record<string, Reply>);
  return [];
}

function asRecord(reply: Reply): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [field, value] of pairs(reply)) record[asString(field)] = asString(value);
  return record;
}

function asScoredMembers(reply: Reply): ScoredMember[] {
  return pairs(reply).map(([member, score]) => ({ member: asString(member), score: Number(asString(score)) }));
}

function asEntries(reply: Reply): StreamEntry[] {
  if (!Array.isArray(reply)) return [];
  return reply.map((entry) => {
    const [id, fields] = entry as [Reply, Reply];
    // Fields are a flat [field, value, ...] list in both protocols.
    const record: Record<string, string> = {};
    if (Array.isArray(fields)) for (let i = 0; i + 1 < fields.length; i += 2) record[asString(fields[i])] = asString(fields[i + 1]);
    else Object.assign(record, asRecord(fields));
    return { id: asString(id), fields: record };
  });
}

function asBatches(reply: Reply): StreamBatch[] {
  return pairs(reply).map(([key, entries]) => ({ key: asString(key), entries: asEntries(entries) }));
}
