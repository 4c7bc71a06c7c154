import { ErrorCode } from './errors';
import { classifyMessage, errorResponse, isValidId, type ParsedMessage, type RequestId } from './jsonrpc';
import { QUOTE, BACKSLASH, OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY, COMMA, COLON } from './json-bytes';

/**
 * The safety budget for every JSON message that reaches the server, over any transport. The
 * transports already bound a message's size (HTTP `maxBodyBytes`, stdio `maxMessageBytes`); these
 * bound its shape, which is what makes parsing expensive: JSON.parse of 4 MiB of tiny values, or
 * of one object with hundreds of thousands of keys, holds the event loop for a second.
 * A message over the budget is refused after one linear pass over its bytes, before it is parsed.
 */
export interface MessageLimits {
  /** Deepest nesting of objects and arrays (default 64). */
  maxDepth?: number;
  /** Most values in one message, counted as containers plus separators (default 100,000). */
  maxValues?: number;
  /** Most keys in one object (default 10,000). */
  maxObjectKeys?: number;
}

export type ResolvedMessageLimits = Required<MessageLimits>;

export const DEFAULT_MESSAGE_LIMITS: Readonly<ResolvedMessageLimits> = Object.freeze({ maxDepth: 64, maxValues: 100_000, maxObjectKeys: 10_000 });

export function resolveMessageLimits(limits: MessageLimits | undefined): ResolvedMessageLimits {
  if (!limits) return DEFAULT_MESSAGE_LIMITS;
  const out = { ...DEFAULT_MESSAGE_LIMITS };
  for (const key of Object.keys(DEFAULT_MESSAGE_LIMITS) as (keyof ResolvedMessageLimits)[]) {
    const value = limits[key];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`messageLimits.${key} must be a positive integer, got ${value}`);
    out[key] = value;
  }
  return out;
}

/** Why a message was refused, and where (the first keys of its path, e.g. `params.arguments.a`). */
export interface BudgetViolation {
  message: string;
  /** Whether the excess lies inside `params`: then a request with an id is answered -32602, like any invalid argument. */
  inParams: boolean;
  /** The top-level `id`, when the message has a usable one (it is read even after the excess). */
  id?: RequestId;
}

/** Keys are remembered this deep, for the path in the error message. */
const PATH_DEPTH = 4;
const MAX_KEY_BYTES = 64;
const MAX_ID_BYTES = 256;

/** The scan's working arrays, kept between calls: allocating four typed arrays per message cost more than the scan of a small one. */
interface Scratch {
  isObject: Uint8Array;
  commas: Uint32Array;
  keyStart: Int32Array;
  keyEnd: Int32Array;
}

function newScratch(maxDepth: number): Scratch {
  return { isObject: new Uint8Array(maxDepth + 2), commas: new Uint32Array(maxDepth + 2), keyStart: new Int32Array(PATH_DEPTH), keyEnd: new Int32Array(PATH_DEPTH) };
}

let scratch = newScratch(DEFAULT_MESSAGE_LIMITS.maxDepth);

/**
 * One pass over the bytes, counting nesting, values and keys per object outside strings. Bytes of
 * multi-byte UTF-8 characters are all >= 0x80, so structural characters are found byte by byte.
 * Invalid JSON is not judged here (JSON.parse does that); only its cost is bounded. After an excess
 * the pass goes on only to find the top-level `id`, so the reply can name the request.
 */
export function scanMessage(bytes: Uint8Array, limits: ResolvedMessageLimits = DEFAULT_MESSAGE_LIMITS): BudgetViolation | undefined {
  const { maxDepth, maxValues, maxObjectKeys } = limits;
  const n = bytes.length;
  // Per open container: whether it is an object, and the commas seen in it. Each slot is written
  // when its container opens, before it is read, so the arrays are reused across messages.
  if (scratch.isObject.length < maxDepth + 2) scratch = newScratch(maxDepth);
  const { isObject, commas, keyStart, keyEnd } = scratch;
  // Where the key of the member being read at each of the first depths lies (start, end; -1: none).
  keyStart.fill(-1);
  let depth = 0;
  let values = 0;
  let inString = false;
  let stringStart = 0;
  // Whether the next string at this depth is a key (after `{` or `,` in an object).
  let expectKey = false;
  let violation: string | undefined;
  let violationInParams = false;
  let violationPath = '';
  // Raw text of the top-level `id` value, once found.
  let idStart = -1;
  let idText: string | undefined;

  for (let i = 0; i < n; i++) {
    const c = bytes[i]!;
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) {
        inString = false;
        if (expectKey && depth > 0 && depth <= PATH_DEPTH) {
          keyStart[depth - 1] = stringStart;
          keyEnd[depth - 1] = i;
        }
      }
      continue;
    }
    if (c === QUOTE) {
      inString = true;
      stringStart = i + 1;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth++;
      if (violation === undefined) {
        values++;
        if (depth > maxDepth) violation = `nests deeper than ${maxDepth} levels`;
        else if (values > maxValues) violation = `holds more than ${maxValues} values`;
        if (violation === undefined) {
          isObject[depth] = c === OPEN_OBJECT ? 1 : 0;
          commas[depth] = 0;
          // A new container: the key remembered at its depth belongs to an earlier sibling.
          if (depth <= PATH_DEPTH) keyStart[depth - 1] = -1;
        }
      }
      if (violation !== undefined && !violationPath) [violationInParams, violationPath] = locate(bytes, keyStart, keyEnd, depth);
      expectKey = c === OPEN_OBJECT;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (depth === 1 && idStart >= 0 && idText === undefined) idText = decode(bytes, idStart, i);
      depth--;
      expectKey = false;
    } else if (c === COMMA) {
      if (depth === 1 && idStart >= 0 && idText === undefined) idText = decode(bytes, idStart, i);
      if (violation === undefined && depth > 0 && depth <= maxDepth) {
        values++;
        const count = ++commas[depth]!;
        if (isObject[depth] === 1 && count >= maxObjectKeys) violation = `has an object with more than ${maxObjectKeys} keys`;
        else if (values > maxValues) violation = `holds more than ${maxValues} values`;
        if (violation !== undefined) [violationInParams, violationPath] = locate(bytes, keyStart, keyEnd, depth);
      }
      expectKey = isObject[Math.min(depth, maxDepth + 1)] === 1;
    } else if (c === COLON) {
      expectKey = false;
      if (depth === 1 && idStart < 0 && keyIs(bytes, keyStart[0]!, keyEnd[0]!, 'id')) idStart = i + 1;
    }
    // After an excess, only the top-level id is still of interest: stop once it is known.
    if (violation !== undefined && (idText !== undefined || (idStart < 0 && depth === 0))) break;
  }
  if (violation === undefined) return undefined;
  return {
    message: violationInParams ? `${violationPath} ${violation}` : `the message ${violation}`,
    inParams: violationInParams,
    id: idText === undefined ? undefined : parseId(idText),
  };
}

/** Whether the excess lies inside params, and the path to it as far as keys were remembered. */
function locate(bytes: Uint8Array, keyStart: Int32Array, keyEnd: Int32Array, depth: number): [boolean, string] {
  const inParams = depth > 1 && keyIs(bytes, keyStart[0]!, keyEnd[0]!, 'params');
  const parts: string[] = [];
  for (let d = 0; d < Math.min(depth - 1, PATH_DEPTH); d++) {
    const start = keyStart[d]!;
    if (start < 0) parts.push('[]');
    else parts.push(keyEnd[d]! - start <= MAX_KEY_BYTES ? decode(bytes, start, keyEnd[d]!) : '…');
  }
  return [inParams, parts.join('.') || 'the message'];
}

/** Whether the key between start and end is `literal` (ASCII), compared without decoding. */
function keyIs(bytes: Uint8Array, start: number, end: number, literal: string): boolean {
  if (start < 0 || end - start !== literal.length) return false;
  for (let i = 0; i < literal.length; i++) if (bytes[start + i] !== literal.charCodeAt(i)) return false;
  return true;
}

function decode(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('utf8');
}

function parseId(text: string): RequestId | undefined {
  if (text.length > MAX_ID_BYTES) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isValidId(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The error reply for a message over the budget: -32602 for a request whose params hold the excess, else -32600. */
export function budgetError(violation: BudgetViolation): ParsedMessage {
  if (violation.inParams && violation.id !== undefined) {
    return { kind: 'invalid', error: errorResponse(violation.id, ErrorCode.InvalidParams, `Invalid params: ${violation.message} (a limit this server sets)`) };
  }
  return { kind: 'invalid', error: errorResponse(undefined, ErrorCode.InvalidRequest, `Invalid Request: ${violation.message} (a limit this server sets)`) };
}

/**
 * Decodes one frame of bytes into a message: budget first (one pass, no allocation per value),
 * then JSON.parse, then the JSON-RPC envelope. Never throws.
 */
export function decodeMessage(bytes: Buffer, limits: ResolvedMessageLimits = DEFAULT_MESSAGE_LIMITS): ParsedMessage {
  const violation = scanMessage(bytes, limits);
  if (violation) return budgetError(violation);
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return { kind: 'invalid', error: errorResponse(undefined, ErrorCode.ParseError, `Parse error: ${reason}`) };
  }
  return classifyMessage(value);
}
