import type { Principal } from '../../auth/principal';
import type { ClientCapabilities, Implementation, LoggingLevel, ServerCapabilities } from '../../protocol/types';
import type { RequestEnv } from '../../context/request-env';

/** What SessionEnv reads of its session: kept structural, so this file and session.ts do not import each other. */
interface SessionState {
  readonly protocolVersion: string;
  readonly clientInfo?: Implementation;
  readonly clientCapabilities: ClientCapabilities;
  readonly serverCapabilities: ServerCapabilities;
  readonly logLevel: LoggingLevel | undefined;
}

/**
 * A legacy request's view of its session. A class, not an object literal with a getter: in V8 a
 * getter in an object literal keeps what it closes over alive through minor collections, and a
 * stateless session (with its whole request) was promoted to old space on every call.
 */
export class SessionEnv implements RequestEnv {
  readonly era = 'legacy' as const;
  readonly protocolVersion: string;
  readonly clientInfo?: Implementation;
  readonly clientCapabilities: ClientCapabilities;
  readonly serverCapabilities: ServerCapabilities;
  readonly #session: SessionState;

  constructor(
    session: SessionState,
    readonly principal: Principal | undefined,
  ) {
    this.#session = session;
    this.protocolVersion = session.protocolVersion;
    this.clientInfo = session.clientInfo;
    this.clientCapabilities = session.clientCapabilities;
    this.serverCapabilities = session.serverCapabilities;
  }

  /** Read live: logging/setLevel applies to requests already running. */
  get logLevel(): LoggingLevel | undefined {
    return this.#session.logLevel;
  }
}
