import type { RequestId } from '../protocol/jsonrpc';
import type { ClientCapabilities, Implementation, Meta } from '../protocol/types';
import type { MessageChannel } from './channel';
import { McpLogger } from './mcp-logger';
import type { Session } from './session';

/**
 * What a handler gets besides its input: the abort signal, progress, a logger that reaches the
 * client, and who is asking. One per request; everything per-request lives here, not in globals.
 */
export class RequestContext {
  private logger?: McpLogger;
  private lastProgress = -Infinity;
  /** Set when the response has been produced: progress after that is dropped, as the spec requires. */
  done = false;

  constructor(
    readonly session: Session,
    readonly requestId: RequestId,
    readonly method: string,
    /** The request's `_meta`, as sent. */
    readonly meta: Meta | undefined,
    readonly signal: AbortSignal,
    readonly channel: MessageChannel,
  ) {}

  get sessionId(): string {
    return this.session.id;
  }

  get protocolVersion(): string {
    return this.session.protocolVersion;
  }

  get clientInfo(): Implementation | undefined {
    return this.session.clientInfo;
  }

  get clientCapabilities(): ClientCapabilities {
    return this.session.clientCapabilities;
  }

  /** The progress token the client sent, if any: progress is only reported when there is one. */
  get progressToken(): string | number | undefined {
    const token = this.meta?.progressToken;
    return typeof token === 'string' || typeof token === 'number' ? token : undefined;
  }

  /** Logs to pino (with session and request ids) and, at or above the session's level, to the client. */
  get log(): McpLogger {
    return (this.logger ??= new McpLogger(this.session.logger.child({ requestId: this.requestId }), this.session, this.channel));
  }

  /**
   * Reports progress on this request. Sent only when the request carried a progressToken;
   * values must increase, so a repeated or smaller value is dropped.
   */
  progress(progress: number, total?: number, message?: string): void {
    const progressToken = this.progressToken;
    if (progressToken === undefined || this.done || this.signal.aborted) return;
    if (!(progress > this.lastProgress)) {
      this.session.logger.debug({ requestId: this.requestId, progress, last: this.lastProgress }, 'progress must increase; dropped');
      return;
    }
    this.lastProgress = progress;
    const params: Record<string, unknown> = { progressToken, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.channel.send({ jsonrpc: '2.0', method: 'notifications/progress', params });
  }

  /**
   * Closes the connection carrying this request's stream, keeping the stream (HTTP SSE polling):
   * the client comes back with Last-Event-ID and gets what was sent meanwhile, then the result.
   * Returns false where the transport cannot do that (stdio, JSON responses).
   */
  closeStream(retryMs?: number): boolean {
    if (!this.channel.closeConnection) return false;
    this.channel.closeConnection(retryMs);
    return true;
  }

  /** Tells subscribers of `uri` (in every session) that it changed. */
  notifyResourceUpdated(uri: string): void {
    this.session.engine.notifyResourceUpdated(uri);
  }
}
