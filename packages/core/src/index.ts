// First, so that what loads after it (the core itself, class-validator, Fastify, the user's own
// modules) compiles from the cache an earlier start wrote: startup/compile-cache.ts.
import './startup/enable';
import 'reflect-metadata';

// '@mcpx/core': what a server author uses. The rest is on subpaths by audience:
//   '@mcpx/core/protocol'  the protocol's shapes (content, results, capabilities)
//   '@mcpx/core/schema'    input classes and JSON Schema
//   '@mcpx/core/registry'  building entries at runtime, option key lists
//   '@mcpx/core/context'   a handler's environment beyond RequestContext
//   '@mcpx/core/stores'    tasks, events, sessions, cluster interfaces, clocks
//   '@mcpx/core/telemetry' OpenTelemetry
//   '@mcpx/core/errors'    the error classes and codes alone (loads nothing else)
//   '@mcpx/core/transport' what transports and stores drive the engine with

// Declaring a server: decorators, the optional base class, the engine
export { Server, Tool, Resource, ResourceTemplate, Prompt, Complete, UseMiddleware, RateLimit } from './metadata/decorators';
export { AppResource } from './apps/app-resource';
export { Field } from './schema/field';
export { McpServer, createEngine, mount, type Servable } from './server';
export type { RateLimitOptions, RateLimitSubject } from './policies/rate-limit';
export { Registry } from './registry/registry';
export type { ServerOptions, ToolOptions, ResourceOptions, ResourceTemplateOptions, PromptOptions, CompleteOptions, Completer } from './metadata/options';
export type { EngineOptions } from './engine/engine';
export type { ArgumentLimits } from './schema/argument-limits';
export type { JsonSchema } from './schema/json-schema';

// A request: its context, asking the client, middleware and extensions
export { RequestContext, RequestContext as ToolContext } from './context/request-context';
export type { ClientRequestOptions } from './context/client-requests';
export type { Middleware, MiddlewareContext, Next } from './context/middleware';
export type { McpExtension, ExtensionMethod, ExtensionNotification, ExtensionServer, ExtensionSettings, NotificationSource } from './context/extension';
export type { InputRequest } from './protocol/input-required';
export type { Caller, Principal } from './auth/principal';
export { Session } from './eras/legacy/session';

// Errors: the wire's (McpError, ErrorCode) and mcpx's own (McpxError and its codes)
export { ErrorCode, McpError, UrlElicitationRequiredError } from './protocol/errors';
export { InsufficientScopeError } from './auth/principal';
export { McpxError, isMcpxError } from './errors';
export { DefinitionError } from './definition-error';
export { UnknownOptionError } from './metadata/check-options';
export { CancelledError } from './context/error-responses';
export { ClientCapabilityError, ClientRequestError, ClientUnreachableError } from './context/client-requests';
export { InputRequired } from './protocol/input-required';

// Results: content helpers and the shapes handlers return
export { text, image, audio, embeddedResource, resourceLink, toolError, userMessage, assistantMessage } from './content/helpers';
export { ToolError } from './content/tool-error';
export type {
  CallToolResult,
  ContentBlock,
  GetPromptResult,
  ReadResourceResult,
  PromptMessage,
  Implementation,
  ServerCapabilities,
  ClientCapabilities,
  LoggingLevel,
  Tool as ToolDefinition,
  Resource as ResourceDefinition,
  ResourceTemplate as ResourceTemplateDefinition,
  Prompt as PromptDefinition,
} from './protocol/types';

// Stores an author may choose between
export { InMemoryTaskStore } from './stores/task-store';
export { InMemoryEventStore } from './stores/event-store';
