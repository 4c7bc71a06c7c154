import 'reflect-metadata';

// What a server author uses. Transports and stores get the rest from '@mcpx/core/transport'.

// Protocol: result and definition types, errors
export * from './protocol/types';
// The decorators take the short names; the listed shapes are also exported as *Definition.
export type { Tool as ToolDefinition, Resource as ResourceDefinition, ResourceTemplate as ResourceTemplateDefinition, Prompt as PromptDefinition } from './protocol/types';
export * from './protocol/errors';
export { McpxError, MCPX_ERROR_CODES, isMcpxError, type McpxErrorCode } from './errors';
export type { MessageLimits } from './protocol/message-limits';

// Authoring: decorators, schema rules, content helpers
export { Server, Tool, Resource, ResourceTemplate, Prompt, Complete, UseMiddleware, getServerOptions } from './metadata/decorators';
// Between a request and its handler: middleware, and protocol extensions (docs/middleware.md, docs/architecture.md)
export type { Middleware, MiddlewareContext, Next } from './pipeline/middleware';
export type { McpExtension, ExtensionMethod, ExtensionNotification, ExtensionServer, ExtensionSettings, NotificationSource } from './extensions/extension';
export type * from './metadata/options';
export {
  Field,
  getFieldOptions,
  classToJsonSchema,
  validateInput,
  formatIssues,
  compileJsonSchema,
  toElicitationSchema,
  checkElicitationSchema,
  validateElicitedContent,
  ElicitationSchemaError,
} from './schema';
export type { ElicitationSchema } from './schema';
export type { FieldOptions, JsonSchema, ValidationIssue, DefinitionProblem } from './schema';
export * from './content/helpers';
export { isContentBlock } from './content/normalize';
export { UriTemplate, UriTemplateError } from './uri-template';
export { DEFAULT_ARGUMENT_LIMITS, type ArgumentLimits } from './schema/argument-limits';

// Building and running
export { McpServer, createEngine, definitionWarnings, type Servable } from './server';
export type { EngineOptions } from './engine/engine';
export type { DefinitionWarning } from './scanner/scanner';
export { Registry } from './registry/registry';
export { EntryList, type ListKind, type Page } from './registry/entry-list';
export { DefinitionError } from './registry/definition-error';
export { UnknownOptionError, type UnknownOption } from './metadata/check-options';
export type {
  Validator,
  ToolHandler,
  ResourceHandler,
  TemplateHandler,
  PromptHandler,
  InputClass,
  ToolEntry,
  ResourceEntry,
  TemplateEntry,
  PromptEntry,
} from './registry/entry-types';
export { buildToolEntry, type ToolSpec } from './registry/build-tool-entry';
export { buildResourceEntry, buildTemplateEntry, type ResourceSpec, type TemplateSpec } from './registry/build-resource-entries';
export { buildPromptEntry, type PromptSpec } from './registry/build-prompt-entry';
export { RequestContext, RequestContext as ToolContext, relatedTask, type TaskHandle } from './engine/context';
// Session: what McpServer hooks such as onRootsListChanged receive.
export { Session } from './eras/legacy/session';
export { CancelledError } from './engine/dispatch';
export { McpLogger } from './engine/mcp-logger';
export { InputRequired, type InputRequest, type InputRequiredOptions } from './engine/input-required';
export type { Era, RequestEnv } from './engine/request-env';
export type { ModernOptions } from './eras/modern/modern-requests';
export type { CacheHint } from './eras/modern/result-shape';
export { ClientCapabilityError, ClientRequestError, ClientUnreachableError, type ClientRequestOptions } from './engine/client-requests';
export { InsufficientScopeError, INSUFFICIENT_SCOPE, type Principal, type ScopedEntry } from './auth/principal';

// Stores and time: authors may plug in their own
export { InMemoryTaskStore, InvalidTaskCursorError, TERMINAL_STATUSES, type Task, type TaskRecord, type TaskStatus, type TaskStore } from './stores/task-store';
export type { TaskOptions } from './tasks/task-manager';
export { InMemoryEventStore, type EventStore, type StoredEvent } from './stores/event-store';
export { ManualClock, type Clock } from './clock';
// Several instances sharing state (implemented by @mcpx/redis)
export * from './cluster/cluster';

// OpenTelemetry (docs/observability.md): the engine's instrumentation and the names it emits
export type { Telemetry, RequestTrace, ChildSpan, TelemetryProviders, TelemetrySource, TraceScope } from './telemetry/telemetry';
export * as semconv from './telemetry/semconv';
