import { McpxError } from '../errors';

/** Keys of `T` that `K` does not list. */
type Unlisted<T, K extends readonly PropertyKey[]> = Exclude<keyof T, K[number]>;

/**
 * The runtime list of an options interface's keys: `optionKeys<ListenOptions>()('host', 'port', ...)`.
 * It compiles only when the list names every key of `T`, so a key added to the interface and not
 * here is a type error naming it (`{ missing: "newKey" }`), rather than an option refused at startup.
 */
export function optionKeys<T>() {
  return <const K extends readonly (keyof T & string)[]>(...keys: K & ([Unlisted<T, K>] extends [never] ? unknown : { missing: Unlisted<T, K> })): K => keys;
}

/** One option nobody knows, and the known one it is probably a typo of. */
export interface UnknownOption {
  name: string;
  suggestion?: string;
}

/** An options object with a key the function or decorator it was given to does not have. */
export class UnknownOptionError extends McpxError {
  constructor(
    /** Where it was given: `listen()`, `@Server() on NotesServer`... */
    readonly where: string,
    readonly unknown: readonly UnknownOption[],
  ) {
    super('MCPX_OPTION_UNKNOWN', unknownOptionMessage(where, unknown));
  }
}

function unknownOptionMessage(where: string, unknown: readonly UnknownOption[]): string {
  const named = (o: UnknownOption) => `\`${o.name}\`${o.suggestion ? ` (did you mean \`${o.suggestion}\`?)` : ''}`;
  if (unknown.length === 1) {
    const [only] = unknown as [UnknownOption];
    return `unknown option \`${only.name}\` in ${where}${only.suggestion ? `; did you mean \`${only.suggestion}\`?` : ''}`;
  }
  return `unknown options in ${where}: ${unknown.map(named).join(', ')}`;
}

/**
 * Throws UnknownOptionError when `given` has an own key not in `known`: a misspelt option would
 * otherwise be ignored without a word (and, in `@Server`, sent to every client as serverInfo).
 * Keys are checked whatever their value, `undefined` included.
 */
export function checkOptions(where: string, given: object | undefined, known: readonly string[]): void {
  if (given === undefined || given === null) return;
  let unknown: UnknownOption[] | undefined;
  for (const name of Object.keys(given)) {
    if (known.includes(name)) continue;
    const suggestion = closestKey(name, known);
    (unknown ??= []).push(suggestion === undefined ? { name } : { name, suggestion });
  }
  if (unknown) throw new UnknownOptionError(where, unknown);
}

/** The known key `name` is likely a typo of: the same but for case, else within two edits (case aside). */
export function closestKey(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = 3;
  for (const key of known) {
    const distance = editDistance(lower, key.toLowerCase(), bestDistance);
    // Two edits turn any two-letter name into any other: a suggestion must keep some of the name.
    if (distance < bestDistance && distance < Math.min(lower.length, key.length)) {
      best = key;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Edits (insertion, deletion, substitution, swap of two neighbours) from `a` to `b`; any count
 * of `limit` or more is returned as `limit`, so long unrelated keys cost little.
 */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit) return limit;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      current.push(d);
      rowMin = Math.min(rowMin, d);
    }
    if (rowMin >= limit) return limit;
    before = previous;
    previous = current;
  }
  return Math.min(previous[b.length]!, limit);
}

/** An option that must be a positive integer, or `fallback` when not given. */
export function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}
