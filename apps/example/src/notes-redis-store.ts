import { createHash } from 'node:crypto';
import { describeWhere, notesRedis, type NotesRedis, type NotesRedisWhere } from './notes-redis-connection';
import { matching, tagsOf, type Note, type NoteChange, type NoteChanges, type NoteSeed, type Notebook, type NotebookListener } from './notes-store';

/** The notebook's storage could not be used: what a tool tells the model (the cause stays in the log). */
export class NotesStorageUnavailable extends Error {
  constructor(cause: unknown) {
    super('Storage unavailable, try again', { cause });
    this.name = 'NotesStorageUnavailable';
  }
}

/** Where: one of `url` (a single node), `cluster` and `sentinel`, as `redisFromEnv()` reads them. */
export interface RedisNotesStoreOptions extends NotesRedisWhere {
  /** The deployment's key prefix ($MCPX_REDIS_PREFIX, default `mcpx:`); the notes live under `<prefix>notes:` (on a cluster `<prefix>{notes}:`). */
  prefix?: string;
  /** Notes to start with when the prefix holds no notebook yet. */
  seed?: NoteSeed[];
  /** How long the first use waits for Redis before failing (default 5 s); reconnecting goes on meanwhile. */
  connectTimeoutMs?: number;
  /** Connection errors. node-redis reconnects by itself and commands fail fast while it is down. Default: ignored. */
  onError?: (err: Error) => void;
}

/** A Lua script, run by its SHA1 (loaded on first use). */
interface Script {
  source: string;
  sha: string;
}

function script(source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

// Each change and its message on the change feed are one step, so a replica never hears of a
// change that did not happen, nor misses one that did (while connected).
const SEED = script(`
-- KEYS: seq, ids, then the seed's note keys (ids 1..n); ARGV: channel, updatedAt, then title, body, tags of each
if not redis.call('SET', KEYS[1], #KEYS - 2, 'NX') then return 0 end
for i = 3, #KEYS do
  local at, id = (i - 3) * 3 + 3, tostring(i - 2)
  redis.call('HSET', KEYS[i], 'title', ARGV[at], 'body', ARGV[at + 1], 'tags', ARGV[at + 2], 'updatedAt', ARGV[2])
  redis.call('ZADD', KEYS[2], i - 2, id)
  redis.call('PUBLISH', ARGV[1], cjson.encode({ type = 'saved', id = id, title = ARGV[at] }))
end
return 1
`);

const CREATE = script(`
-- KEYS: note, ids; ARGV: channel, id, updatedAt, title, body, tags
redis.call('HSET', KEYS[1], 'title', ARGV[4], 'body', ARGV[5], 'tags', ARGV[6], 'updatedAt', ARGV[3])
redis.call('ZADD', KEYS[2], tonumber(ARGV[2]), ARGV[2])
redis.call('PUBLISH', ARGV[1], cjson.encode({ type = 'saved', id = ARGV[2], title = ARGV[4] }))
return 1
`);

const UPDATE = script(`
-- KEYS: note; ARGV: channel, id, updatedAt, then field, value pairs
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('HSET', KEYS[1], 'updatedAt', ARGV[3], unpack(ARGV, 4))
redis.call('PUBLISH', ARGV[1], cjson.encode({ type = 'saved', id = ARGV[2], title = redis.call('HGET', KEYS[1], 'title') }))
return redis.call('HGETALL', KEYS[1])
`);

const APPEND = script(`
-- KEYS: note; ARGV: channel, id, updatedAt, line
local body = redis.call('HGET', KEYS[1], 'body')
if not body then return false end
redis.call('HSET', KEYS[1], 'body', body .. '\\n' .. ARGV[4], 'updatedAt', ARGV[3])
redis.call('PUBLISH', ARGV[1], cjson.encode({ type = 'saved', id = ARGV[2], title = redis.call('HGET', KEYS[1], 'title') }))
return redis.call('HGETALL', KEYS[1])
`);

const DELETE = script(`
-- KEYS: note, ids; ARGV: channel, id
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('PUBLISH', ARGV[1], cjson.encode({ type = 'deleted', id = ARGV[2] }))
return 1
`);

/**
 * The notes in Redis, so that every replica of the server serves one notebook. Under
 * `<prefix>notes:` (on a cluster `<prefix>{notes}:`, one slot): `seq` (the last id given), `ids` (a sorted set of the ids, oldest first),
 * `note:<id>` (a hash: title, body, tags as JSON, updatedAt), and the channel `changes`, on which
 * every change is published for the replicas to keep their resource lists in step. The notes
 * are the user's data: they have no time to live (keep Redis persistent to keep them).
 *
 * `redis` is loaded on first use, so a server that keeps its notes in a file never pays for it.
 */
export class RedisNotesStore implements Notebook {
  readonly prefix: string;
  private readonly base: string;
  private readonly channel: string;
  private readonly onError: (err: Error) => void;
  private connection?: Promise<NotesRedis>;
  private seeded?: Promise<void>;
  private client?: NotesRedis;
  private subscriber?: NotesRedis;
  private closed = false;

  constructor(private readonly options: RedisNotesStoreOptions) {
    this.prefix = options.prefix ?? 'mcpx:';
    // On a cluster, every key of the notebook in one slot: the scripts touch several at once.
    this.base = options.cluster ? `${this.prefix}{notes}:` : `${this.prefix}notes:`;
    this.channel = `${this.base}changes`;
    this.onError = options.onError ?? (() => {});
  }

  private async storedCreate(title: string, body: string, tags: string[] = []): Promise<Note> {
    const client = await this.ready();
    const id = String(await client.incr(this.key('seq')));
    const note: Note = { id, title, body, tags: [...tags], updatedAt: new Date().toISOString() };
    await this.run(CREATE, [this.noteKey(id), this.key('ids')], [this.channel, id, note.updatedAt, title, body, JSON.stringify(note.tags)], client);
    return note;
  }

  private async storedUpdate(id: string, changes: NoteChanges): Promise<Note | undefined> {
    const fields: string[] = [];
    if (changes.title !== undefined) fields.push('title', changes.title);
    if (changes.body !== undefined) fields.push('body', changes.body);
    if (changes.tags !== undefined) fields.push('tags', JSON.stringify(changes.tags));
    return this.noteFrom(id, await this.run(UPDATE, [this.noteKey(id)], [this.channel, id, new Date().toISOString(), ...fields]));
  }

  private async storedAppend(id: string, line: string): Promise<Note | undefined> {
    return this.noteFrom(id, await this.run(APPEND, [this.noteKey(id)], [this.channel, id, new Date().toISOString(), line]));
  }

  private async storedGet(id: string): Promise<Note | undefined> {
    const client = await this.ready();
    return this.noteFrom(id, await client.hGetAll(this.noteKey(id)));
  }

  private async storedDelete(id: string): Promise<boolean> {
    return (await this.run(DELETE, [this.noteKey(id), this.key('ids')], [this.channel, id])) === 1;
  }

  private async storedAll(): Promise<Note[]> {
    const client = await this.ready();
    const ids = await client.zRange(this.key('ids'), 0, -1);
    // Issued in one tick, the reads go out as one pipeline.
    const hashes = await Promise.all(ids.map((id) => client.hGetAll(this.noteKey(id))));
    return ids.flatMap((id, i) => this.noteFrom(id, hashes[i]) ?? []);
  }

  create(title: string, body: string, tags: string[] = []): Promise<Note> {
    return this.guarded(() => this.storedCreate(title, body, tags));
  }

  update(id: string, changes: NoteChanges): Promise<Note | undefined> {
    return this.guarded(() => this.storedUpdate(id, changes));
  }

  append(id: string, line: string): Promise<Note | undefined> {
    return this.guarded(() => this.storedAppend(id, line));
  }

  get(id: string): Promise<Note | undefined> {
    return this.guarded(() => this.storedGet(id));
  }

  delete(id: string): Promise<boolean> {
    return this.guarded(() => this.storedDelete(id));
  }

  all(): Promise<Note[]> {
    return this.guarded(() => this.storedAll());
  }

  /**
   * Runs one use of Redis: a failure of Redis itself (unreachable, refused, timed out) reaches the
   * caller as a clean "storage unavailable" error, the model seeing no client internals; its cause
   * is logged (onError) and kept as the error's `cause`.
   */
  private async guarded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      this.onError(err instanceof Error ? err : new Error(String(err)));
      throw new NotesStorageUnavailable(err);
    }
  }

  async search(query: string, tag?: string): Promise<Note[]> {
    return matching(await this.all(), query, tag);
  }

  async tags(): Promise<string[]> {
    return tagsOf(await this.all());
  }

  /**
   * Follows the change feed on a connection of its own. After subscribing, and again whenever the
   * connection comes back (messages published meanwhile are lost), the listener is told to resync.
   */
  watch(listener: NotebookListener): void {
    void this.follow(listener).catch((err: Error) => this.closed || this.onError(err));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const client of [this.subscriber, this.client]) {
      if (!client?.isOpen) continue;
      if (client.isReady) await client.close().catch(() => client.destroy());
      else client.destroy();
    }
  }

  private async follow(listener: NotebookListener): Promise<void> {
    const client = await this.connected();
    if (this.closed) return;
    const subscriber = (this.subscriber = client.duplicate('mcpx-notes-feed'));
    subscriber.on('error', this.onError);
    subscriber.unref();
    let subscribed = false;
    // After a reconnect of either connection, once both are back (node-redis subscribes again
    // before it reports 'ready'): the reads a resync makes need the other one.
    const resyncIfConnected = () => subscribed && client.isReady && subscriber.isReady && listener.resync();
    subscriber.onReady(resyncIfConnected);
    client.onReady(resyncIfConnected);
    await subscriber.connect();
    await subscriber.subscribe(this.channel, (message) => {
      let change: NoteChange;
      try {
        change = JSON.parse(message) as NoteChange;
      } catch {
        return; // not one of ours
      }
      listener.changed(change);
    });
    subscribed = true;
    listener.resync();
  }

  /** Connected (once; node-redis reconnects by itself after that) and seeded (again after each reconnect). */
  private connected(): Promise<NotesRedis> {
    this.connection ??= (async () => {
      const redis = await import('redis');
      if (this.closed) throw new Error('The notes store is closed');
      const client = notesRedis(redis, this.options, 'mcpx-notes');
      this.client = client;
      client.on('error', this.onError);
      // The HTTP server or the stdio pipe keeps the process alive, not this connection.
      client.unref();
      await client.connect();
      // A Redis that lost everything (restarted without persistence) starts again from the seed:
      // the next use after a reconnect runs the seed script, which does nothing to a notebook.
      client.onReady(() => (this.seeded = undefined));
      return client;
    })();
    return this.connection.then(async (client) => {
      this.seeded ??= this.seed(client).catch((err: unknown) => {
        this.seeded = undefined; // try again on the next use
        throw err;
      });
      await this.seeded;
      return client;
    });
  }

  /** The client, or a clear error when Redis cannot be reached within the connect timeout. */
  private ready(): Promise<NotesRedis> {
    if (this.client?.isReady && this.seeded) return this.connected();
    const timeoutMs = this.options.connectTimeoutMs ?? 5000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Cannot reach Redis at ${describeWhere(this.options)} for the notes (waited ${timeoutMs} ms)`)), timeoutMs);
      timer.unref();
    });
    return Promise.race([this.connected(), timeout]).finally(() => clearTimeout(timer));
  }

  private async seed(client: NotesRedis): Promise<void> {
    const seed = this.options.seed ?? [];
    const keys = [this.key('seq'), this.key('ids'), ...seed.map((_, i) => this.noteKey(String(i + 1)))];
    const args = [this.channel, new Date().toISOString(), ...seed.flatMap((n) => [n.title, n.body, JSON.stringify(n.tags)])];
    await this.run(SEED, keys, args, client);
  }

  private async run(lua: Script, keys: string[], args: string[], client?: NotesRedis): Promise<unknown> {
    const redis = client ?? (await this.ready());
    try {
      return await redis.evalSha(lua.sha, { keys, arguments: args });
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return redis.eval(lua.source, { keys, arguments: args });
    }
  }

  /** A note from its hash (a field map, or the flat field/value list a script returns); undefined when there is none. */
  private noteFrom(id: string, reply: unknown): Note | undefined {
    let fields: Record<string, string>;
    if (Array.isArray(reply)) {
      fields = {};
      for (let i = 0; i + 1 < reply.length; i += 2) fields[String(reply[i])] = String(reply[i + 1]);
    } else if (reply && typeof reply === 'object') {
      fields = reply as Record<string, string>;
    } else {
      return undefined;
    }
    if (fields.title === undefined) return undefined;
    return { id, title: fields.title, body: fields.body ?? '', tags: JSON.parse(fields.tags ?? '[]') as string[], updatedAt: fields.updatedAt ?? '' };
  }

  private key(name: 'seq' | 'ids'): string {
    return `${this.base}${name}`;
  }

  private noteKey(id: string): string {
    return `${this.base}note:${id}`;
  }
}
