import type { Logger } from 'pino';
import type { JsonRpcNotification, JsonRpcResponse, RequestId } from '../protocol/jsonrpc';
import { encodeMessage } from '../protocol/jsonrpc';
import type { LoggingLevel } from '../protocol/types';
import { passes } from '../protocol/log-levels';
import type { Session } from '../eras/legacy/session';
import type { ListenSubscriptions } from '../eras/modern/subscriptions';
import type { Cluster, ClusterMessage } from '../cluster/cluster';
import { isMcpxError } from '../errors';

/** The standalone (GET) stream of a session: what no request asked for goes there. */
const STANDALONE = '0';
/** Every instance may raise the same list change (their registries change alike): one fan-out is enough. Raised within this window, it is the same change. */
const LIST_CHANGE_WINDOW_MS = 250;
/** Sessions written to at once by one fan-out (each costs an append to its stream): a fan-out to thousands goes in slices. */
const FAN_OUT_SLICE = 256;

/** What the engine lets the cluster reach on this instance. */
export interface LocalInstance {
  readonly logger: Logger;
  readonly subscriptions: ListenSubscriptions;
  getSession(id: string): Session | undefined;
  /** A task's record changed elsewhere: wake what waits for it here. */
  taskChanged(taskId: string): void;
  /** Stop a task's work running here. */
  cancelTask(taskId: string): void;
  /** Answers for a task's work running here. */
  answerTask(taskId: string, responses: Record<string, unknown>): void;
}

export type SessionEvent = { type: 'sessionClosed' | 'sessionChanged'; sessionId: string };

/**
 * The engine's side of a Cluster: fans what goes to many sessions out through the shared event
 * log (so it reaches a session wherever its client listens, and waits there while it does not),
 * routes what must reach the instance doing the work, and applies what other instances send.
 */
export class ClusterLink {
  private readonly sessionListeners: ((event: SessionEvent) => void)[] = [];
  /**
   * Fan-outs running, by what they announce (`resources/updated` of one uri, one list_changed):
   * the same news raised again meanwhile is one more run after the current one, with the latest
   * contents. These notifications say "changed, read again", so one after the last change is all a
   * subscriber needs; running one per change let a burst of writes, or a slow Redis, pile up
   * thousands of appends in flight (one per session and change).
   */
  private readonly fanOuts = new Map<string, { again: boolean; contents?: string }>();

  constructor(
    readonly cluster: Cluster,
    private readonly local: LocalInstance,
  ) {
    cluster.bus.onMessage((message) => this.receive(message));
  }

  get instanceId(): string {
    return this.cluster.instanceId;
  }

  /** Transports hear about sessions closed or changed elsewhere (to end their streams, reload their copy). */
  onSessionEvent(listener: (event: SessionEvent) => void): void {
    this.sessionListeners.push(listener);
  }

  /** A client's answer to a request `asker` sent. */
  routeAnswer(session: Session, asker: string, response: JsonRpcResponse): void {
    this.cluster.bus.send(asker, { type: 'answer', sessionId: session.id, response }).catch(this.failed('pass on a client answer'));
  }

  /** A client cancelled a request not running here: whichever instance runs it stops it. */
  routeCancel(session: Session, requestId: RequestId, reason: string | undefined): void {
    this.cluster.bus.broadcast({ type: 'cancel', sessionId: session.id, requestId, reason }).catch(this.failed('pass on a cancellation'));
  }

  /** A session's record changed here (its log level): copies elsewhere reload it. */
  sessionChanged(sessionId: string): void {
    this.cluster.bus.broadcast({ type: 'sessionChanged', sessionId }).catch(this.failed('announce a session change'));
  }

  /** A session was deleted here: copies elsewhere stop. */
  sessionClosed(sessionId: string): void {
    this.cluster.bus.broadcast({ type: 'sessionClosed', sessionId }).catch(this.failed('announce a closed session'));
  }

  taskChanged(taskId: string): void {
    this.cluster.bus.broadcast({ type: 'taskChanged', taskId }).catch(this.failed('announce a task change'));
  }

  /** Sends a task's cancellation or answers to the instance running it. */
  toRunner(runner: string, message: ClusterMessage & { type: 'taskCancel' | 'taskInput' }): Promise<void> {
    return this.cluster.bus.send(runner, message);
  }

  /** resources/updated: to every session subscribed to `uri`, and to listen streams on every instance. */
  resourceUpdated(uri: string): void {
    this.local.subscriptions.resourceUpdated(uri);
    this.coalesced(`resources/updated ${uri}`, 'resources/updated', undefined, async () => {
      await this.cluster.bus.broadcast({ type: 'resourceUpdated', uri });
      const notification: JsonRpcNotification = { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } };
      await this.appendToAll(await this.cluster.sessions.subscribers(uri), notification);
    });
  }

  /**
   * list_changed: to every session (the engine checked that sessions are offered it), and to listen
   * streams everywhere. With `contents` (the list's digest after a registry change, which every
   * instance whose registry changed alike raises), only the first instance to claim it sends.
   */
  listChanged(method: string, contents?: string): void {
    this.local.subscriptions.listChanged(method);
    this.coalesced(method, method, contents, async (latest) => {
      if (latest !== undefined && !(await this.cluster.claim(`list:${method}:${latest}`, LIST_CHANGE_WINDOW_MS))) return;
      await this.cluster.bus.broadcast({ type: 'listChanged', method });
      await this.appendToAll(await this.cluster.sessions.ids(), { jsonrpc: '2.0', method });
    });
  }

  /** A server-wide log line: to every session whose level lets it through. */
  log(level: LoggingLevel, message: string, data?: Record<string, unknown>): void {
    void this.fanOut('log', async () => {
      const ids = await this.cluster.sessions.ids();
      const records = await Promise.all(ids.map((id) => this.cluster.sessions.peek(id)));
      const notification: JsonRpcNotification = {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level, data: data === undefined ? message : { message, ...data } },
      };
      const to = ids.filter((_, i) => {
        const threshold = records[i]?.logLevel;
        return threshold !== undefined && passes(level, threshold);
      });
      await this.appendToAll(to, notification);
    });
  }

  private async appendToAll(sessionIds: string[], message: JsonRpcNotification): Promise<void> {
    if (sessionIds.length === 0) return;
    const data = encodeMessage(message);
    for (let i = 0; i < sessionIds.length; i += FAN_OUT_SLICE) {
      await Promise.all(sessionIds.slice(i, i + FAN_OUT_SLICE).map((id) => this.cluster.events.append(id, STANDALONE, message, data)));
    }
  }

  /** Runs the fan-out `key` now, or once more after the one running (see `fanOuts`); `contents`: the latest wins; `what`: for the log. */
  private coalesced(key: string, what: string, contents: string | undefined, run: (contents: string | undefined) => Promise<void>): void {
    const running = this.fanOuts.get(key);
    if (running) {
      running.again = true;
      running.contents = contents;
      return;
    }
    const state = { again: false, contents };
    this.fanOuts.set(key, state);
    void (async () => {
      try {
        do {
          state.again = false;
          await this.fanOut(what, () => run(state.contents));
        } while (state.again);
      } finally {
        this.fanOuts.delete(key);
      }
    })();
  }

  private async fanOut(what: string, run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (err) {
      this.logOutage(err, { err, what }, 'could not send to the sessions of other instances');
    }
  }

  private receive(message: ClusterMessage): void {
    const local = this.local;
    switch (message.type) {
      case 'answer':
        local.getSession(message.sessionId)?.handleResponse(message.response, true);
        return;
      case 'cancel':
        local.getSession(message.sessionId)?.cancelRequest(message.requestId, message.reason);
        return;
      case 'sessionClosed':
      case 'sessionChanged':
        for (const listener of this.sessionListeners) listener({ type: message.type, sessionId: message.sessionId });
        return;
      case 'listChanged':
        local.subscriptions.listChanged(message.method);
        return;
      case 'resourceUpdated':
        local.subscriptions.resourceUpdated(message.uri);
        return;
      case 'taskChanged':
        local.taskChanged(message.taskId);
        return;
      case 'taskCancel':
        local.cancelTask(message.taskId);
        return;
      case 'taskInput':
        local.answerTask(message.taskId, message.responses);
        return;
    }
  }

  logFailure(err: unknown, what: string): void {
    this.logOutage(err, { err }, `could not ${what} to the other instances`);
  }

  /** The shared store out of reach (a failover, a restart) is a warning, like the 503s answered meanwhile; anything else an error. */
  private logOutage(err: unknown, fields: object, message: string): void {
    if (isMcpxError(err, 'MCPX_CLUSTER_UNAVAILABLE')) this.local.logger.warn(fields, message);
    else this.local.logger.error(fields, message);
  }

  private failed(what: string): (err: unknown) => void {
    return (err) => this.logFailure(err, what);
  }
}
