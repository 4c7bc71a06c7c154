// '@mcpx/core/stores': Stores and shared state: tasks, events, sessions and the cluster interfaces that @mcpx/redis implements; clocks.

export { ManualClock, type Clock } from '../clock';
export {
  ClusterUnavailableError,
  streamWriter,
  type Cluster,
  type ClusterBus,
  type ClusterMessage,
  type SessionPatch,
  type SessionRecord,
  type SessionStore,
  type SharedEventLog,
  type StreamBatch,
  type TailSink,
  type TailedEvent,
} from '../cluster/cluster';
export { redisFromEnv, type RedisSettings } from '../cluster/redis-env';
export type { EventStore, EventStoreLimits, StoredEvent } from '../stores/event-store';
export { STREAM_COST } from '../stores/event-store';
export { InvalidTaskCursorError, TERMINAL_STATUSES, type Task, type TaskRecord, type TaskStatus, type TaskStore } from '../stores/task-store';
export { InMemoryRateLimitStore, type RateLimitHit, type RateLimitStore } from '../policies/rate-limit';
