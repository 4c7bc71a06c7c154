/** node-redis replies as the plain values RedisCommands promises. */
import type { ScoredMember, StreamBatch, StreamEntry } from './commands';
type Reply = unknown;

// Replies come as RESP3 by default (maps as objects, pairs as arrays); RESP2 shapes (flat arrays)
// are read as well, so the client's protocol choice does not matter here.

export function asString(reply: Reply): string {
  return Buffer.isBuffer(reply) ? reply.toString('utf8') : String(reply);
}

export function asStringOrNull(reply: Reply): string | null {
  return reply === null || reply === undefined ? null : asString(reply);
}

export function asStrings(reply: Reply): string[] {
  if (reply instanceof Set) return [...reply].map(asString);
  return Array.isArray(reply) ? reply.map(asString) : [];
}

function pairs(reply: Reply): [Reply, Reply][] {
  if (reply === null || reply === undefined) return [];
  if (reply instanceof Map) return [...reply.entries()];
  if (Array.isArray(reply)) {
    if (reply.every((item) => Array.isArray(item) && item.length === 2)) return reply as [Reply, Reply][];
    const out: [Reply, Reply][] = [];
    for (let i = 0; i + 1 < reply.length; i += 2) out.push([reply[i], reply[i + 1]]);
    return out;
  }
  if (typeof reply === 'object') return Object.entries(reply as Record<string, Reply>);
  return [];
}

export function asRecord(reply: Reply): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [field, value] of pairs(reply)) record[asString(field)] = asString(value);
  return record;
}

export function asScoredMembers(reply: Reply): ScoredMember[] {
  return pairs(reply).map(([member, score]) => ({ member: asString(member), score: Number(asString(score)) }));
}

export function asEntries(reply: Reply): StreamEntry[] {
  if (!Array.isArray(reply)) return [];
  return reply.map((entry) => {
    const [id, fields] = entry as [Reply, Reply];
    // Fields are a flat [field, value, ...] list in both protocols.
    const record: Record<string, string> = {};
    if (Array.isArray(fields)) for (let i = 0; i + 1 < fields.length; i += 2) record[asString(fields[i])] = asString(fields[i + 1]);
    else Object.assign(record, asRecord(fields));
    return { id: asString(id), fields: record };
  });
}

export function asBatches(reply: Reply): StreamBatch[] {
  return pairs(reply).map(([key, entries]) => ({ key: asString(key), entries: asEntries(entries) }));
}
