import type { ParsedMessage } from '../protocol/jsonrpc';
import { isModernProtocolVersion } from '../protocol/versions';
import { claimedVersion } from '../protocol/claim';
import type { Era } from '../context/request-env';

/**
 * The one place a message's era is decided: modern (2026-07-28 and later) when its `_meta` claims a
 * protocol version, or when the transport carries a version of its own (HTTP's
 * MCP-Protocol-Version header) that names a modern one; legacy otherwise. Only requests and
 * notifications can claim; responses and invalid messages belong to whatever session they came on.
 */
export function eraOf(parsed: ParsedMessage, transportVersion?: unknown): Era {
  if (transportVersion !== undefined && isModernProtocolVersion(transportVersion)) return 'modern';
  if (parsed.kind !== 'request' && parsed.kind !== 'notification') return 'legacy';
  return claimedVersion(parsed.message) !== undefined ? 'modern' : 'legacy';
}
