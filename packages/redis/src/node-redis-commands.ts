import { ClusterUnavailableError } from '@mcpx/core/stores';
import { ErrorReply } from 'redis';
import type { LuaScript, RedisConnection, ScoredMember, StreamBatch, StreamEntry } from './commands';
import { asBatches, asEntries, asRecord, asScoredMembers, asStringOrNull, asStrings } from './node-redis-replies';

/** Options every node-redis connection takes, whatever the deployment. */
export interface NodeRedisConnectionOptions {
  /** How long connecting may take before it fails (default 5000 ms). */
  connectTimeoutMs?: number;
  /** Connection name shown by CLIENT LIST. */
  name?: string;
  /** Errors the client reports while it reconnects (each failed attempt), for logging. */
  onError?: (err: Error) => void;
}

/** Longest pause between two reconnection attempts once the connection had been up. */
const MAX_RECONNECT_DELAY_MS = 1000;

/**
 * node-redis's reconnectStrategy for every connection: at start, one attempt (a wrong address must
 * fail the server's start, not hang it); once it had been up, retry for ever with a short capped
 * backoff and jitter, so service resumes as soon as Redis is back.
 */
export function reconnectDelay(connectedOnce: () => boolean): (retries: number) => number | false {
  return (retries) => (connectedOnce() ? Math.min(50 * 2 ** retries, MAX_RECONNECT_DELAY_MS) + Math.floor(Math.random() * 100) : false);
}

/**
 * The commands of RedisCommands over node-redis, whichever client sends them (one node, a
 * cluster, through Sentinel): each deployment's connection says how a command reaches Redis. Every
 * command names the key it is about, so a cluster can route it to the key's slot; key-less
 * commands (CLIENT ID, CLIENT UNBLOCK) go where `routeKey` lives.
 */
export abstract class NodeRedisCommands implements RedisConnection {
  private readonly statusListeners: ((ready: boolean) => void)[] = [];
  private up = false;

  /** A key of the slot this connection reads, for key-less commands on a cluster. */
  protected routeKey: string | undefined;

  abstract readonly isReady: boolean;
  abstract connect(): Promise<void>;
  abstract close(): Promise<void>;
  abstract destroy(): void;
  /** Sends one command; `key` is the first key it names (what a cluster routes by). */
  protected abstract sendCommand(args: string[], key: string | undefined): Promise<unknown>;

  onStatus(listener: (ready: boolean) => void): void {
    this.statusListeners.push(listener);
  }

  get(key: string): Promise<string | null> {
    return this.send(['GET', key], key).then(asStringOrNull);
  }

  set(key: string, value: string, options: { nx?: boolean; px?: number } = {}): Promise<boolean> {
    const args = ['SET', key, value];
    if (options.nx) args.push('NX');
    if (options.px !== undefined) args.push('PX', String(Math.max(1, Math.ceil(options.px))));
    return this.send(args, key).then((reply) => reply !== null && reply !== undefined);
  }

  del(keys: string[]): Promise<number> {
    if (keys.length === 0) return Promise.resolve(0);
    return this.send(['DEL', ...keys], keys[0]).then(Number);
  }

  exists(key: string): Promise<boolean> {
    return this.send(['EXISTS', key], key).then((reply) => Number(reply) > 0);
  }

  pexpire(key: string, ms: number, condition?: 'NX' | 'XX' | 'GT' | 'LT'): Promise<boolean> {
    const args = ['PEXPIRE', key, String(Math.max(1, Math.ceil(ms)))];
    if (condition) args.push(condition);
    return this.send(args, key).then((reply) => Number(reply) === 1);
  }

  incr(key: string): Promise<number> {
    return this.send(['INCR', key], key).then(Number);
  }

  hget(key: string, field: string): Promise<string | null> {
    return this.send(['HGET', key, field], key).then(asStringOrNull);
  }

  hgetall(key: string): Promise<Record<string, string>> {
    return this.send(['HGETALL', key], key).then(asRecord);
  }

  hset(key: string, fields: Record<string, string>): Promise<number> {
    const args = ['HSET', key];
    for (const [field, value] of Object.entries(fields)) args.push(field, value);
    return this.send(args, key).then(Number);
  }

  sadd(key: string, members: string[]): Promise<number> {
    if (members.length === 0) return Promise.resolve(0);
    return this.send(['SADD', key, ...members], key).then(Number);
  }

  srem(key: string, members: string[]): Promise<number> {
    if (members.length === 0) return Promise.resolve(0);
    return this.send(['SREM', key, ...members], key).then(Number);
  }

  smembers(key: string): Promise<string[]> {
    return this.send(['SMEMBERS', key], key).then(asStrings);
  }

  zadd(key: string, members: ScoredMember[]): Promise<number> {
    if (members.length === 0) return Promise.resolve(0);
    const args = ['ZADD', key];
    for (const { member, score } of members) args.push(String(score), member);
    return this.send(args, key).then(Number);
  }

  zrangeByScore(key: string, min: string, max: string, limit?: { offset: number; count: number }): Promise<ScoredMember[]> {
    const args = ['ZRANGE', key, min, max, 'BYSCORE'];
    if (limit) args.push('LIMIT', String(limit.offset), String(limit.count));
    args.push('WITHSCORES');
    return this.send(args, key).then(asScoredMembers);
  }

  zrem(key: string, members: string[]): Promise<number> {
    if (members.length === 0) return Promise.resolve(0);
    return this.send(['ZREM', key, ...members], key).then(Number);
  }

  zremRangeByScore(key: string, min: string, max: string): Promise<number> {
    return this.send(['ZREMRANGEBYSCORE', key, min, max], key).then(Number);
  }

  xadd(key: string, id: string, fields: Record<string, string>, maxLen?: number): Promise<string> {
    const args = ['XADD', key];
    if (maxLen !== undefined) args.push('MAXLEN', '~', String(maxLen));
    args.push(id);
    for (const [field, value] of Object.entries(fields)) args.push(field, value);
    return this.send(args, key).then(String);
  }

  xrange(key: string, start: string, end: string, count?: number): Promise<StreamEntry[]> {
    const args = ['XRANGE', key, start, end];
    if (count !== undefined) args.push('COUNT', String(count));
    return this.send(args, key).then(asEntries);
  }

  xrevrange(key: string, end: string, start: string, count?: number): Promise<StreamEntry[]> {
    const args = ['XREVRANGE', key, end, start];
    if (count !== undefined) args.push('COUNT', String(count));
    return this.send(args, key).then(asEntries);
  }

  xtrimMinId(key: string, minId: string): Promise<number> {
    return this.send(['XTRIM', key, 'MINID', minId], key).then(Number);
  }

  xread(streams: { key: string; id: string }[], options: { count?: number; blockMs?: number } = {}): Promise<StreamBatch[]> {
    const args = ['XREAD'];
    if (options.count !== undefined) args.push('COUNT', String(options.count));
    if (options.blockMs !== undefined) args.push('BLOCK', String(options.blockMs));
    args.push('STREAMS', ...streams.map((s) => s.key), ...streams.map((s) => s.id));
    return this.send(args, streams[0]?.key).then(asBatches);
  }

  async evalScript(script: LuaScript, keys: string[], args: string[]): Promise<unknown> {
    try {
      return await this.send(['EVALSHA', script.sha, String(keys.length), ...keys, ...args], keys[0]);
    } catch (err) {
      if (!(err instanceof ErrorReply) || !err.message.startsWith('NOSCRIPT')) throw err;
      return this.send(['EVAL', script.source, String(keys.length), ...keys, ...args], keys[0]);
    }
  }

  clientId(): Promise<number> {
    return this.send(['CLIENT', 'ID'], this.routeKey).then(Number);
  }

  clientUnblock(id: number, routeKey = this.routeKey): Promise<boolean> {
    return this.send(['CLIENT', 'UNBLOCK', String(id)], routeKey).then((reply) => Number(reply) === 1);
  }

  protected async send(args: string[], key: string | undefined): Promise<unknown> {
    try {
      return await this.sendCommand(args, key);
    } catch (err) {
      // A reply from the server (wrong type, NOSCRIPT...) is the caller's, unless it says the
      // topology is changing (a failover, a replica still loading, a primary without its replicas):
      // that passes like a dropped connection. Anything else means the server could not be reached
      // or the connection dropped under the command.
      if (err instanceof ErrorReply && !TOPOLOGY_CHANGING.test(err.message)) throw err;
      throw new ClusterUnavailableError(`Redis is unavailable: ${describe(err)}`, { cause: err });
    }
  }

  protected setUp(up: boolean): void {
    if (this.up === up) return;
    this.up = up;
    for (const listener of this.statusListeners) listener(up);
  }
}

/**
 * Error replies of a Redis that cannot serve a command for now: a cluster without a master for
 * some slots (CLUSTERDOWN), a slot migrating (TRYAGAIN), a node still loading its data, a former
 * master now a replica (READONLY), a replica without its master (MASTERDOWN), a master refusing
 * writes while too few replicas follow it (NOREPLICAS, min-replicas-to-write).
 */
const TOPOLOGY_CHANGING = /^(CLUSTERDOWN|TRYAGAIN|LOADING|READONLY|MASTERDOWN|NOREPLICAS)\b/;

function describe(err: unknown): string {
  return err instanceof Error ? err.message || err.name : String(err);
}
