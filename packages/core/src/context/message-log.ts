import type { Logger } from 'pino';
import type { JsonRpcMessage } from '../protocol/jsonrpc';
import type { MessageChannel } from './channel';
import { loggedBody } from './message-redaction';

/** What a session needs to log its messages at debug: where, as which session, and how much of each. */
export interface MessageLogTarget {
  readonly logger: Logger;
  /** The session field of each line (undefined: none). */
  readonly session: string | undefined;
  /** The most bytes of a message's JSON a line carries. */
  readonly maxBytes: number;
}

/** One debug line for a message in or out, secrets redacted, cut to size. Callers check the debug level first. */
export function logMessage(target: MessageLogTarget, direction: 'in' | 'out', message: JsonRpcMessage): void {
  target.logger.debug({ session: target.session, direction, ...loggedBody(message, target.maxBytes) }, 'mcp message');
}

/**
 * A channel that logs each message it carries (at debug, when that level is on at the time) before
 * passing it on. It forwards `open`, `deferred` and, only where the channel has it, `closeConnection`.
 */
export class LoggedChannel implements MessageChannel {
  readonly closeConnection?: (retryMs?: number) => void;

  constructor(
    readonly inner: MessageChannel,
    private readonly target: MessageLogTarget,
  ) {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called on inner, below
    const close = inner.closeConnection;
    if (close) this.closeConnection = (retryMs) => close.call(inner, retryMs);
  }

  get open(): boolean | undefined {
    return this.inner.open;
  }

  get deferred(): boolean | undefined {
    return this.inner.deferred;
  }

  send(message: JsonRpcMessage): void {
    if (this.target.logger.isLevelEnabled('debug')) logMessage(this.target, 'out', message);
    this.inner.send(message);
  }
}

/** `channel`, logging what it carries; a channel already logged is returned as it is. */
export function loggedChannel(channel: MessageChannel, target: MessageLogTarget): MessageChannel {
  return channel instanceof LoggedChannel ? channel : new LoggedChannel(channel, target);
}
