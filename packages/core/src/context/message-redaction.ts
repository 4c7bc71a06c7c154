/**
 * How a message appears in the debug log: secrets redacted first, then its JSON cut to a size.
 * Only ever called once the debug level is known to be on.
 */

/** Property names that look like they hold a secret. */
const SECRET_NAME = /token|passw|secret|api[-_]?key|authorization|cookie|credential|private[-_]?key/i;
/** Protocol fields whose names match but hold nothing secret: a request's progress token, sampling's token budget. */
const NOT_SECRET = new Set(['progressToken', 'maxTokens']);
/** A bearer credential written into a string (an Authorization header value), or a bare JWT. */
const BEARER = /\b(bearer)\s+[A-Za-z0-9\-._~+/]{8,}=*/gi;
const JWT = /\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;

export const REDACTED = '[redacted]';

/** Whether a property of this name has its value replaced in the debug log. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name) && !NOT_SECRET.has(name);
}

function redactString(value: string): string {
  return value.replace(BEARER, `$1 ${REDACTED}`).replace(JWT, REDACTED);
}

// A JSON.stringify replacer: array indexes never look secret, and the root's key is ''.
function redact(key: string, value: unknown): unknown {
  if (key !== '' && isSecretName(key)) return REDACTED;
  return typeof value === 'string' ? redactString(value) : value;
}

/** The message's redacted JSON, whole. */
export function redactedJson(message: unknown): string {
  try {
    return JSON.stringify(message, redact) ?? 'null';
  } catch (err) {
    return JSON.stringify(`[not serialisable: ${err instanceof Error ? err.message : String(err)}]`);
  }
}

/**
 * The fields a debug line carries for one message: `body` (the redacted message) when its JSON
 * fits in `maxBytes`, else `bodyText` (the JSON's first `maxBytes` bytes and a marker saying how
 * long it was); `bytes` is the length of the whole redacted JSON either way.
 */
export function loggedBody(message: unknown, maxBytes: number): { body: unknown; bytes: number } | { bodyText: string; bytes: number } {
  const json = redactedJson(message);
  const bytes = Buffer.byteLength(json);
  if (bytes <= maxBytes) return { body: JSON.parse(json) as unknown, bytes };
  return { bodyText: `${utf8Prefix(json, maxBytes)}… [truncated: ${bytes} bytes]`, bytes };
}

/** The longest prefix of `text` that is at most `maxBytes` of UTF-8, cut between characters. */
function utf8Prefix(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  let end = maxBytes;
  // A continuation byte (10xxxxxx) at the cut belongs to a character that started before it.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.toString('utf8', 0, end);
}
