import type { Principal } from '../../auth/principal';
import type { ClientCapabilities, Implementation, LoggingLevel, ServerCapabilities } from '../../protocol/types';
import type { RequestEnv } from '../../context/request-env';
import type { SessionTerms } from './session-terms';

/** What SessionEnv reads of its session: kept structural, so this file and session.ts do not import each other. */
interface SessionState {
  readonly terms: SessionTerms;
  readonly logLevel: LoggingLevel | undefined;
}

/**
 * A legacy request's view of its session: its terms as they were when the request came (one
 * shared object), its log level read live. A class, not an object literal with a getter: in V8 a
 * getter in an object literal keeps what it closes over alive through minor collections, and a
 * stateless session (with its whole request) was promoted to old space on every call.
 */
export class SessionEnv implements RequestEnv {
  readonly era = 'legacy' as const;
  readonly #terms: SessionTerms;
  readonly #session: SessionState;

  constructor(
    session: SessionState,
    readonly principal: Principal | undefined,
  ) {
    this.#session = session;
    this.#terms = session.terms;
  }

  get protocolVersion(): string {
    return this.#terms.protocolVersion;
  }
  get clientInfo(): Implementation | undefined {
    return this.#terms.clientInfo;
  }
  get clientCapabilities(): ClientCapabilities {
    return this.#terms.clientCapabilities;
  }
  get serverCapabilities(): ServerCapabilities {
    return this.#terms.serverCapabilities;
  }

  /** Read live: logging/setLevel applies to requests already running. */
  get logLevel(): LoggingLevel | undefined {
    return this.#session.logLevel;
  }
}
