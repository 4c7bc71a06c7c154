import type { Logger } from 'pino';
import type { Principal } from '../auth/principal';
import type { ClientCapabilities, Implementation, LoggingLevel, ServerCapabilities } from '../protocol/types';
import type { MessageChannel } from './channel';
import type { McpEngine } from './engine';
import type { Session } from '../eras/legacy/session';
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

/**
 * What a request runs within: the engine, the framework logger for its lines, and the way to ask
 * the client something (a request on the call's stream in the legacy era; an input request
 * returned to the client and answered on its retry in the modern era).
 */
export interface RequestHost {
  readonly engine: McpEngine;
  /** The framework's logger for this request's lines. */
  readonly logger: Logger;
  /** The legacy session the request came on; absent in the modern era, which has none. */
  readonly session?: Session;
  /**
   * Whether the handler's next `method` question is answered already, so nothing goes to the client
   * (2026-07-28: a retry brings the answers to the last round); absent where every question is sent.
   */
  hasAnswerFor?(method: string): boolean;
  /** Sends the client a request and resolves with its result (or rejects with its error). */
  ask(method: string, params: Record<string, unknown>, channel: MessageChannel, options: AskOptions): Promise<Record<string, unknown>>;
}
