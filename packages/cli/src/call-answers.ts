import { createInterface } from 'node:readline/promises';
import { ErrorCode } from '@mcpx/core/errors';
import { CliError, oneLine } from './errors';

type Message = Record<string, unknown> & { id?: unknown; method?: unknown; params?: Record<string, unknown> };
type Reply = { result: Record<string, unknown> } | { error: { code: number; message: string } };

interface FieldSchema {
  type?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  oneOf?: { const?: unknown; title?: string }[];
  default?: unknown;
}

/** One --answer: a JSON object accepts with that content; `decline` or `cancel` answers so. */
export type Answer = { action: 'accept'; content: Record<string, unknown> } | { action: 'decline' | 'cancel' };

export function parseAnswer(text: string): Answer {
  const word = text.trim().toLowerCase();
  if (word === 'decline' || word === 'cancel') return { action: word };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CliError(`--answer must be a JSON object (the form's content), or decline or cancel: ${oneLine(err)}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new CliError(`--answer must be a JSON object (the form's content), got ${JSON.stringify(value)}`);
  return { action: 'accept', content: value as Record<string, unknown> };
}

/**
 * What `mcpx call` answers when the server asks the client something while a request runs: ping,
 * and form elicitations, from the --answer values in order, else on a terminal by asking each
 * field. With neither it declares no elicitation capability, so the server knows not to ask.
 */
export class ServerRequests {
  private asked = 0;

  constructor(
    private readonly answers: Answer[],
    private readonly interactive: boolean,
    private readonly io: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream } = { input: process.stdin, output: process.stderr },
  ) {}

  /** The capabilities initialize declares. */
  capabilities(): Record<string, unknown> {
    // MCP Apps declared too: from the terminal a developer reads a tool's view (its HTML) and calls
    // the tools only a view may call, as a host that renders views would.
    // (The ids as strings: this module loads only core's light errors entry.)
    const apps = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };
    return this.answers.length > 0 || this.interactive ? { elicitation: { form: {} }, ...apps } : apps;
  }

  async answer(request: Message): Promise<Reply> {
    if (request.method === 'ping') return { result: {} };
    if (request.method !== 'elicitation/create' || (request.params?.mode !== undefined && request.params.mode !== 'form')) {
      return { error: { code: ErrorCode.MethodNotFound, message: `mcpx call does not handle ${String(request.method)}${request.params?.mode ? ` (${String(request.params.mode)})` : ''}` } };
    }
    const message = String(request.params?.message ?? '');
    const answer = this.answers[this.asked++];
    if (answer) return { result: { ...answer } };
    if (!this.interactive) {
      process.stderr.write(`mcpx: the server asked "${message}", and no --answer was left for it (give one --answer per question)\n`);
      return { result: { action: 'cancel' } };
    }
    return { result: await this.ask(message, (request.params?.requestedSchema ?? {}) as { properties?: Record<string, FieldSchema>; required?: string[] }) };
  }

  /** The form on the terminal: one line per field, an empty line keeps the default (or leaves an optional field out). */
  private async ask(message: string, schema: { properties?: Record<string, FieldSchema>; required?: string[] }): Promise<Record<string, unknown>> {
    const rl = createInterface({ input: this.io.input, output: this.io.output, terminal: false });
    try {
      this.io.output.write(`\n${message}\n(answer each field; type !decline or !cancel instead to refuse)\n`);
      const content: Record<string, unknown> = {};
      for (const [name, field] of Object.entries(schema.properties ?? {})) {
        const required = schema.required?.includes(name) ?? false;
        for (;;) {
          const line = (await rl.question(`${fieldLabel(name, field, required)}: `)).trim();
          if (line === '!decline' || line === '!cancel') return { action: line.slice(1) };
          if (line === '') {
            if (field.default !== undefined) content[name] = field.default;
            if (field.default !== undefined || !required) break;
            this.io.output.write('  required\n');
            continue;
          }
          const value = coerce(line, field);
          if (value.ok) {
            content[name] = value.value;
            break;
          }
          this.io.output.write(`  ${value.problem}\n`);
        }
      }
      return { action: 'accept', content };
    } finally {
      rl.close();
    }
  }
}

function fieldLabel(name: string, field: FieldSchema, required: boolean): string {
  const choices = choicesOf(field);
  const hints = [
    field.type === 'boolean' ? 'y/n' : choices ? choices.join('|') : field.type,
    field.default !== undefined ? `default ${JSON.stringify(field.default)}` : undefined,
    required ? undefined : 'optional',
  ];
  const said = field.title ?? name;
  return `${said}${field.description ? ` (${field.description})` : ''} [${hints.filter(Boolean).join(', ')}]`;
}

function choicesOf(field: FieldSchema): string[] | undefined {
  if (field.enum) return field.enum.map(String);
  if (field.oneOf) return field.oneOf.map((o) => String(o.const));
  return undefined;
}

/** A typed line as the field's JSON type. */
function coerce(line: string, field: FieldSchema): { ok: true; value: unknown } | { ok: false; problem: string } {
  const choices = choicesOf(field);
  if (choices && !choices.includes(line)) return { ok: false, problem: `one of ${choices.join(', ')}` };
  switch (field.type) {
    case 'boolean':
      if (/^(y|yes|true)$/i.test(line)) return { ok: true, value: true };
      if (/^(n|no|false)$/i.test(line)) return { ok: true, value: false };
      return { ok: false, problem: 'y or n' };
    case 'number':
    case 'integer': {
      const n = Number(line);
      if (!Number.isFinite(n) || (field.type === 'integer' && !Number.isInteger(n))) return { ok: false, problem: `a${field.type === 'integer' ? 'n integer' : ' number'}` };
      return { ok: true, value: n };
    }
    default:
      return { ok: true, value: line };
  }
}
