import type {
  Annotations,
  AudioContent,
  BlobResourceContents,
  CallToolResult,
  ContentBlock,
  EmbeddedResource,
  ImageContent,
  PromptMessage,
  Resource,
  ResourceLink,
  TextContent,
  TextResourceContents,
} from '../protocol/types';

/** Builders for the spec's content types, for handlers to return. Binary data may be a Buffer. */

export type Binary = Uint8Array | string;

function toBase64(data: Binary): string {
  return typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
}

function withAnnotations<T extends object>(block: T, annotations?: Annotations): T {
  return annotations ? { ...block, annotations } : block;
}

export function text(value: string, annotations?: Annotations): TextContent {
  return withAnnotations({ type: 'text', text: value }, annotations);
}

/** An image; `data` is raw bytes or a base64 string. */
export function image(data: Binary, mimeType: string, annotations?: Annotations): ImageContent {
  return withAnnotations({ type: 'image', data: toBase64(data), mimeType }, annotations);
}

/** Audio; `data` is raw bytes or a base64 string. */
export function audio(data: Binary, mimeType: string, annotations?: Annotations): AudioContent {
  return withAnnotations({ type: 'audio', data: toBase64(data), mimeType }, annotations);
}

/** A resource's contents embedded in a result: text when given a string, a blob when given bytes. */
export function embeddedResource(uri: string, contents: string | Uint8Array, options: { mimeType?: string; annotations?: Annotations } = {}): EmbeddedResource {
  const resource: TextResourceContents | BlobResourceContents = typeof contents === 'string' ? { uri, text: contents } : { uri, blob: toBase64(contents) };
  if (options.mimeType) resource.mimeType = options.mimeType;
  return withAnnotations({ type: 'resource', resource }, options.annotations);
}

/** A link to a resource the client may read or subscribe to. */
export function resourceLink(resource: Resource): ResourceLink {
  return { type: 'resource_link', ...resource };
}

/** A tool result that reports failure to the model (isError), as opposed to a protocol error. */
export function toolError(message: string | ContentBlock[]): CallToolResult {
  return { content: typeof message === 'string' ? [text(message)] : message, isError: true };
}

export function userMessage(content: string | ContentBlock): PromptMessage {
  return { role: 'user', content: typeof content === 'string' ? text(content) : content };
}

export function assistantMessage(content: string | ContentBlock): PromptMessage {
  return { role: 'assistant', content: typeof content === 'string' ? text(content) : content };
}
