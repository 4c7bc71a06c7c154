// @mcpx/redis: several instances of one MCP server sharing sessions, SSE event logs, tasks and a
// bus through Redis. `listen(server, { redis: 'redis://...' })` in @mcpx/http loads it.
export { createRedisCluster, RedisCluster, type RedisClusterOptions } from './cluster';
export type { RedisCommands, RedisConnection, StreamEntry, StreamBatch, ScoredMember, LuaScript } from './commands';
export { nodeRedisConnection, type NodeRedisConnectionOptions } from './node-redis';
export { luaScript } from './scripts';
export { RedisKeys } from './keys';
export type { Logger as RedisClusterLogger } from './logger';
export { RedisSessionStore } from './session-store';
export { RedisEventLog, type RedisEventLogOptions } from './event-log';
export { RedisTaskStore } from './task-store';
export { RedisRateLimitStore, RATE_LIMIT_HIT } from './rate-limit-store';
export { RedisBus, type RedisBusOptions } from './bus';
export { StreamReader } from './stream-reader';
export { redactUrl } from './redis-url';
