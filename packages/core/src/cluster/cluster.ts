import type { RateLimitStore } from '../policies/rate-limit';
import type { Principal } from '../auth/principal';
import type { JsonRpcResponse, RequestId } from '../protocol/jsonrpc';
import type { ClientCapabilities, Implementation, LoggingLevel, ServerCapabilities } from '../protocol/types';
import type { EventStore, StoredEvent } from '../stores/event-store';
import type { TaskStore } from '../stores/task-store';
import { McpxError } from '../errors';

/**
 * What several instances of one server share so that any of them can serve any request: the
 * 2025-11-25 session records, the SSE event log, tasks, and a bus for what must reach the
 * instance doing the work. The work itself (a running tool, its pending questions to the client)
 * stays on the instance that runs it; everything a client may come back for is in the cluster.
 * `@mcpx/redis` implements it; without one, everything stays in the process (the default).
 */
export interface Cluster {
  /** This instance's id: unique among live instances, short, [A-Za-z0-9] only (it prefixes ids clients see). */
  readonly instanceId: string;
  readonly sessions: SessionStore;
  readonly events: SharedEventLog;
  readonly tasks: TaskStore;
  readonly bus: ClusterBus;
  /** Rate limit counters every instance shares (absent: each instance counts alone). */
  readonly rateLimits?: RateLimitStore;
  /** False while the shared store cannot be reached: /readyz says so and requests get 503. */
  readonly ready: boolean;
  /** Whether an instance still holds its lease (it renews it while alive; a killed one's lapses). */
  isAlive(instanceId: string): Promise<boolean>;
  /**
   * True for the first instance to claim `key` within `ttlMs`: every instance may raise the same
   * event (each one's registry changing alike), and one fan-out of it is enough.
   */
  claim(key: string, ttlMs: number): Promise<boolean>;
  /** A secret every instance shares (made by the first one to ask): keys requestState seals. */
  secret(name: string): Promise<Buffer>;
  /** Connects (rejecting with a clear error when the store cannot be reached), takes the lease, starts the bus. */
  start(): Promise<void>;
  /** Stops the bus and the lease renewal, and disconnects. */
  close(): Promise<void>;
}

/** A 2025-11-25 session as every instance sees it. */
export interface SessionRecord {
  id: string;
  /** 'initializing' until notifications/initialized, then 'ready'. */
  state: 'initializing' | 'ready';
  protocolVersion: string;
  clientInfo?: Implementation;
  clientCapabilities: ClientCapabilities;
  /** What the session was told at initialize the server can do. */
  serverCapabilities: ServerCapabilities;
  logLevel?: LoggingLevel;
  /** Resource URIs the session subscribed to. */
  subscriptions: string[];
  /** Who created it (with auth): requests of anyone else are answered as if it did not exist. */
  owner?: string;
  principal?: Principal;
  /** Whether a GET stream was ever opened (the first one gets what was sent before it). */
  standaloneOpened?: boolean;
  /** When initialize opened it (ms since the epoch): the start of `mcp.server.session.duration`, whichever instance ends it. */
  openedAt?: number;
}

export type SessionPatch = Partial<Pick<SessionRecord, 'state' | 'logLevel' | 'standaloneOpened'>>;

/** The session records. Every read slides the record's time to live: a session lives while used. */
export interface SessionStore {
  create(record: SessionRecord, ttlMs: number): Promise<void>;
  /** The record, its time to live reset to `ttlMs`; undefined when it expired or was deleted. */
  load(id: string, ttlMs: number): Promise<SessionRecord | undefined>;
  /** The record, its time to live untouched (what goes to every session is no sign of the client's activity). */
  peek(id: string): Promise<SessionRecord | undefined>;
  update(id: string, patch: SessionPatch): Promise<void>;
  /** Adds (`on`) or removes a resource subscription, in the record and in the index `subscribers` reads. */
  subscribe(id: string, uri: string, on: boolean): Promise<void>;
  /** The sessions subscribed to `uri` (some may have expired since: loading them tells). */
  subscribers(uri: string): Promise<string[]>;
  /** Every live session's id, for what goes to all of them (list_changed, server-wide logs). */
  ids(): Promise<string[]>;
  /** Deletes the record and its index entries; false when there was none. */
  delete(id: string): Promise<boolean>;
}

/** What one turn of a request stream adds to the shared log (see SharedEventLog.write). */
export interface StreamBatch {
  open?: RequestId;
  events: { seq: number; data: string }[];
  end?: { retentionMs: number; deliveredInFull: boolean };
}

/** One event read back from the shared log, with its sequence number on its stream. */
export type TailedEvent = StoredEvent & { seq: number };

/** What a reader of a stream written elsewhere is told. */
export interface TailSink {
  /** An event after the position the tail started from, in order, exactly once. */
  event(event: TailedEvent): void;
  /** The writer ended the stream: nothing more will come. */
  ended(): void;
  /** No such stream (never written, expired, or dropped with its session). */
  unknown(): void;
  /**
   * The stream's writer instance is gone (its lease lapsed) before it ended the stream.
   * `requestId`: the request the stream answers (from `open`), so the reader can fail it.
   */
  lost(requestId: RequestId | undefined): void;
}

/**
 * The SSE event log every instance reads: the embedded EventStore's operations (`append` is how
 * any instance writes to a session's standalone stream), plus what a reader on another instance
 * needs: when a request stream began (and for which request), when it ended, and a live tail that
 * replays what was stored and then follows new events by one mechanism.
 * Stream ids name their writer: `<instanceId>.<n>` for request streams, `0` for the standalone
 * stream, which any instance may write to.
 */
export interface SharedEventLog extends EventStore {
  /**
   * Writes what one turn of a request stream (one writer: this instance) produced, in one go: its
   * opening (`open`: the request it answers, so a reader elsewhere can fail it if this instance
   * dies), its events with the seqs they went out with, and its end (it stays readable for
   * `retentionMs`). An answer ready at once is one write: opening, response and end.
   */
  write(sessionId: string, streamId: string, batch: StreamBatch): Promise<void> | void;
  /**
   * Replays the events after `afterSeq` (-1: only those written from now on) and follows new ones
   * until the stream ends, its writer is lost, or `stop` is called. `writer`: the instance whose
   * lease decides whether the stream is lost (none for the standalone stream).
   */
  tail(sessionId: string, streamId: string, afterSeq: number, sink: TailSink, writer?: string): { stop(): void };
}

/** Control messages between instances. Nothing meant for a client travels only here. */
export type ClusterMessage =
  /** A client answered a server-to-client request this instance sent. */
  | { type: 'answer'; sessionId: string; response: JsonRpcResponse }
  /** A client cancelled one of its requests; whichever instance runs it stops it. */
  | { type: 'cancel'; sessionId: string; requestId: RequestId; reason?: string }
  /** A session was deleted (DELETE): every instance drops its copy and stops its work. */
  | { type: 'sessionClosed'; sessionId: string }
  /** A session's record changed (log level): instances holding a copy reload it. */
  | { type: 'sessionChanged'; sessionId: string }
  /** A list changed on some instance: listen streams (2026-07-28) everywhere hear it. */
  | { type: 'listChanged'; method: string }
  /** A resource changed on some instance: listen streams (2026-07-28) everywhere hear it. */
  | { type: 'resourceUpdated'; uri: string }
  /** A task's record changed: waiters for it (tasks/result) wake. */
  | { type: 'taskChanged'; taskId: string }
  /** Stop a task's work (tasks/cancel served elsewhere). */
  | { type: 'taskCancel'; taskId: string }
  /** Answers to a task's input requests (tasks/update served elsewhere), for the instance running it. */
  | { type: 'taskInput'; taskId: string; responses: Record<string, unknown> };

export interface ClusterBus {
  /** To every other live instance. */
  broadcast(message: ClusterMessage): Promise<void>;
  /** To one instance (its inbox keeps it until read, so a short disconnect loses nothing). */
  send(instanceId: string, message: ClusterMessage): Promise<void>;
  /** Messages from other instances, in the order each was sent. */
  onMessage(handler: (message: ClusterMessage) => void): void;
}

/** Thrown (and turned into 503 by transports) when the shared store cannot be reached. */
export class ClusterUnavailableError extends McpxError {
  constructor(message = 'The shared session store cannot be reached', options?: { cause?: unknown }) {
    super('MCPX_CLUSTER_UNAVAILABLE', message, options);
  }
}

/** Who runs a request stream: its id is `<instanceId>.<n>`; the standalone stream `0` has no single writer. */
export function streamWriter(streamId: string): string | undefined {
  const dot = streamId.indexOf('.');
  return dot > 0 ? streamId.slice(0, dot) : undefined;
}
