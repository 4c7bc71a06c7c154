/**
 * The 2025-11-25 MCP message shapes the server side reads and writes. schema.json in the
 * specification is normative; names here follow it.
 */

export type Meta = Record<string, unknown>;
export type Role = 'user' | 'assistant';
export type LoggingLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  icons?: Icon[];
  websiteUrl?: string;
}

export interface Annotations {
  audience?: Role[];
  priority?: number;
  lastModified?: string;
}

export interface TextContent {
  type: 'text';
  text: string;
  annotations?: Annotations;
  _meta?: Meta;
}
export interface ImageContent {
  type: 'image';
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Meta;
}
export interface AudioContent {
  type: 'audio';
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Meta;
}
export interface TextResourceContents {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: Meta;
}
export interface BlobResourceContents {
  uri: string;
  mimeType?: string;
  blob: string;
  _meta?: Meta;
}
export type ResourceContents = TextResourceContents | BlobResourceContents;
export interface EmbeddedResource {
  type: 'resource';
  resource: ResourceContents;
  annotations?: Annotations;
  _meta?: Meta;
}
export interface ResourceLink extends Resource {
  type: 'resource_link';
}
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export type TaskSupport = 'forbidden' | 'optional' | 'required';

export interface Tool {
  name: string;
  title?: string;
  description?: string;
  icons?: Icon[];
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: ToolAnnotations;
  execution?: { taskSupport?: TaskSupport };
  _meta?: Meta;
}

export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Meta;
}

export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  icons?: Icon[];
  annotations?: Annotations;
  _meta?: Meta;
}

export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  icons?: Icon[];
  annotations?: Annotations;
  _meta?: Meta;
}

export interface ReadResourceResult {
  contents: ResourceContents[];
  _meta?: Meta;
}

export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: Meta;
}

export interface PromptMessage {
  role: Role;
  content: ContentBlock;
}

export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: Meta;
}

export interface CompleteResult {
  completion: { values: string[]; total?: number; hasMore?: boolean };
  _meta?: Meta;
}

export interface ServerCapabilities {
  experimental?: Record<string, object>;
  logging?: object;
  completions?: object;
  prompts?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  tools?: { listChanged?: boolean };
  tasks?: Record<string, unknown>;
  /** Extensions the server offers (2026-07-28), keyed by identifier: each value its settings. */
  extensions?: Record<string, object>;
}

export interface ClientCapabilities {
  experimental?: Record<string, object>;
  roots?: { listChanged?: boolean };
  sampling?: { context?: object; tools?: object };
  elicitation?: { form?: object; url?: object };
  tasks?: Record<string, unknown>;
  /** Extensions the client supports (2026-07-28), keyed by identifier. */
  extensions?: Record<string, object>;
  [key: string]: unknown;
}

export interface InitializeResult {
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions?: string;
  _meta?: Meta;
}

// Server → client requests

export interface ModelPreferences {
  hints?: { name?: string }[];
  costPriority?: number;
  speedPriority?: number;
  intelligencePriority?: number;
}

/** A tool the model may call during sampling (SEP-1577). */
export interface SamplingTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ToolUseContent {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
  _meta?: Meta;
}

export interface ToolResultContent {
  type: 'tool_result';
  toolUseId: string;
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Meta;
}

export type SamplingContent = TextContent | ImageContent | AudioContent | ToolUseContent | ToolResultContent;

export interface SamplingMessage {
  role: Role;
  content: SamplingContent | SamplingContent[];
  _meta?: Meta;
}

export interface CreateMessageParams {
  messages: SamplingMessage[];
  maxTokens: number;
  systemPrompt?: string;
  modelPreferences?: ModelPreferences;
  includeContext?: 'none' | 'thisServer' | 'allServers';
  temperature?: number;
  stopSequences?: string[];
  metadata?: Record<string, unknown>;
  tools?: SamplingTool[];
  toolChoice?: { mode?: 'auto' | 'required' | 'none' };
  _meta?: Meta;
}

export interface CreateMessageResult {
  role: Role;
  content: SamplingContent | SamplingContent[];
  model: string;
  stopReason?: string;
  _meta?: Meta;
}

export interface ElicitResult<T = Record<string, string | number | boolean | string[]>> {
  action: 'accept' | 'decline' | 'cancel';
  content?: T;
  _meta?: Meta;
}

export interface Root {
  uri: string;
  name?: string;
  _meta?: Meta;
}
