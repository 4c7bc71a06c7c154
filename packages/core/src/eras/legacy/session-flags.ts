import { msSince } from '../../clock';
import type { SessionState } from '../../context/services';
import { LOGGING_LEVELS } from '../../protocol/log-levels';
import type { LoggingLevel } from '../../protocol/types';
import { TermsHolder } from './session-terms';

/** The time sessions' open times are counted from (see openedAt). */
const SINCE = Date.now();

/** `bits`: the state (two bits), whether unsolicited messages can reach the client, whether the session is stateless, and the client's log level (0: none, else 1 + its index in LOGGING_LEVELS). */
const STATES: readonly SessionState[] = ['new', 'initializing', 'ready', 'closed'];
const STATE_MASK = 0b11;
const UNSOLICITED = 1 << 2;
const STATELESS = 1 << 3;
const LEVEL_SHIFT = 4;

/**
 * A session's small values, each kept as a small integer V8 stores in the object itself: every
 * field is 8 bytes of each idle session, and a time since the epoch would be a 16-byte box.
 */
export abstract class SessionFlags extends TermsHolder {
  private bits: number;
  /** When the session opened, in ms after SINCE. */
  private opened = msSince(SINCE, Date.now());

  constructor(unsolicited: boolean, stateless: boolean, logLevel: LoggingLevel | undefined) {
    super();
    this.bits = (unsolicited ? UNSOLICITED : 0) | (stateless ? STATELESS : 0);
    if (logLevel !== undefined) this.logLevel = logLevel;
  }

  get state(): SessionState {
    return STATES[this.bits & STATE_MASK]!;
  }
  set state(state: SessionState) {
    const index = STATES.indexOf(state);
    if (index < 0) throw new TypeError(`not a session state: ${String(state)}`);
    this.bits = (this.bits & ~STATE_MASK) | index;
  }

  /** Whether anything can reach the client outside its own requests (false for stateless HTTP). */
  get unsolicited(): boolean {
    return (this.bits & UNSOLICITED) !== 0;
  }

  /** The session lives for one request (stateless HTTP): the server cannot ask the client anything. */
  get stateless(): boolean {
    return (this.bits & STATELESS) !== 0;
  }

  /** The client's log threshold: undefined until it calls logging/setLevel (unless the server sets a default). A value that is no level (a damaged shared record) counts as none. */
  get logLevel(): LoggingLevel | undefined {
    const level = this.bits >>> LEVEL_SHIFT;
    return level === 0 ? undefined : LOGGING_LEVELS[level - 1];
  }
  set logLevel(level: LoggingLevel | undefined) {
    const index = level === undefined ? -1 : LOGGING_LEVELS.indexOf(level);
    this.bits = (this.bits & ((1 << LEVEL_SHIFT) - 1)) | ((index + 1) << LEVEL_SHIFT);
  }

  /** When the session opened (ms since the epoch); a copy of a shared session takes the record's. */
  get openedAt(): number {
    return SINCE + this.opened;
  }
  set openedAt(at: number) {
    this.opened = msSince(SINCE, at);
  }
}
