import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { McpxError } from '../../errors';

/**
 * The sealed `requestState` of a multi round-trip request. The client carries it between rounds
 * and may change it, so it is attacker-controlled: it is sealed with AES-256-GCM under the server's
 * key (integrity and confidentiality), and bound to the principal, the request it belongs to and an
 * expiry, all checked when it comes back. Every instance of a deployment must share the key
 * (`requestStateKey`, or MCPX_REQUEST_STATE_KEY, or the cluster's shared secret); without one, each
 * process makes its own, so a retry must reach the instance that asked.
 */

export interface StatePayload {
  /** The method and a digest of the request's salient params (what was asked on which call). */
  request: string;
  /** Who asked: a different principal cannot present the state. */
  principal: string;
  /** Milliseconds since the epoch after which the state is refused. */
  expiresAt: number;
  /** Answers collected in earlier rounds, by input key. */
  answers: Record<string, unknown>;
  /** The keys asked in the last round: only their answers are taken from inputResponses. */
  asked: string[];
  /** What a handler keeps between rounds itself (the lower-level form), if anything. */
  state?: unknown;
}

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Why a presented requestState is refused; the message says which check failed. */
export class RequestStateError extends McpxError {
  constructor(message: string) {
    super('MCPX_REQUEST_STATE', message);
  }
}

/** How many keys a sealer accepts: the current one and those it replaced, newest first. */
const KEPT_KEYS = 3;

export class RequestStateSealer {
  /** Newest first: states are sealed with the first and opened with any of them. */
  private keys: Buffer[];

  /** `secret`: any string or bytes (hashed to the 256-bit key); absent: a random key for this process. */
  constructor(secret?: string | Uint8Array) {
    this.keys = [secret === undefined ? randomBytes(32) : deriveKey(secret)];
  }

  /**
   * Seals with `secret` from now on, still opening what the previous keys sealed: a shared key that
   * changed (Redis lost it and another instance made a new one) is taken up without refusing the
   * rounds already in flight. True when the key changed.
   */
  rotate(secret: string | Uint8Array): boolean {
    const key = deriveKey(secret);
    if (key.equals(this.keys[0]!)) return false;
    this.keys = [key, ...this.keys.filter((kept) => !kept.equals(key))].slice(0, KEPT_KEYS);
    return true;
  }

  seal(payload: StatePayload): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys[0]!, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify({ v: VERSION, ...payload }), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** Opens a state and checks its binding; throws RequestStateError saying why it is refused. */
  open(sealed: string, expected: { request: string; principal: string; now: number }): StatePayload {
    const bytes = Buffer.from(sealed, 'base64url');
    let payload: (StatePayload & { v?: number }) | undefined;
    if (bytes.length >= IV_BYTES + TAG_BYTES + 2) for (const key of this.keys) if ((payload = unseal(key, bytes))) break;
    if (!payload) throw new RequestStateError('requestState failed verification: it was not issued by this server, or it was altered');
    if (payload.v !== VERSION || typeof payload.expiresAt !== 'number' || !Array.isArray(payload.asked) || typeof payload.answers !== 'object') {
      throw new RequestStateError('requestState failed verification: unknown format');
    }
    if (payload.principal !== expected.principal) throw new RequestStateError('requestState was issued to another principal');
    if (payload.request !== expected.request) throw new RequestStateError('requestState was issued for a different request (method, name or arguments differ)');
    if (payload.expiresAt <= expected.now) throw new RequestStateError('requestState has expired: send the request again without it');
    return payload;
  }
}

function deriveKey(secret: string | Uint8Array): Buffer {
  return createHash('sha256').update('mcpx request state\0').update(secret).digest();
}

/** The payload `bytes` hold if `key` sealed them; undefined if it did not (or they were altered). */
function unseal(key: Buffer, bytes: Buffer): (StatePayload & { v?: number }) | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const text = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    return JSON.parse(text) as StatePayload & { v?: number };
  } catch {
    return undefined;
  }
}

/** A digest of what identifies a request across its rounds: method, and the params other than `_meta`, `inputResponses` and `requestState`. */
export function requestDigest(method: string, params: Record<string, unknown> | undefined): string {
  const hash = createHash('sha256').update(method).update('\0');
  if (params) {
    for (const key of Object.keys(params).sort()) {
      if (key === '_meta' || key === 'inputResponses' || key === 'requestState') continue;
      hash.update(key).update('\0').update(stableJson(params[key])).update('\0');
    }
  }
  return `${method} ${hash.digest('base64url')}`;
}

/** JSON with object keys sorted, so that a client that re-serialises the same params gets the same digest. */
function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  return `{${Object.keys(obj)
    .sort()
    .filter((k) => obj[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${stableJson(obj[k])}`)
    .join(',')}}`;
}
