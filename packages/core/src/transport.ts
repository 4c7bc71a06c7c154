// '@mcpx/core/transport': what transports, stores and tools built on the engine need.
// Server authors import from '@mcpx/core'.
import 'reflect-metadata';

// JSON-RPC framing and protocol versions
export * from './protocol/jsonrpc';
export * from './protocol/versions';
export { DEFAULT_MESSAGE_LIMITS, budgetError, decodeMessage, resolveMessageLimits, scanMessage, type BudgetViolation, type ResolvedMessageLimits } from './protocol/message-limits';
export { RequestIdScanner } from './protocol/id-scan';

// The engine and its sessions
export { McpEngine, type MethodHandler, type NotificationHandler } from './engine/engine';
export { type SessionState } from './eras/legacy/session';
// The pipeline every request goes through: transports admit, map a refusal to their own form, then run
export { RequestPipeline, type Admission, type Admitted } from './pipeline/pipeline';
export type { EraFront, Inbound, InFlightScope, Outcome } from './pipeline/era-front';
export { eraOf } from './pipeline/classify';
export { tooManyInFlight, type Refusal, type RefusalKind } from './pipeline/admission';
export type { MessageChannel } from './context/channel';
export { sessionLogId } from './context/request-log';
export { childLogger, extendLogger, boundBy } from './context/logger-lineage';
export { LOGGING_LEVELS, isLoggingLevel } from './protocol/log-levels';
export { missingScopes } from './auth/principal';
export { checkArgumentLimits, resolveArgumentLimits, type ResolvedArgumentLimits } from './schema/argument-limits';
export { headerParameters, type HeaderParameter } from './schema/header-parameters';
export { TaskManager } from './tasks/task-manager';
export { ClusterLink, type SessionEvent } from './engine/cluster-link';
export type { SessionSync } from './eras/legacy/session';

// The modern era (2026-07-28): request classification, `_meta` claims, the per-stream request tracker
export { ModernStream } from './eras/modern/modern-stream';
export { META, claimedVersion, readModernClaim, isRefusal, unsupportedVersion, type ModernClaim, type ModernRefusal } from './eras/modern/meta';
export { ModernRequests, type ModernRequestOptions } from './eras/modern/modern-requests';
export { ModernFront, type ModernFrontOptions } from './eras/modern/modern-front';
export { MRTR_METHODS } from './eras/modern/methods';
export { LazyAbort } from './context/lazy-abort';
export type { Era, RequestEnv } from './context/request-env';
export type { RequestHost, ServerServices, SessionView, ServerSettings, SessionRouting } from './context/services';
export { msSince, systemClock } from './clock';

// Building a registry by hand; shaping handler results
export { scanObject, buildRegistry, serverInfoOf, type BuildRegistryOptions, type ScannedEntries } from './scanner/scanner';
export { toCallToolResult, toReadResourceResult, toGetPromptResult } from './content/normalize';
export { toCompleteResult } from './handlers/completion';
export { compact } from './compact';

// Event store plumbing (EventStore and InMemoryEventStore are in '@mcpx/core')
export { eventId, parseEventId } from './stores/event-store';

// A map for what usually holds one entry at a time (per-session bookkeeping without a Map while idle)
export { FewMap } from './pipeline/few-map';

// Telemetry: where a message came from, as spans and metrics record it
export { STDIO_ORIGIN, type RequestOrigin } from './telemetry/origin';
export { startOtelFor, type OtelHandle } from './engine/start-otel';
export { envFlag } from './env-flag';
export { compileCacheStatus, type CompileCacheStatus } from './startup/compile-cache';

// Options: each transport refuses a key it does not know (the engine's and its own; UnknownOptionError is in '@mcpx/core')
export { ENGINE_OPTION_KEYS } from './engine/engine-option-keys';
export { checkOptions, optionKeys } from './metadata/check-options';
