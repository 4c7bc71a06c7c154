/**
 * A map for what usually holds at most one entry at a time (a session's requests in flight, its
 * open streams): the one entry is held inline, and a Map is made only when a second joins it. An
 * idle holder keeps no Map, and the common case allocates nothing per entry.
 */
export class FewMap<K, V> {
  private soleKey?: K;
  private sole?: V;
  private more?: Map<K, V>;

  get(key: K): V | undefined {
    return this.sole !== undefined && this.soleKey === key ? this.sole : this.more?.get(key);
  }

  /** `value` must not be undefined. */
  set(key: K, value: V): void {
    if (this.sole !== undefined && this.soleKey === key) this.sole = value;
    else if (this.sole === undefined && !this.more?.has(key)) {
      this.soleKey = key;
      this.sole = value;
    } else (this.more ??= new Map()).set(key, value);
  }

  delete(key: K): boolean {
    if (this.sole !== undefined && this.soleKey === key) {
      this.sole = this.soleKey = undefined;
      return true;
    }
    return this.more?.delete(key) ?? false;
  }

  get size(): number {
    return (this.sole === undefined ? 0 : 1) + (this.more?.size ?? 0);
  }

  *values(): IterableIterator<V> {
    if (this.sole !== undefined) yield this.sole;
    if (this.more) yield* this.more.values();
  }

  clear(): void {
    this.sole = this.soleKey = undefined;
    this.more = undefined;
  }
}
