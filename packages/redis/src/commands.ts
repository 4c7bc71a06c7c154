/** One entry of a Redis Stream: its id (`<ms>-<seq>`) and its field/value pairs. */
export interface StreamEntry {
  id: string;
  fields: Record<string, string>;
}

/** The entries XREAD returned for one stream key. */
export interface StreamBatch {
  key: string;
  entries: StreamEntry[];
}

/** A member of a sorted set with its score. */
export interface ScoredMember {
  member: string;
  score: number;
}

/** A Lua script: its source and the SHA1 Redis knows it by (see `luaScript`). */
export interface LuaScript {
  readonly source: string;
  readonly sha: string;
}

/**
 * The few Redis commands this package uses, with plain replies (strings, numbers, arrays, null),
 * so that any client library can be adapted (see `nodeRedisConnection` for node-redis).
 *
 * Commands issued in the same tick without awaiting each other should go out together (pipelined,
 * one round trip): the stores rely on it for their latency, never for atomicity.
 * A command that cannot reach the server rejects at once with core's `ClusterUnavailableError`
 * (nothing waits in a queue for the connection to come back); an error reply from the server
 * rejects with the server's error.
 */
export interface RedisCommands {
  get(key: string): Promise<string | null>;
  /** SET with NX / PX; true when the value was written. */
  set(key: string, value: string, options?: { nx?: boolean; px?: number }): Promise<boolean>;
  del(keys: string[]): Promise<number>;
  exists(key: string): Promise<boolean>;
  /** PEXPIRE, optionally with its NX / XX / GT / LT condition; true when the ttl was set. */
  pexpire(key: string, ms: number, condition?: 'NX' | 'XX' | 'GT' | 'LT'): Promise<boolean>;
  incr(key: string): Promise<number>;

  hget(key: string, field: string): Promise<string | null>;
  /** Every field of a hash; `{}` when the key does not exist. */
  hgetall(key: string): Promise<Record<string, string>>;
  hset(key: string, fields: Record<string, string>): Promise<number>;

  sadd(key: string, members: string[]): Promise<number>;
  srem(key: string, members: string[]): Promise<number>;
  smembers(key: string): Promise<string[]>;

  zadd(key: string, members: ScoredMember[]): Promise<number>;
  /** ZRANGE BYSCORE WITHSCORES; `min`/`max` as Redis takes them ('-inf', '(5', '+inf'). */
  zrangeByScore(key: string, min: string, max: string, limit?: { offset: number; count: number }): Promise<ScoredMember[]>;
  zrem(key: string, members: string[]): Promise<number>;
  zremRangeByScore(key: string, min: string, max: string): Promise<number>;

  /**
   * XADD with an explicit id (`0-7`), an auto-sequenced one (`0-*`) or `*`; `maxLen` trims the
   * stream approximately (MAXLEN ~). Returns the entry's id.
   */
  xadd(key: string, id: string, fields: Record<string, string>, maxLen?: number): Promise<string>;
  /** XRANGE `start` `end` (ids, '-', '+', or '(' exclusive ids). */
  xrange(key: string, start: string, end: string, count?: number): Promise<StreamEntry[]>;
  /** XREVRANGE `end` `start`: newest first. */
  xrevrange(key: string, end: string, start: string, count?: number): Promise<StreamEntry[]>;
  /** XTRIM MINID: removes the entries older than `minId`. */
  xtrimMinId(key: string, minId: string): Promise<number>;
  /** XREAD [COUNT] [BLOCK] STREAMS keys ids; `[]` when it timed out or was unblocked. */
  xread(streams: { key: string; id: string }[], options?: { count?: number; blockMs?: number }): Promise<StreamBatch[]>;

  /** Runs a script (EVALSHA, loading it with EVAL when the server does not know it yet). */
  evalScript(script: LuaScript, keys: string[], args: string[]): Promise<unknown>;

  /** CLIENT ID of this connection. */
  clientId(): Promise<number>;
  /**
   * CLIENT UNBLOCK: wakes the connection `id` from a blocking command; true when it was blocked.
   * On a cluster, `routeKey` names a key of the node the connection is blocked on.
   */
  clientUnblock(id: number, routeKey?: string): Promise<boolean>;
}

/** A connection the cluster owns: the commands plus its life cycle. */
export interface RedisConnection extends RedisCommands {
  /**
   * Connects once. Rejects, without retrying, when the server cannot be reached; once connected,
   * the connection reconnects by itself whenever it drops.
   */
  connect(): Promise<void>;
  /** Whether commands can be sent now. */
  readonly isReady: boolean;
  /** Told `false` when the connection drops (it is reconnecting) and `true` when it is back. */
  onStatus(listener: (ready: boolean) => void): void;
  /** Waits for pending replies, then disconnects. */
  close(): Promise<void>;
  /** Disconnects at once, failing pending commands (a blocked XREAD among them). */
  destroy(): void;
}
