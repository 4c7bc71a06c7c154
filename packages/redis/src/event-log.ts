import type { SharedEventLog, StoredEvent, StreamBatch, TailSink } from '@mcpx/core/stores';
import { eventId, type JsonRpcMessage, type RequestId } from '@mcpx/core/transport';
import type { RedisCommands, StreamEntry } from './commands';
import type { RedisKeys } from './keys';
import type { Logger } from './logger';
import { compareStreamIds, type StreamFollower } from './stream-reader';
import { WRITE_STREAM } from './scripts';

/** The standalone (GET) stream: any instance writes to it, nobody opens or ends it. */
const STANDALONE = '0';

/** Entry fields: `o` opens a request stream (JSON of its request id), `d` is an event, `e` ends the stream. */
const OPEN = 'o';
const DATA = 'd';
const END = 'e';

/** How many entries one XRANGE takes while replaying. */
const PAGE = 500;

export interface RedisEventLogOptions {
  /** How long a stream is kept after its last write (slid by every append). */
  retentionMs: number;
  /** Cap (approximate) of the standalone stream, which lives as long as its session. */
  sessionStreamMaxLen: number;
  /** Cap (approximate) of a request stream. */
  requestStreamMaxLen: number;
  /** How often a tail checks that its writer still holds its lease. */
  checkEveryMs: number;
  /**
   * False for a while after this instance reconnected: every live instance retakes its lease on
   * reconnecting, so until then a missing lease does not prove its holder dead.
   */
  leasesTrusted: () => boolean;
}

/**
 * The SSE event log as one Redis Stream per SSE stream, entry ids `0-<seq>` (the event's number
 * on its stream, so event ids map to entry ids and back without a lookup). A request stream's
 * first entry, `0-1`, names the request it answers; its writer ends it with an end entry. Readers
 * on other instances replay with XRANGE and follow through the instance's one blocking reader.
 */
export class RedisEventLog implements SharedEventLog {
  private readonly tails = new Set<Tail>();
  private checker?: NodeJS.Timeout;

  constructor(
    private readonly redis: RedisCommands,
    readonly keys: RedisKeys,
    readonly reader: StreamFollower,
    readonly logger: Logger,
    readonly options: RedisEventLogOptions,
  ) {}

  /** One script call per turn of a request stream: an answer ready at once costs one command. */
  async write(sessionId: string, streamId: string, batch: StreamBatch): Promise<void> {
    const end = batch.end;
    const args = [
      String(this.options.requestStreamMaxLen),
      String(Math.max(1, Math.ceil(end ? end.retentionMs : this.options.retentionMs))),
      batch.open === undefined ? '' : JSON.stringify(batch.open),
      end ? (end.deliveredInFull ? 'delivered' : 'kept') : '',
      streamId,
    ];
    for (const event of batch.events) args.push(String(event.seq), event.data);
    await this.redis.evalScript(WRITE_STREAM, [this.keys.stream(sessionId, streamId), this.keys.streams(sessionId)], args);
  }

  /** A request stream began (its first entry names the request). */
  open(sessionId: string, streamId: string, requestId: RequestId): Promise<void> {
    return this.write(sessionId, streamId, { open: requestId, events: [] });
  }

  async append(sessionId: string, streamId: string, message: JsonRpcMessage, data?: string, seq?: number): Promise<string> {
    const key = this.keys.stream(sessionId, streamId);
    const maxLen = streamId === STANDALONE ? this.options.sessionStreamMaxLen : this.options.requestStreamMaxLen;
    // `0-*`: Redis numbers it (the stream's last seq + 1), which is how several instances share stream 0.
    const added = this.redis.xadd(key, seq === undefined ? '0-*' : `0-${seq}`, { [DATA]: data ?? JSON.stringify(message) }, maxLen);
    const slid = this.redis.pexpire(key, this.options.retentionMs);
    const [id] = await Promise.all([added, slid]);
    return eventId(streamId, seqOf(id));
  }

  /** The writer ended the stream; it stays readable for `retentionMs`. */
  end(sessionId: string, streamId: string, retentionMs: number, deliveredInFull = false): Promise<void> {
    return this.write(sessionId, streamId, { events: [], end: { retentionMs, deliveredInFull } });
  }

  async eventsAfter(sessionId: string, streamId: string, afterSeq: number): Promise<StoredEvent[] | undefined> {
    const key = this.keys.stream(sessionId, streamId);
    const [exists, entries] = await Promise.all([this.redis.exists(key), this.redis.xrange(key, afterSeq < 0 ? '-' : `(0-${afterSeq}`, '+')]);
    if (!exists) return undefined;
    const events: StoredEvent[] = [];
    for (const entry of entries) {
      const data = entry.fields[DATA];
      if (data !== undefined) events.push({ id: eventId(streamId, seqOf(entry.id)), data });
    }
    return events;
  }

  async dropSession(sessionId: string): Promise<void> {
    const index = this.keys.streams(sessionId);
    const streamIds = await this.redis.smembers(index);
    await this.redis.del([index, this.keys.stream(sessionId, STANDALONE), ...streamIds.map((id) => this.keys.stream(sessionId, id))]);
  }

  async dropStream(sessionId: string, streamId: string): Promise<void> {
    await Promise.all([this.redis.del([this.keys.stream(sessionId, streamId)]), this.redis.srem(this.keys.streams(sessionId), [streamId])]);
  }

  tail(sessionId: string, streamId: string, afterSeq: number, sink: TailSink, writer?: string): { stop(): void } {
    const tail = new Tail(this, this.redis, sessionId, streamId, afterSeq, sink, writer);
    this.tails.add(tail);
    this.checkPeriodically();
    void tail.start();
    return { stop: () => tail.finish() };
  }

  /** Whether some tail follows the stream live, past its replay (for tests and metrics). */
  isFollowing(sessionId: string, streamId: string): boolean {
    return this.reader.follows(this.keys.stream(sessionId, streamId));
  }

  /** How many tails are running (for tests and metrics). */
  get tailCount(): number {
    return this.tails.size;
  }

  /** Stops every tail (the cluster is closing). */
  stopAll(): void {
    for (const tail of [...this.tails]) tail.finish();
  }

  forget(tail: Tail): void {
    this.tails.delete(tail);
    if (this.tails.size === 0 && this.checker) {
      clearInterval(this.checker);
      this.checker = undefined;
    }
  }

  private checkPeriodically(): void {
    if (this.checker) return;
    this.checker = setInterval(() => {
      for (const tail of this.tails) void tail.check();
    }, this.options.checkEveryMs);
    this.checker.unref();
  }
}

/** One reader of one stream: replays, then follows through the blocking reader, until told to stop. */
class Tail {
  private lastId: string;
  private requestId: RequestId | undefined;
  private following?: { stop(): void };
  private started = false;
  private starting = false;
  private checking = false;
  done = false;
  private readonly key: string;

  constructor(
    private readonly log: RedisEventLog,
    private readonly redis: RedisCommands,
    sessionId: string,
    private readonly streamId: string,
    private readonly afterSeq: number,
    private readonly sink: TailSink,
    private readonly writer: string | undefined,
  ) {
    this.key = log.keys.stream(sessionId, streamId);
    this.lastId = afterSeq < 0 ? '0-0' : `0-${afterSeq}`;
  }

  /**
   * Reads what is there, tells the sink, and hands the rest to the reader. The writer's lease is
   * read before the entries (commands sent together run in order): a writer gone at that moment
   * wrote nothing after, so if the entries hold no end, the stream is lost.
   */
  async start(): Promise<void> {
    if (this.done || this.starting) return;
    this.starting = true;
    try {
      const alive = this.writer === undefined ? Promise.resolve(true) : this.redis.exists(this.log.keys.instance(this.writer));
      const exists = this.redis.exists(this.key);
      const opening = this.redis.xrange(this.key, '0-1', '0-1');
      const newest = this.afterSeq < 0 ? this.redis.xrevrange(this.key, '+', '-', 1) : undefined;
      const first = this.afterSeq < 0 ? undefined : this.redis.xrange(this.key, `(${this.lastId}`, '+', PAGE);
      const [writerAlive, keyExists, opened, last, page] = await Promise.all([alive, exists, opening, newest, first]);
      if (this.done) return;
      if (!keyExists && this.streamId !== STANDALONE) return this.finish('unknown');
      this.take(opened);
      if (last) {
        // From now on: start after the newest entry, unless it already ended the stream.
        const top = last[0];
        if (top?.fields[END] !== undefined) return this.finish('ended');
        if (top) this.lastId = top.id;
      }
      let entries = page ?? [];
      this.take(entries);
      while (!this.done && entries.length === PAGE) {
        entries = await this.redis.xrange(this.key, `(${this.lastId}`, '+', PAGE);
        this.take(entries);
      }
      if (this.done) return;
      if (!writerAlive && this.log.options.leasesTrusted()) return this.finish('lost');
      this.started = true;
      this.following = this.log.reader.follow(this.key, this.lastId, (fresh) => this.take(fresh));
    } catch (err) {
      // Redis unreachable: the periodic check starts it again.
      this.log.logger.debug({ err, key: this.key }, 'tail: could not read the stream yet');
    } finally {
      this.starting = false;
    }
  }

  /** Every leaseMs/2: (re)starts a tail whose start failed, and fails one whose writer is gone. */
  async check(): Promise<void> {
    if (this.done || this.checking) return;
    if (!this.started) return this.start();
    if (this.writer === undefined && this.streamId === STANDALONE) return;
    this.checking = true;
    try {
      const alive = this.writer === undefined ? Promise.resolve(true) : this.redis.exists(this.log.keys.instance(this.writer));
      const exists = this.redis.exists(this.key);
      const [writerAlive, keyExists] = await Promise.all([alive, exists]);
      if (this.done) return;
      if (!writerAlive) {
        if (!this.log.options.leasesTrusted()) return;
        // What the writer stored before its lease lapsed, in case the reader has not brought it yet.
        let entries: StreamEntry[];
        do {
          entries = await this.redis.xrange(this.key, `(${this.lastId}`, '+', PAGE);
          this.take(entries);
        } while (!this.done && entries.length === PAGE);
        if (!this.done) this.finish('lost');
      } else if (!keyExists) {
        this.finish('unknown');
      }
    } catch (err) {
      this.log.logger.debug({ err, key: this.key }, 'tail: could not check the stream');
    } finally {
      this.checking = false;
    }
  }

  private take(entries: StreamEntry[]): void {
    for (const entry of entries) {
      if (this.done) return;
      if (compareStreamIds(entry.id, this.lastId) <= 0) {
        // Already past it; only the opening entry is read again on purpose (for its request id).
        if (entry.id === '0-1' && entry.fields[OPEN] !== undefined) this.requestId = parseRequestId(entry.fields[OPEN]);
        continue;
      }
      this.lastId = entry.id;
      const { [DATA]: data, [END]: end, [OPEN]: open } = entry.fields;
      if (data !== undefined) {
        const seq = seqOf(entry.id);
        this.tell(() => this.sink.event({ id: eventId(this.streamId, seq), data, seq }));
      } else if (end !== undefined) {
        this.finish('ended');
      } else if (open !== undefined) {
        this.requestId = parseRequestId(open);
      }
    }
  }

  /** Stops following; with an outcome, tells the sink once. */
  finish(outcome?: 'ended' | 'lost' | 'unknown'): void {
    if (this.done) return;
    this.done = true;
    this.following?.stop();
    this.log.forget(this);
    if (outcome === 'ended') this.tell(() => this.sink.ended());
    else if (outcome === 'lost') this.tell(() => this.sink.lost(this.requestId));
    else if (outcome === 'unknown') this.tell(() => this.sink.unknown());
  }

  private tell(call: () => void): void {
    try {
      call();
    } catch (err) {
      this.log.logger.error({ err, key: this.key }, 'tail: the reader of a stream failed');
    }
  }
}

/** The event number of an entry id `0-<seq>`. */
function seqOf(entryId: string): number {
  return Number(entryId.slice(entryId.indexOf('-') + 1));
}

function parseRequestId(text: string): RequestId | undefined {
  try {
    const id: unknown = JSON.parse(text);
    return typeof id === 'string' || typeof id === 'number' ? id : undefined;
  } catch {
    return undefined;
  }
}
