import { createHash } from 'node:crypto';
import { McpError } from '../protocol/errors';

export type ListKind = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';

interface Slot<T> {
  entry: T;
  /** Position in the list for ever: new entries get larger numbers, so cursors stay valid. */
  seq: number;
  enabled: boolean;
}

export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

/**
 * One kind of registry entry, keyed by name (or URI). Live: every change is reported, so the
 * engine can tell clients their list changed. Pages are cut by sequence number, so a cursor
 * points "after entry #n" and survives additions and removals without skipping or repeating.
 *
 * List order (the spec asks for a deterministic tools/list, so clients and LLM prompt caches can
 * rely on it) is the order entries were added, and nothing else: not timing, not requests, not
 * enabling or disabling. The scanner adds a server's entries in declaration order (a base class's
 * first), then `onServerInit` adds its own. Replacing an entry keeps its place; an entry removed
 * and added again is a new entry and goes to the end. So the same registrations, made in the same
 * order, give every instance of a server the same list, and the list only changes when the set
 * changes (which clients hear as list_changed).
 */
export class EntryList<T> {
  private readonly slots = new Map<string, Slot<T>>();
  private nextSeq = 1;
  /** Whether an entry with middleware of its own was ever added: the pipeline looks entries up for their middleware only then. */
  hasMiddleware = false;
  /** Whether an entry with a `visible` rule was ever added: lists await rules only then. */
  hasVisibilityRules = false;
  /** Whether an entry with rate limits of its own was ever added: admission counts for entries only then. */
  hasRateLimits = false;

  constructor(
    readonly kind: ListKind,
    private readonly changed: (kind: ListKind) => void,
  ) {}

  get size(): number {
    return this.slots.size;
  }

  /** Adds an entry; with `replace`, an entry under the same key is swapped in at its place. */
  add(key: string, entry: T, options: { replace?: boolean; enabled?: boolean } = {}): void {
    const existing = this.slots.get(key);
    if ((entry as { middleware?: readonly unknown[] }).middleware?.length) this.hasMiddleware = true;
    if ((entry as { visible?: unknown }).visible) this.hasVisibilityRules = true;
    if ((entry as { rateLimits?: readonly unknown[] }).rateLimits?.length) this.hasRateLimits = true;
    if (existing && !options.replace) throw new Error(`${this.kind}: "${key}" is already registered`);
    if (existing) {
      existing.entry = entry;
      if (options.enabled !== undefined) existing.enabled = options.enabled;
    } else {
      this.slots.set(key, { entry, seq: this.nextSeq++, enabled: options.enabled ?? true });
    }
    this.changed(this.kind);
  }

  remove(key: string): boolean {
    const removed = this.slots.delete(key);
    if (removed) this.changed(this.kind);
    return removed;
  }

  enable(key: string): void {
    this.setEnabled(key, true);
  }

  disable(key: string): void {
    this.setEnabled(key, false);
  }

  private setEnabled(key: string, enabled: boolean): void {
    const slot = this.slots.get(key);
    if (!slot) throw new Error(`${this.kind}: "${key}" is not registered`);
    if (slot.enabled === enabled) return;
    slot.enabled = enabled;
    this.changed(this.kind);
  }

  has(key: string): boolean {
    return this.slots.has(key);
  }

  /** The entry if it is registered and enabled: what clients may see and use. */
  get(key: string): T | undefined {
    const slot = this.slots.get(key);
    return slot?.enabled ? slot.entry : undefined;
  }

  isEnabled(key: string): boolean {
    return this.slots.get(key)?.enabled ?? false;
  }

  /** Enabled entries in list order. */
  *values(): IterableIterator<T> {
    for (const slot of this.slots.values()) if (slot.enabled) yield slot.entry;
  }

  /** A digest of what clients would list: instances whose lists changed alike have the same one. */
  fingerprint(): string {
    const hash = createHash('sha1');
    for (const entry of this.values()) hash.update(JSON.stringify((entry as { definition?: unknown }).definition ?? null)).update('\n');
    return hash.digest('base64url');
  }

  keys(): string[] {
    return [...this.slots.keys()];
  }

  /** One page of the enabled entries after `cursor`; `visible` hides entries (they take no room on the page). */
  page(cursor: string | undefined, pageSize: number, visible?: (entry: T) => boolean): Page<T> {
    const after = cursor === undefined ? 0 : this.decodeCursor(cursor);
    const items: T[] = [];
    let last = 0;
    // Map order is insertion order, and seq grows with insertion: the walk is in seq order.
    for (const slot of this.slots.values()) {
      if (slot.seq <= after || !slot.enabled || (visible && !visible(slot.entry))) continue;
      if (items.length === pageSize) return { items, nextCursor: this.encodeCursor(last) };
      items.push(slot.entry);
      last = slot.seq;
    }
    return { items };
  }

  private encodeCursor(seq: number): string {
    return Buffer.from(`${this.kind}:${seq}`).toString('base64url');
  }

  private decodeCursor(cursor: string): number {
    const text = typeof cursor === 'string' ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
    const sep = text.lastIndexOf(':');
    const seq = Number(text.slice(sep + 1));
    if (sep < 0 || text.slice(0, sep) !== this.kind || !Number.isSafeInteger(seq) || seq < 1 || seq >= this.nextSeq) {
      throw McpError.invalidParams(`Invalid cursor for ${this.kind}/list: ${JSON.stringify(cursor)}`);
    }
    return seq;
  }
}
