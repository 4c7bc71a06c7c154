/** One reading of one instance incarnation. */
export interface Sample {
  /** Seconds since the run started. */
  t: number;
  round: number;
  phase: 'baseline' | 'before' | 'during' | 'after';
  slot: string;
  series: string;
  rss: number;
  heapUsed?: number;
  heapTotal?: number;
  external?: number;
}

const mb = (bytes: number | undefined) => (bytes === undefined ? '-' : (bytes / 1048576).toFixed(0));

function pad(cells: string[], widths: number[]): string {
  return cells.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
}

/**
 * The round's table: for each instance incarnation seen in it, RSS (and heapUsed, when the probe
 * answered) before the traffic, the peak and last value under it, and after the quiet period.
 */
export function roundTable(samples: Sample[], round: number, longLived: string): string[] {
  const mine = samples.filter((s) => s.round === round);
  const series = [...new Set(mine.map((s) => s.series))];
  const widths = [8, 11, 10, 10, 10, 10, 11, 11];
  const lines = [pad(['series', 'role', 'before', 'peak', 'end', 'after', 'heap bef.', 'heap aft.'], widths) + '   (MB)'];
  for (const name of series) {
    const of = (phase: Sample['phase']) => mine.filter((s) => s.series === name && s.phase === phase);
    const before = of('before').at(-1);
    const during = of('during');
    const after = of('after').at(-1);
    const peak = during.reduce<number | undefined>((max, s) => (max === undefined || s.rss > max ? s.rss : max), undefined);
    const role = name.startsWith(`${longLived}#`) ? 'long-lived' : before ? 'survivor' : 'restarted';
    lines.push(pad([name, role, mb(before?.rss), mb(peak), mb(during.at(-1)?.rss), mb(after?.rss), mb(before?.heapUsed), mb(after?.heapUsed)], widths));
  }
  return lines;
}

/** Across rounds: the long-lived instance's RSS and heap at baseline and after each round. */
export function longLivedTable(samples: Sample[], rounds: number, slot: string): string[] {
  const mine = samples.filter((s) => s.slot === slot);
  const baseline = mine.filter((s) => s.phase === 'baseline').at(-1);
  const cells = [['baseline', baseline]] as [string, Sample | undefined][];
  for (let r = 1; r <= rounds; r++) {
    const during = mine.filter((s) => s.round === r && s.phase === 'during');
    const peak = during.reduce<Sample | undefined>((max, s) => (!max || s.rss > max.rss ? s : max), undefined);
    cells.push([`r${r} peak`, peak], [`r${r} after`, mine.filter((s) => s.round === r && s.phase === 'after').at(-1)]);
  }
  const widths = cells.map(([label]) => Math.max(9, label.length));
  const row = (label: string, value: (s: Sample | undefined) => string) => label.padEnd(12) + cells.map(([, s], i) => value(s).padStart(widths[i]!)).join('  ');
  return [''.padEnd(12) + cells.map(([label], i) => label.padStart(widths[i]!)).join('  '), row('RSS MB', (s) => mb(s?.rss)), row('heapUsed MB', (s) => mb(s?.heapUsed))];
}
