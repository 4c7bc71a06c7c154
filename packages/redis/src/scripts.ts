import { createHash } from 'node:crypto';
import type { LuaScript } from './commands';

export function luaScript(source: string): LuaScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * Changes fields of a hash only if the hash exists, so an update racing an expiry or a delete
 * never brings back a partial record. Fields hold JSON text, set and removed as they are: nothing
 * is decoded in Lua (whose JSON codec would turn `[]` into `{}` and round numbers).
 *
 * KEYS[1] the hash. ARGV[1] new ttl in ms ('' keeps it); ARGV[2] '1' to return the whole hash;
 * ARGV[3] n, the number of fields to set; then n field/value pairs; then the fields to remove.
 * Returns false when the hash does not exist; else the hash (flat) or 1.
 */
export const UPDATE_HASH = luaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local n = tonumber(ARGV[3])
if n > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 4, 3 + 2 * n)) end
if #ARGV > 3 + 2 * n then redis.call('HDEL', KEYS[1], unpack(ARGV, 4 + 2 * n, #ARGV)) end
if ARGV[1] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
if ARGV[2] == '1' then return redis.call('HGETALL', KEYS[1]) end
return 1
`);

/** The arguments of UPDATE_HASH. `set` values are written as given; `remove` lists fields to delete. */
export function updateHashArgs(set: Record<string, string>, remove: string[], options: { ttlMs?: number; returnAll?: boolean } = {}): string[] {
  const entries = Object.entries(set);
  const args = [options.ttlMs === undefined ? '' : String(Math.max(1, Math.ceil(options.ttlMs))), options.returnAll ? '1' : '0', String(entries.length)];
  for (const [field, value] of entries) args.push(field, value);
  args.push(...remove);
  return args;
}

/** A flat [field, value, ...] reply (what a script returns for HGETALL) as a record. */
export function flatRecord(reply: unknown): Record<string, string> | undefined {
  if (!Array.isArray(reply)) return undefined;
  const record: Record<string, string> = {};
  for (let i = 0; i + 1 < reply.length; i += 2) record[String(reply[i])] = String(reply[i + 1]);
  return record;
}

/**
 * One turn of a request stream, written at once: its opening entry `0-1` (the request id), its
 * events at the seqs they went out with, its end entry, and the stream's ttl. The session's index
 * of streams lists a stream from its opening until it ends delivered in full (then it only waits
 * out its short retention), so dropping a session finds every stream that may still be read.
 *
 * KEYS[1] the stream, KEYS[2] the session's stream index. ARGV[1] maxlen; ARGV[2] ttl in ms;
 * ARGV[3] the request id (JSON) to open with, or ''; ARGV[4] '' (not ended), 'kept' (ended, still
 * listed) or 'delivered' (ended, delivered in full); ARGV[5] the stream id (the index's member);
 * then seq/data pairs.
 */
export const WRITE_STREAM = luaScript(`
if ARGV[3] ~= '' then
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '0-1', 'o', ARGV[3])
  redis.call('SADD', KEYS[2], ARGV[5])
  redis.call('PEXPIRE', KEYS[2], ARGV[2], 'GT')
  redis.call('PEXPIRE', KEYS[2], ARGV[2], 'NX')
end
for i = 6, #ARGV, 2 do
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '0-' .. ARGV[i], 'd', ARGV[i + 1])
end
if ARGV[4] ~= '' then
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '0-*', 'e', '1')
  if ARGV[4] == 'delivered' then redis.call('SREM', KEYS[2], ARGV[5]) end
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`);
