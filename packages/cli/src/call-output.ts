/** How `mcpx call`, `read` and `prompt` print results for people (`--json` prints them raw). */

type Block = Record<string, unknown> & { type?: unknown };
type Contents = Record<string, unknown> & { uri?: unknown; mimeType?: unknown; text?: unknown; blob?: unknown };

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/** Bytes of a base64 payload, for summaries. */
function size(base64: unknown): string {
  if (typeof base64 !== 'string') return 'no data';
  const bytes = Math.floor((base64.replace(/=+$/, '').length * 3) / 4);
  return bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KiB`;
}

const isJsonType = (mime: unknown) => typeof mime === 'string' && /[/+]json\b/.test(mime);

/** A resource's text: JSON pretty-printed when it says it is JSON, else as it is. */
function resourceText(contents: Contents): string {
  const text = String(contents.text);
  if (!isJsonType(contents.mimeType)) return text;
  try {
    return pretty(JSON.parse(text));
  } catch {
    return text;
  }
}

function label(contents: Contents): string {
  return `${String(contents.uri)}${typeof contents.mimeType === 'string' ? ` (${contents.mimeType})` : ''}`;
}

/** One content block: text as it is; other kinds summarised on one line (embedded text resources with their text). */
export function renderBlock(block: Block): string {
  switch (block.type) {
    case 'text':
      return String(block.text);
    case 'image':
    case 'audio':
      return `[${block.type}: ${String(block.mimeType)}, ${size(block.data)}]`;
    case 'resource_link': {
      const title = typeof block.title === 'string' ? block.title : typeof block.name === 'string' ? block.name : '';
      return `[link: ${label(block)}${title ? ` "${title}"` : ''}]`;
    }
    case 'resource': {
      const resource = (block.resource ?? {}) as Contents;
      if (typeof resource.text === 'string') return `[resource: ${label(resource)}]\n${resourceText(resource)}`;
      return `[resource: ${label(resource)}, ${size(resource.blob)}]`;
    }
    default:
      return `[${String(block.type)} block]`;
  }
}

/** A text block that only repeats the structured content (the usual copy for older clients). */
function repeats(block: Block, structured: unknown): boolean {
  if (block.type !== 'text' || typeof block.text !== 'string') return false;
  try {
    return JSON.stringify(JSON.parse(block.text)) === JSON.stringify(structured);
  } catch {
    return false;
  }
}

const lines = (parts: string[]) => (parts.length === 0 ? '' : `${parts.join('\n')}\n`);

/** tools/call: structured content as indented JSON, then the blocks that say something else. */
export function formatToolResult(result: Record<string, unknown>): string {
  const structured = result.structuredContent;
  const blocks = (Array.isArray(result.content) ? result.content : []) as Block[];
  const parts = structured === undefined ? [] : [pretty(structured)];
  for (const block of blocks) if (structured === undefined || !repeats(block, structured)) parts.push(renderBlock(block));
  return lines(parts);
}

/** resources/read: each content's text (JSON indented); with several, each under its URI. */
export function formatReadResult(result: Record<string, unknown>): string {
  const contents = (Array.isArray(result.contents) ? result.contents : []) as Contents[];
  const render = (c: Contents) => (typeof c.text === 'string' ? resourceText(c) : `[blob: ${label(c)}, ${size(c.blob)}]`);
  if (contents.length === 1) return lines([render(contents[0]!)]);
  return lines(contents.map((c) => (typeof c.text === 'string' ? `[resource: ${label(c)}]\n${render(c)}` : render(c))));
}

/** prompts/get: the description, then each message under its role. */
export function formatPromptResult(result: Record<string, unknown>): string {
  const messages = (Array.isArray(result.messages) ? result.messages : []) as { role?: unknown; content?: Block }[];
  const parts = typeof result.description === 'string' ? [result.description, ''] : [];
  messages.forEach((message, i) => {
    if (i > 0) parts.push('');
    parts.push(`[${String(message.role)}]`, renderBlock(message.content ?? {}));
  });
  return lines(parts);
}
