import type { ClientCapabilities, Implementation } from '../../protocol/types';

/**
 * What initialize keeps of a client's declaration, held once for every session that declared the
 * same: most sessions of a server come from a few kinds of client. Each table is bounded, so
 * clients inventing values cannot grow it: past the bound, a session keeps its own.
 */
const MAX_SHARED = 64;

/** The capabilities of a client that declares none: one object for every such session rather than each request's own. */
export const NO_CAPABILITIES: ClientCapabilities = Object.freeze({});
const SHARED_CAPABILITIES = new Map<string, ClientCapabilities>();
/** Longer declarations are each session's own (the key is their JSON). */
const MAX_SHARED_CAPABILITIES_JSON = 1024;

const SHARED_INFOS = new Map<string, Implementation>();
const MAX_SHARED_FIELD = 128;

/** Every value these tables (and the engine, for its capabilities) handed out: what a table of whole agreements may hold (see session-terms.ts). */
const SHARED_VALUES = new WeakSet<object>([NO_CAPABILITIES]);

/** Marks `value` as one object many sessions hold, bounded in size and number by whoever made it (the engine's capabilities). */
export function markShared<T extends object>(value: T): T {
  SHARED_VALUES.add(value);
  return value;
}

/** Whether `value` is one these tables (or markShared) handed out. */
export function isShared(value: object): boolean {
  return SHARED_VALUES.has(value);
}

function declaresNone(capabilities: Record<string, unknown>): boolean {
  for (const key in capabilities) if (Object.hasOwn(capabilities, key)) return false;
  return true;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
}

/** `capabilities`, or an equal deeply frozen copy shared with the sessions before that declared the same. */
export function sharedCapabilities(capabilities: Record<string, unknown>): ClientCapabilities {
  if (declaresNone(capabilities)) return NO_CAPABILITIES;
  const key = JSON.stringify(capabilities);
  if (key.length > MAX_SHARED_CAPABILITIES_JSON) return capabilities as ClientCapabilities;
  let shared = SHARED_CAPABILITIES.get(key);
  if (shared === undefined) {
    if (SHARED_CAPABILITIES.size >= MAX_SHARED) return capabilities as ClientCapabilities;
    // A copy: the request's own params stay the caller's to change.
    shared = markShared(deepFreeze(JSON.parse(key) as ClientCapabilities));
    SHARED_CAPABILITIES.set(key, shared);
  }
  return shared;
}

/** `info`, or an equal frozen copy shared with the sessions before that sent the same name, version and title (and nothing else). */
export function sharedInfo(info: Record<string, unknown>): Implementation {
  const { name, version, title } = info as { name: string; version: string; title?: string };
  let fields = 0;
  for (const key in info) if (Object.hasOwn(info, key)) fields++;
  if (fields !== (title === undefined ? 2 : 3) || (title !== undefined && typeof title !== 'string')) return info as unknown as Implementation;
  if (name.length > MAX_SHARED_FIELD || version.length > MAX_SHARED_FIELD || (title?.length ?? 0) > MAX_SHARED_FIELD) return info as unknown as Implementation;
  // JSON: no two different triples give one key (a separator could appear inside a name).
  const key = JSON.stringify([name, version, title]);
  let shared = SHARED_INFOS.get(key);
  if (shared === undefined) {
    if (SHARED_INFOS.size >= MAX_SHARED) return info as unknown as Implementation;
    shared = markShared(Object.freeze(title === undefined ? { name, version } : { name, version, title }));
    SHARED_INFOS.set(key, shared);
  }
  return shared;
}
