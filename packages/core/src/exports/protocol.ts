// '@mcpx/core/protocol': The protocol's shapes: results, content, capabilities, and the helpers that build them. Server authors find the common ones in '@mcpx/core'.

export { INSUFFICIENT_SCOPE } from '../auth/principal';
export { APP_MIME_TYPE, UI_EXTENSION_ID } from '../apps/app-types';
export type { AppCsp, AppPermissions, AppResourceMeta, AppResourceOptions, AppToolVisibility, ToolUi } from '../apps/app-types';
export { supportsApps } from '../apps/tool-ui';
export type { Binary } from '../content/helpers';
export { isContentBlock } from '../content/normalize';
export type { CacheHint } from '../protocol/cache-hint';
export type { UrlElicitation } from '../protocol/errors';
export type { InputRequiredOptions } from '../protocol/input-required';
export type { MessageLimits } from '../protocol/message-limits';
export type {
  Annotations,
  AudioContent,
  BlobResourceContents,
  CompleteResult,
  CreateMessageParams,
  CreateMessageResult,
  ElicitResult,
  EmbeddedResource,
  Icon,
  ImageContent,
  InitializeResult,
  Meta,
  ModelPreferences,
  PromptArgument,
  ResourceContents,
  ResourceLink,
  Role,
  Root,
  SamplingContent,
  SamplingMessage,
  SamplingTool,
  TaskSupport,
  TextContent,
  TextResourceContents,
  ToolAnnotations,
  ToolResultContent,
  ToolUseContent,
} from '../protocol/types';
export type { Tool, Resource, ResourceTemplate, Prompt } from '../protocol/types';
