import type { JsonRpcMessage } from '../protocol/jsonrpc';

/**
 * Where a session writes. A transport gives each request a channel (stdio: the process's
 * stdout; HTTP: that POST's SSE stream) and each session an outlet for messages tied to no
 * request (stdio: stdout again; HTTP: the GET stream). Handlers never see a transport.
 */
export interface MessageChannel {
  send(message: JsonRpcMessage): void;
  /** False once the channel can carry nothing more (the stream closed). */
  readonly open?: boolean;
  /** True while what is sent is only held for later, not delivered (an HTTP session whose client opened no GET stream yet). */
  readonly deferred?: boolean;
  /**
   * Closes the connection under the channel without ending its stream (SSE polling, SEP-1699):
   * the client reconnects after `retryMs` and resumes from the last event id. Absent where the
   * transport has no resumable streams.
   */
  closeConnection?(retryMs?: number): void;
  /** Told once, as the session this channel is the outlet of ends (closed or released). */
  sessionEnded?(): void;
}
