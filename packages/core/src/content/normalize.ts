import type { CallToolResult, ContentBlock, GetPromptResult, PromptMessage, ReadResourceResult, ResourceContents } from '../protocol/types';
import { text } from './helpers';

/** Turns what handlers return into the spec's result shapes. */

const BLOCK_TYPES = new Set(['text', 'image', 'audio', 'resource', 'resource_link']);

export function isContentBlock(value: unknown): value is ContentBlock {
  return typeof value === 'object' && value !== null && BLOCK_TYPES.has((value as { type?: unknown }).type as string);
}

function toBlock(value: unknown): ContentBlock {
  if (typeof value === 'string') return text(value);
  if (isContentBlock(value)) return value;
  return text(JSON.stringify(value) ?? String(value));
}

/** A tool's return value: a string, a block, blocks, a full CallToolResult, or any JSON value as text. */
export function toCallToolResult(value: unknown): CallToolResult {
  if (value === undefined || value === null) return { content: [] };
  if (typeof value === 'string') return { content: [text(value)] };
  if (Array.isArray(value)) return { content: value.map(toBlock) };
  if (isContentBlock(value)) return { content: [value] };
  if (typeof value === 'object' && Array.isArray((value as CallToolResult).content)) return value as CallToolResult;
  return { content: [toBlock(value)] };
}

function isBinary(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array;
}

function toContents(value: unknown, uri: string, mimeType: string | undefined): ResourceContents {
  if (typeof value === 'string') return mimeType ? { uri, mimeType, text: value } : { uri, text: value };
  if (isBinary(value)) {
    const blob = Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
    return mimeType ? { uri, mimeType, blob } : { uri, blob };
  }
  if (typeof value === 'object' && value !== null && ('text' in value || 'blob' in value)) {
    const c = value as Partial<ResourceContents>;
    const out = { ...c, uri: c.uri ?? uri } as ResourceContents;
    if (out.mimeType === undefined && mimeType) out.mimeType = mimeType;
    return out;
  }
  return { uri, mimeType: mimeType ?? 'application/json', text: JSON.stringify(value) ?? 'null' };
}

/** A resource read: a string (text), bytes (blob), contents objects, or a full ReadResourceResult. */
export function toReadResourceResult(value: unknown, uri: string, mimeType?: string): ReadResourceResult {
  if (typeof value === 'object' && value !== null && Array.isArray((value as ReadResourceResult).contents)) {
    const result = value as ReadResourceResult;
    return { ...result, contents: result.contents.map((c) => toContents(c, uri, mimeType)) };
  }
  if (Array.isArray(value)) return { contents: value.map((c) => toContents(c, uri, mimeType)) };
  return { contents: [toContents(value, uri, mimeType)] };
}

function toMessage(value: unknown): PromptMessage {
  if (typeof value === 'string') return { role: 'user', content: text(value) };
  const m = value as { role?: unknown; content?: unknown };
  if ((m.role === 'user' || m.role === 'assistant') && m.content !== undefined) return { role: m.role, content: toBlock(m.content) };
  return { role: 'user', content: toBlock(value) };
}

/** A prompt: a string (one user message), messages, or a full GetPromptResult. */
export function toGetPromptResult(value: unknown, description?: string): GetPromptResult {
  let result: GetPromptResult;
  if (typeof value === 'object' && value !== null && Array.isArray((value as GetPromptResult).messages)) {
    const r = value as GetPromptResult;
    result = { ...r, messages: r.messages.map(toMessage) };
  } else if (Array.isArray(value)) {
    result = { messages: value.map(toMessage) };
  } else {
    result = { messages: [toMessage(value)] };
  }
  if (result.description === undefined && description !== undefined) result.description = description;
  return result;
}
