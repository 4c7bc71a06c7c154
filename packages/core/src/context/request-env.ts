import type { Principal } from '../auth/principal';
import type { ClientCapabilities, Implementation, LoggingLevel, ServerCapabilities } from '../protocol/types';
import type { RequestId } from '../protocol/jsonrpc';

/**
 * The protocol eras a request can belong to. `legacy`: 2025-11-25 and earlier, where `initialize`
 * opens a session that holds the client's version, identity and capabilities. `modern`: 2026-07-28
 * and later, where every request carries them in its `_meta`.
 */
export type Era = 'legacy' | 'modern';

/**
 * Everything about the client a handler may read, whatever the era: the legacy side builds it from
 * the session `initialize` made, the modern side from the request's own `_meta`.
 */
export interface RequestEnv {
  readonly era: Era;
  readonly protocolVersion: string;
  readonly clientInfo?: Implementation;
  readonly clientCapabilities: ClientCapabilities;
  /** The threshold for notifications/message on this request; undefined: none are sent. */
  readonly logLevel: LoggingLevel | undefined;
  /** Who is calling (undefined when the server runs without auth). */
  readonly principal?: Principal;
  /** What the server offers this client: the capabilities handlers gate methods on. */
  readonly serverCapabilities: ServerCapabilities;
}

/** How a handler's question to the client is sent. */
export interface AskOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Told the id the request goes out under (a legacy session's request; a 2026-07-28 question has none). */
  onSent?: (id: RequestId) => void;
}
