import 'reflect-metadata';

// Protocol
export * from './protocol/types';
// The decorators take the short names; the listed shapes are also exported as *Definition.
export type { Tool as ToolDefinition, Resource as ResourceDefinition, ResourceTemplate as ResourceTemplateDefinition, Prompt as PromptDefinition } from './protocol/types';
export * from './protocol/errors';
export * from './protocol/jsonrpc';
export * from './protocol/versions';
export {
  DEFAULT_MESSAGE_LIMITS,
  budgetError,
  decodeMessage,
  resolveMessageLimits,
  scanMessage,
  type BudgetViolation,
  type MessageLimits,
  type ResolvedMessageLimits,
} from './protocol/message-limits';

// Authoring: decorators, schema rules, content helpers
export { Server, Tool, Resource, ResourceTemplate, Prompt, Complete, getServerOptions } from './metadata/decorators';
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
export { toCallToolResult, toReadResourceResult, toGetPromptResult, isContentBlock } from './content/normalize';
export { UriTemplate, UriTemplateError } from './uri-template';

// Building and running
export { McpServer, createEngine, definitionWarnings, type Servable } from './server';
export { scanObject, buildRegistry, serverInfoOf, type BuildRegistryOptions, type DefinitionWarning, type ScannedEntries } from './scanner/scanner';
export { Registry } from './registry/registry';
export { EntryList, type ListKind, type Page } from './registry/entry-list';
export { DefinitionError } from './registry/definition-error';
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
export { toCompleteResult } from './engine/handlers/completion';
export { compact } from './compact';
export { McpEngine, type EngineOptions, type MethodHandler, type NotificationHandler } from './engine/engine';
export { Session, CancelledError, tooManyInFlight, type SessionState } from './engine/session';
export { sessionLogId } from './engine/request-log';
export {
  DEFAULT_ARGUMENT_LIMITS,
  checkArgumentLimits,
  resolveArgumentLimits,
  type ArgumentLimits,
  type ResolvedArgumentLimits,
} from './schema/argument-limits';
export { RequestContext, RequestContext as ToolContext, relatedTask, type TaskHandle } from './engine/context';
export type { MessageChannel } from './engine/channel';
export { McpLogger } from './engine/mcp-logger';
export { LOGGING_LEVELS, isLoggingLevel } from './engine/log-levels';

// Stores and tasks
export { InMemoryTaskStore, InvalidTaskCursorError, TERMINAL_STATUSES, type Task, type TaskRecord, type TaskStatus, type TaskStore } from './stores/task-store';
export { TaskManager, type TaskOptions } from './tasks/task-manager';
export { ManualClock, systemClock, type Clock } from './clock';
export { ClientCapabilityError, ClientRequestError, ClientUnreachableError, type ClientRequestOptions } from './engine/client-requests';
export { InMemoryEventStore, eventId, parseEventId, type EventStore, type StoredEvent } from './stores/event-store';
export { InsufficientScopeError, INSUFFICIENT_SCOPE, missingScopes, type Principal, type ScopedEntry } from './auth/principal';
