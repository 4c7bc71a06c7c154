import type { CallToolResult, ContentBlock, GetPromptResult, PromptMessage, ReadResourceResult, ResourceContents } from '../protocol/types';
import { text } from './helpers';
import { toJsonValue } from './json-value';
import { ToolError } from './tool-error';

/** Turns what handlers return into the spec's result shapes. */

const BLOCK_TYPES = new Set(['text', 'image', 'audio', 'resource', 'resource_link']);

export function isContentBlock(value: unknown): value is ContentBlock {
  return typeof value === 'object' && value !== null && BLOCK_TYPES.has((value as { type?: unknown }).type as string);
}

/** One value as a content block: a string or a Date as its text, a block as it is, anything else as its JSON. */
function toBlock(value: unknown, path: string): ContentBlock {
  switch (typeof value) {
    case 'string':
      return text(value);
    case 'number':
    case 'boolean':
      return text(String(value));
    case 'bigint':
      return text(value.toString()); // text, so no precision is lost
    case 'function':
    case 'symbol':
      throw new ToolError(`${path} is a ${typeof value}, which has no JSON form`);
    case 'object':
    case 'undefined':
      break;
  }
  if (isContentBlock(value)) return value;
  if (value instanceof Date) return text(Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString());
  return text(JSON.stringify(toJsonValue(value, path)) ?? 'null');
}

/**
 * A tool's return value: a string, a block, blocks, a full CallToolResult, or any value as its JSON
 * text (a Map as an object, a Set as an array, a Date as its ISO string). A value with no JSON form
 * throws a ToolError naming it.
 */
export function toCallToolResult(value: unknown): CallToolResult {
  if (value === undefined || value === null) return { content: [] };
  if (typeof value === 'string') return { content: [text(value)] };
  if (Array.isArray(value)) return { content: value.map((item, i) => toBlock(item, `result[${i}]`)) };
  if (isContentBlock(value)) return { content: [value] };
  if (typeof value === 'object' && Array.isArray((value as CallToolResult).content)) {
    const result = value as CallToolResult;
    if (result.structuredContent === undefined) return result;
    const structuredContent = toJsonValue(result.structuredContent, 'structuredContent') as Record<string, unknown>;
    return structuredContent === result.structuredContent ? result : { ...result, structuredContent };
  }
  return { content: [toBlock(value, 'result')] };
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
  return { uri, mimeType: mimeType ?? 'application/json', text: JSON.stringify(toJsonValue(value, 'contents')) ?? 'null' };
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
  if ((m.role === 'user' || m.role === 'assistant') && m.content !== undefined) return { role: m.role, content: toBlock(m.content, 'content') };
  return { role: 'user', content: toBlock(value, 'message') };
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
