/**
 * Protocol revisions this server speaks, newest first, by era. Modern revisions (2026-07-28 on)
 * carry their version in every request's `_meta`; legacy ones negotiate it once, at `initialize`.
 */
export const MODERN_PROTOCOL_VERSIONS = ['2026-07-28'] as const;
/** Legacy revisions, newest first. The first is offered when an `initialize` asks for one we do not know. */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
export type ProtocolVersion = (typeof SUPPORTED_PROTOCOL_VERSIONS)[number];
export type ModernProtocolVersion = (typeof MODERN_PROTOCOL_VERSIONS)[number];
export const LATEST_PROTOCOL_VERSION: ProtocolVersion = SUPPORTED_PROTOCOL_VERSIONS[0];
/** Every version this server serves, newest first: what server/discover and -32022 list. */
export const ALL_PROTOCOL_VERSIONS: readonly string[] = [...MODERN_PROTOCOL_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS];

/** A legacy version `initialize` (and the legacy MCP-Protocol-Version header) accepts. */
export function isSupportedProtocolVersion(version: unknown): version is ProtocolVersion {
  return typeof version === 'string' && (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(version);
}

export function isModernProtocolVersion(version: unknown): version is ModernProtocolVersion {
  return typeof version === 'string' && (MODERN_PROTOCOL_VERSIONS as readonly string[]).includes(version);
}
