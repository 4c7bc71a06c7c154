import { randomBytes } from 'node:crypto';

const ID_BYTES = 24;
/** Random bytes for the next 128 ids: one call into the CSPRNG per batch instead of per session. */
let idPool = Buffer.alloc(0);
let idOffset = 0;

/** A session id: 192 random bits, base64url (visible ASCII, as the spec requires). */
export function newSessionId(): string {
  if (idOffset + ID_BYTES > idPool.length) {
    idPool = randomBytes(ID_BYTES * 128);
    idOffset = 0;
  }
  const id = idPool.toString('base64url', idOffset, idOffset + ID_BYTES);
  // Used bytes are wiped: the pool never holds an id already handed out.
  idPool.fill(0, idOffset, idOffset + ID_BYTES);
  idOffset += ID_BYTES;
  return id;
}
