import { ErrorCode } from '../../protocol/errors';
import { META } from '../../protocol/claim';

export { META, claimedVersion } from '../../protocol/claim';
import type { JsonRpcRequest } from '../../protocol/jsonrpc';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../../protocol/types';
import { ALL_PROTOCOL_VERSIONS, isModernProtocolVersion } from '../../protocol/versions';
import { LOGGING_LEVELS, isLoggingLevel } from '../../protocol/log-levels';

/** What a modern request says about its client, read from its `_meta` once. */
export interface ModernClaim {
  protocolVersion: string;
  clientInfo?: Implementation;
  clientCapabilities: ClientCapabilities;
  logLevel?: LoggingLevel;
}

/** Why a modern request is refused before dispatch: its JSON-RPC error, and the HTTP status a transport answers it with. */
export interface ModernRefusal {
  code: number;
  message: string;
  data?: unknown;
  httpStatus: number;
}

export function unsupportedVersion(requested: unknown): ModernRefusal {
  return {
    code: ErrorCode.UnsupportedProtocolVersion,
    message: `Unsupported protocol version: ${JSON.stringify(requested)}; this server supports ${ALL_PROTOCOL_VERSIONS.join(', ')}`,
    data: { supported: [...ALL_PROTOCOL_VERSIONS], requested },
    httpStatus: 400,
  };
}

function malformed(message: string): ModernRefusal {
  return { code: ErrorCode.InvalidParams, message, httpStatus: 400 };
}

/**
 * Reads and checks the per-request fields of a modern request's `_meta`: the protocol version
 * (required, one this server serves in the modern era), client capabilities (required, an object),
 * client info and log level (optional, well-formed when present). `anyVersion`: leave the version
 * unchecked, for a transport that must compare it with its own header first (HTTP: a mismatch is
 * told before an unsupported version).
 */
export function readModernClaim(request: Pick<JsonRpcRequest, 'params' | 'method'>, options: { anyVersion?: boolean } = {}): ModernClaim | ModernRefusal {
  const meta = request.params?._meta as Record<string, unknown> | undefined;
  if (meta === undefined || meta === null || typeof meta !== 'object' || Array.isArray(meta)) {
    return malformed(`${request.method}: params._meta must carry "${META.protocolVersion}" and "${META.clientCapabilities}" (protocol 2026-07-28 and later)`);
  }
  const version = meta[META.protocolVersion];
  if (version === undefined) return malformed(`${request.method}: params._meta["${META.protocolVersion}"] is missing`);
  if (typeof version !== 'string') return malformed(`${request.method}: params._meta["${META.protocolVersion}"] must be a string`);
  if (!options.anyVersion && !isModernProtocolVersion(version)) return unsupportedVersion(version);
  const capabilities = meta[META.clientCapabilities];
  if (capabilities === undefined) return malformed(`${request.method}: params._meta["${META.clientCapabilities}"] is missing`);
  if (capabilities === null || typeof capabilities !== 'object' || Array.isArray(capabilities)) {
    return malformed(`${request.method}: params._meta["${META.clientCapabilities}"] must be an object`);
  }
  const claim: ModernClaim = { protocolVersion: version, clientCapabilities: capabilities as ClientCapabilities };
  const info = meta[META.clientInfo];
  if (info !== undefined) {
    const i = info as Record<string, unknown> | null;
    if (i === null || typeof i !== 'object' || typeof i.name !== 'string' || typeof i.version !== 'string') {
      return malformed(`${request.method}: params._meta["${META.clientInfo}"] must be an object with string "name" and "version"`);
    }
    claim.clientInfo = info as Implementation;
  }
  const level = meta[META.logLevel];
  if (level !== undefined) {
    if (!isLoggingLevel(level)) {
      return malformed(`${request.method}: params._meta["${META.logLevel}"] must be one of ${LOGGING_LEVELS.join(', ')}, got ${JSON.stringify(level)}`);
    }
    claim.logLevel = level;
  }
  return claim;
}

export function isRefusal(value: ModernClaim | ModernRefusal): value is ModernRefusal {
  return 'httpStatus' in value;
}
