/** What a stored stream costs beyond its characters (its records and index entries), counted so many small streams are bounded too. */
export const STREAM_COST = 256;

/** The bytes of one slab: small streams are written into these, one after the other. */
const SLAB_BYTES = 64 * 1024;
/** A stream that could take more than this in a slab (at worst 3 bytes a character) keeps its strings instead. */
const MAX_IN_SLAB = SLAB_BYTES / 4;
/** Per entry in `numbers`: slab, offset in it, first seq, until, counted bytes. */
const STRIDE = 5;

/** A delivered stream as kept: where its events are numbered from, and their texts. */
export interface DeliveredStream {
  firstSeq: number;
  events: string[];
}

/**
 * Streams delivered in full, kept for a grace period in case their socket died unnoticed (see
 * EventStore.retainDelivered), oldest first, within a budget of bytes (characters plus STREAM_COST
 * a stream).
 *
 * A busy server holds thousands of them, each for about a second under the default budget. As
 * strings and records, every one was copied twice by V8's young generation and then marked in the
 * old one: at full load that cost more than the rest of the answer's bookkeeping. Here a stream's
 * stream id and texts are written into slabs of bytes outside the JS heap and its bookkeeping into
 * arrays of numbers, so keeping an answer adds no object to the heap. A stream too large for a slab
 * keeps its strings: V8 holds those in its large-object space, which it never copies.
 *
 * A slab goes once no stream in it is kept (a few are kept aside for the next writes). A slab
 * whose streams were dropped early, all but some, stays until the oldest pass it: the slabs held
 * are bounded too, at twice the budget, past which the oldest streams go early.
 */
export class DeliveredStreams {
  /** Queue slots, a power of two: stream number `n` (counted from the first ever kept) is in slot `n & (capacity - 1)`. */
  private capacity = 0;
  /** The session of each stream; undefined once it is let go. */
  private sessions: (string | undefined)[] = [];
  private numbers = new Float64Array(0);
  /** Stream numbers: the oldest still queued, and the next to come. */
  private head = 0;
  private tail = 0;
  /** The texts of streams too large for a slab, by stream number. */
  private readonly large = new Map<number, string[]>();
  /**
   * Slabs in use, numbered from `firstSlab`, and how many kept streams each holds (a slab whose
   * streams were all dropped early is let go at once); the last one is written to, from `writeAt`.
   */
  private slabs: (Buffer | undefined)[] = [];
  private live: number[] = [];
  private held = 0;
  private firstSlab = 0;
  private writeAt = SLAB_BYTES;
  /** Slabs let go, written again before any new one is made. */
  private spare: Buffer[] = [];
  /** How many streams each session has kept: what dropSession looks for, from the newest back. */
  private readonly perSession = new Map<string, number>();
  private readonly maxSlabs: number;
  private readonly maxQueued: number;
  /** Bytes of the streams kept, as the budget counts them. */
  bytes = 0;

  constructor(maxBytes: number) {
    this.maxSlabs = Math.max(4, Math.ceil((2 * maxBytes) / SLAB_BYTES));
    // Streams dropped early still hold their place in the queue until the oldest pass them.
    this.maxQueued = Math.max(64, Math.ceil((2 * maxBytes) / STREAM_COST));
  }

  /** Keeps a stream until `until`; the caller sheds to its budget afterwards. */
  add(sessionId: string, streamId: string, firstSeq: number, events: string[], until: number): void {
    let chars = 0;
    for (const text of events) chars += text.length;
    // The most each part can take (3 UTF-8 bytes a character at worst), so a write never runs out of slab.
    const header = 2 + 3 * streamId.length + 4;
    const worst = header + 4 * events.length + 3 * chars;
    const inSlab = worst <= MAX_IN_SLAB;
    if (header > MAX_IN_SLAB) return; // no stream id of ours is that long: not kept
    if (this.tail - this.head >= this.maxQueued) this.letGoOldest();
    let slab = this.slabs[this.slabs.length - 1];
    if (slab === undefined || this.writeAt + (inSlab ? worst : header) > SLAB_BYTES) slab = this.newSlab();
    this.live[this.live.length - 1]!++;
    const start = this.writeAt;
    let at = start + 2;
    at += slab.write(streamId, at, 'utf8');
    slab.writeUInt16LE(at - start - 2, start);
    if (inSlab) {
      slab.writeUInt32LE(events.length, at);
      at += 4;
      for (const text of events) {
        const length = slab.write(text, at + 4, 'utf8');
        slab.writeUInt32LE(length, at);
        at += 4 + length;
      }
    } else {
      slab.writeUInt32LE(0xffffffff, at);
      at += 4;
      this.large.set(this.tail, events);
    }
    this.writeAt = at;
    if (this.tail - this.head === this.capacity) this.grow();
    const slot = this.tail & (this.capacity - 1);
    const bytes = STREAM_COST + chars;
    this.sessions[slot] = sessionId;
    const n = slot * STRIDE;
    this.numbers[n] = this.firstSlab + this.slabs.length - 1;
    this.numbers[n + 1] = start;
    this.numbers[n + 2] = firstSeq;
    this.numbers[n + 3] = until;
    this.numbers[n + 4] = bytes;
    this.tail++;
    this.perSession.set(sessionId, (this.perSession.get(sessionId) ?? 0) + 1);
    this.bytes += bytes;
  }

  /** Lets the oldest streams go until at most `budget` bytes are kept. */
  shed(budget: number): void {
    while (this.bytes > budget && this.head < this.tail) this.letGoOldest();
  }

  /** Lets go of the streams whose `until` is past (they are in order of it). */
  expire(now: number): void {
    while (this.head < this.tail && this.number(this.head, 3) <= now) this.letGoOldest();
  }

  /** The stream, if it is still kept. */
  find(sessionId: string, streamId: string): DeliveredStream | undefined {
    const at = this.indexOf(sessionId, streamId);
    return at < 0 ? undefined : this.read(at);
  }

  drop(sessionId: string, streamId: string): void {
    const at = this.indexOf(sessionId, streamId);
    if (at >= 0) this.forget(at);
  }

  dropSession(sessionId: string): void {
    // A session's streams are among the newest when it ends: found from the back, and only as many as it has.
    let left = this.perSession.get(sessionId) ?? 0;
    for (let at = this.tail - 1; left > 0 && at >= this.head; at--) {
      if (this.sessionOf(at) === sessionId) {
        this.forget(at);
        left--;
      }
    }
  }

  /** How many streams a session has kept. */
  count(sessionId: string): number {
    return this.perSession.get(sessionId) ?? 0;
  }

  /** The sessions with streams kept. */
  sessionIds(): IterableIterator<string> {
    return this.perSession.keys();
  }

  /** Bytes of slabs held, in use or spare (for tests). */
  get slabBytes(): number {
    return (this.held + this.spare.length) * SLAB_BYTES;
  }

  private newSlab(): Buffer {
    // Space of streams dropped early comes back only as the oldest go: the slabs held are bounded too.
    const last = this.slabs.length - 1;
    if (last >= 0 && this.live[last] === 0) this.release(last);
    while (this.held >= this.maxSlabs && this.head < this.tail) this.letGoOldest();
    // Never read past what was written: uninitialised memory stays unread.
    const slab = this.spare.pop() ?? Buffer.allocUnsafeSlow(SLAB_BYTES);
    this.slabs.push(slab);
    this.live.push(0);
    this.held++;
    this.writeAt = 0;
    return slab;
  }

  private grow(): void {
    const capacity = Math.max(256, this.capacity * 2);
    const sessions = new Array<string | undefined>(capacity).fill(undefined);
    const numbers = new Float64Array(capacity * STRIDE);
    for (let at = this.head; at < this.tail; at++) {
      const from = at & (this.capacity - 1);
      const to = at & (capacity - 1);
      sessions[to] = this.sessions[from];
      numbers.set(this.numbers.subarray(from * STRIDE, from * STRIDE + STRIDE), to * STRIDE);
    }
    this.capacity = capacity;
    this.sessions = sessions;
    this.numbers = numbers;
  }

  private sessionOf(at: number): string | undefined {
    return this.sessions[at & (this.capacity - 1)];
  }

  private number(at: number, field: number): number {
    return this.numbers[(at & (this.capacity - 1)) * STRIDE + field]!;
  }

  private indexOf(sessionId: string, streamId: string): number {
    if (!this.perSession.has(sessionId)) return -1;
    for (let at = this.tail - 1; at >= this.head; at--) {
      if (this.sessionOf(at) !== sessionId) continue;
      const slab = this.slabOf(at);
      const start = this.number(at, 1);
      if (slab.toString('utf8', start + 2, start + 2 + slab.readUInt16LE(start)) === streamId) return at;
    }
    return -1;
  }

  private read(at: number): DeliveredStream {
    const firstSeq = this.number(at, 2);
    const large = this.large.get(at);
    if (large) return { firstSeq, events: large };
    const slab = this.slabOf(at);
    let offset = this.number(at, 1);
    offset += 2 + slab.readUInt16LE(offset);
    const count = slab.readUInt32LE(offset);
    offset += 4;
    const events: string[] = [];
    for (let n = 0; n < count; n++) {
      const length = slab.readUInt32LE(offset);
      events.push(slab.toString('utf8', offset + 4, offset + 4 + length));
      offset += 4 + length;
    }
    return { firstSeq, events };
  }

  private slabOf(at: number): Buffer {
    return this.slabs[this.number(at, 0) - this.firstSlab]!;
  }

  /** Gives a stream's bytes back; its space in the slab comes back when the oldest pass it. */
  private forget(at: number): void {
    const slot = at & (this.capacity - 1);
    const sessionId = this.sessions[slot];
    if (sessionId === undefined) return;
    this.sessions[slot] = undefined;
    const left = this.perSession.get(sessionId)! - 1;
    if (left > 0) this.perSession.set(sessionId, left);
    else this.perSession.delete(sessionId);
    this.bytes -= this.numbers[slot * STRIDE + 4]!;
    if (this.large.size > 0) this.large.delete(at);
    const index = this.numbers[slot * STRIDE]! - this.firstSlab;
    // A slab no kept stream needs is let go, unless it is still written to.
    if (--this.live[index]! === 0 && index < this.slabs.length - 1) this.release(index);
  }

  private release(index: number): void {
    const slab = this.slabs[index];
    if (slab === undefined) return;
    this.slabs[index] = undefined;
    this.held--;
    if (this.spare.length < 4) this.spare.push(slab);
  }

  private letGoOldest(): void {
    this.forget(this.head);
    this.head++;
    if (this.head === this.tail) {
      // Nothing kept: nothing held but one spare slab.
      for (let index = 0; index < this.slabs.length; index++) this.release(index);
      this.spare.length = Math.min(this.spare.length, 1);
      this.firstSlab += this.slabs.length;
      this.slabs = [];
      this.live = [];
      this.writeAt = SLAB_BYTES;
      return;
    }
    // Slabs before the oldest kept stream's are free.
    const oldest = this.number(this.head, 0);
    while (this.firstSlab < oldest) {
      this.release(0);
      this.slabs.shift();
      this.live.shift();
      this.firstSlab++;
    }
  }
}
