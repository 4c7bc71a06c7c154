/** What a load run checked: how many answers were right, how many wrong, and what the first wrong one said. */
export interface Checked {
  ok: number;
  bad: number;
  firstBad?: string;
}

/** Counts answers as they are checked. */
export class Tally implements Checked {
  ok = 0;
  bad = 0;
  firstBad?: string;

  pass(): void {
    this.ok++;
  }

  fail(why: string): void {
    this.bad++;
    this.firstBad ??= why.slice(0, 300);
  }

  get counts(): Checked {
    return { ok: this.ok, bad: this.bad, firstBad: this.firstBad };
  }
}
