import { isValidId, type RequestId } from './jsonrpc';
import { QUOTE, BACKSLASH, OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY, COMMA, COLON, MINUS } from './json-bytes';

/**
 * Finds the top-level `"id"` of a JSON-RPC message that is too large to be parsed, so that the
 * transport's "too large" error can carry it (a client matches an error to its request by id, and
 * otherwise waits out its timeout). Fed the message's bytes chunk by chunk, in O(1) memory: it
 * follows JSON's lexical state (strings, escapes, nesting) and keeps only the bytes of one short
 * key or of the id's value. The id may come anywhere in the object, last included (the official
 * SDK clients write `{method, params, jsonrpc, id}`). Only an id that is a string or an integer
 * counts, as the schema has it; a batch (top-level `[`) has no id. The scan stops once the id is
 * found, once it cannot be, or after `maxBytes` (then the id is unknown unless already found).
 */
export class RequestIdScanner {
  private state = START;
  private seen = 0;
  private depth = 0;
  /** At depth 1, whether the next string is a key (after `{` or `,`). */
  private expectKey = false;
  /** The byte before was a backslash, inside a string. */
  private escaped = false;
  /** The raw bytes of the key being read, or of the id's value. */
  private readonly raw = Buffer.allocUnsafe(MAX_ID_BYTES);
  private rawLength = 0;
  /** The key being read is longer than any spelling of `id`. */
  private longKey = false;
  private id: RequestId | undefined;

  /** @param maxBytes how many bytes to scan at most (default: no bound). */
  constructor(private readonly maxBytes = Number.POSITIVE_INFINITY) {}

  /** Whether the scan is over: the id found, or none to be found (or the bound reached). More bytes are ignored. */
  get done(): boolean {
    return this.state === DONE;
  }

  /** The bytes scanned so far. */
  get scanned(): number {
    return this.seen;
  }

  /** The top-level id, once found; undefined while unknown and when there is none. */
  result(): RequestId | undefined {
    return this.id;
  }

  /** Scans the next bytes of the message. Returns `done`. */
  push(chunk: Buffer): boolean {
    if (this.state === DONE) return true;
    const room = this.maxBytes - this.seen;
    const data = chunk.length > room ? chunk.subarray(0, room) : chunk;
    const end = data.length;
    this.seen += end;
    // The next quote and backslash at or after i (end when none), found with indexOf so that a long
    // string is skipped without a look at each byte; kept across strings, so each is searched for once.
    let nextQuote = -1;
    let nextBackslash = -1;
    let i = 0;
    while (i < end && this.state !== DONE) {
      const state = this.state;
      if (state === STRING) {
        if (this.escaped) {
          this.escaped = false;
          i++;
          continue;
        }
        if (nextQuote < i) nextQuote = indexIn(data, QUOTE, i, end);
        if (nextBackslash < i) nextBackslash = indexIn(data, BACKSLASH, i, end);
        if (nextBackslash < nextQuote) {
          this.escaped = true;
          i = nextBackslash + 1;
        } else {
          if (nextQuote < end) this.state = SCAN;
          i = nextQuote + 1;
        }
        continue;
      }
      const byte = data[i++]!;
      switch (state) {
        case START:
          if (isSpace(byte)) break;
          // A batch, or anything that is not an object, has no top-level id.
          if (byte !== OPEN_OBJECT) this.finish();
          else {
            this.depth = 1;
            this.expectKey = true;
            this.state = SCAN;
          }
          break;
        case SCAN:
          this.scan(byte);
          break;
        case KEY:
          this.key(byte);
          break;
        case AFTER_ID_KEY:
          if (byte === COLON) this.state = BEFORE_ID_VALUE;
          else if (!isSpace(byte)) this.finish();
          break;
        case BEFORE_ID_VALUE:
          if (isSpace(byte)) break;
          if (byte === QUOTE) this.state = ID_STRING;
          else if (byte === MINUS || isDigit(byte)) this.state = ID_NUMBER;
          else {
            // null, true, an object...: not an id.
            this.finish();
            break;
          }
          this.rawLength = 0;
          this.capture(byte);
          break;
        case ID_STRING:
          if (!this.capture(byte)) break;
          if (this.escaped) this.escaped = false;
          else if (byte === BACKSLASH) this.escaped = true;
          else if (byte === QUOTE) this.finish(this.decode());
          break;
        case ID_NUMBER:
          if (isNumberByte(byte)) this.capture(byte);
          // The number ends at whitespace, or at the `,` or `}` after it; anything else makes no valid message.
          else this.finish(isSpace(byte) || byte === COMMA || byte === CLOSE_OBJECT ? this.decode() : undefined);
          break;
      }
    }
    if (this.seen >= this.maxBytes) this.finish(this.id);
    return this.state === DONE;
  }

  /** Outside strings: nesting, and where a top-level key starts. */
  private scan(byte: number): void {
    switch (byte) {
      case QUOTE:
        if (this.depth === 1 && this.expectKey) {
          this.expectKey = false;
          this.rawLength = 0;
          this.longKey = false;
          this.state = KEY;
        } else this.state = STRING;
        return;
      case OPEN_OBJECT:
      case OPEN_ARRAY:
        this.depth++;
        return;
      case CLOSE_OBJECT:
      case CLOSE_ARRAY:
        // The top-level object ended without an id.
        if (--this.depth === 0) this.finish();
        return;
      case COMMA:
        if (this.depth === 1) this.expectKey = true;
        return;
    }
  }

  /** Inside a top-level key: kept while short, compared with `id` at its closing quote. */
  private key(byte: number): void {
    if (this.escaped) this.escaped = false;
    else if (byte === BACKSLASH) this.escaped = true;
    else if (byte === QUOTE) {
      this.state = !this.longKey && this.isIdKey() ? AFTER_ID_KEY : SCAN;
      return;
    }
    if (this.rawLength < MAX_KEY_BYTES) this.raw[this.rawLength++] = byte;
    else this.longKey = true;
  }

  private isIdKey(): boolean {
    const key = this.raw.subarray(0, this.rawLength);
    if (key.length === 2) return key[0] === 0x69 && key[1] === 0x64; // "id"
    // "\u0069d" and the like: JSON.parse reads them as `id` too.
    if (key.indexOf(BACKSLASH) === -1) return false;
    try {
      return JSON.parse(`"${key.toString('latin1')}"`) === 'id';
    } catch {
      return false;
    }
  }

  /** Keeps a byte of the id's value; a value longer than MAX_ID_BYTES is no id (and ends the scan). */
  private capture(byte: number): boolean {
    if (this.rawLength === MAX_ID_BYTES) {
      this.finish();
      return false;
    }
    this.raw[this.rawLength++] = byte;
    return true;
  }

  /** The captured value as an id, when it is a valid one. */
  private decode(): RequestId | undefined {
    try {
      const value: unknown = JSON.parse(this.raw.toString('utf8', 0, this.rawLength));
      return isValidId(value) ? value : undefined;
    } catch {
      return undefined;
    }
  }

  private finish(id?: RequestId): void {
    this.id = id;
    this.state = DONE;
  }
}

/** What the scan is reading. */
const START = 0;
const SCAN = 1;
const STRING = 2;
const KEY = 3;
const AFTER_ID_KEY = 4;
const BEFORE_ID_VALUE = 5;
const ID_STRING = 6;
const ID_NUMBER = 7;
const DONE = 8;

/** A key is kept up to this many bytes: enough for `id` spelled with escapes (`\u0069\u0064`). */
const MAX_KEY_BYTES = 16;
/** The longest id value read, in bytes as written (quotes and escapes included). */
const MAX_ID_BYTES = 256;

function indexIn(data: Buffer, byte: number, from: number, end: number): number {
  const at = data.indexOf(byte, from);
  return at === -1 ? end : at;
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function isDigit(byte: number): boolean {
  return byte >= 0x30 && byte <= 0x39;
}

/** Digits, sign, decimal point, exponent. */
function isNumberByte(byte: number): boolean {
  return isDigit(byte) || byte === MINUS || byte === 0x2b || byte === 0x2e || byte === 0x65 || byte === 0x45;
}
