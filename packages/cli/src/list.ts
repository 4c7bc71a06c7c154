import type { JsonSchema } from '@mcpx/core';
import type { McpEngine } from '@mcpx/core/transport';
import { entryOf, parse } from './args';
import { LIST_HELP } from './help';

const LIST_OPTIONS = {
  json: { type: 'boolean' },
  strict: { type: 'boolean' },
  server: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** What `mcpx list --json` prints: the protocol definitions, as clients would list them. */
export interface ListOutput {
  server: McpEngine['serverInfo'];
  tools: unknown[];
  resources: unknown[];
  resourceTemplates: unknown[];
  prompts: unknown[];
  /** What the input schemas cannot check (the server still runs); `--strict` makes them errors. */
  warnings: string[];
}

export async function runList(argv: string[]): Promise<number> {
  const { values, positionals } = parse('list', argv, LIST_OPTIONS);
  if (values.help) {
    process.stdout.write(LIST_HELP);
    return 0;
  }
  const entry = entryOf('list', positionals);
  // Loaded only now: a usage error never pays for the framework.
  const { createEngine } = await import('@mcpx/core');
  const { definitionWarnings } = await import('@mcpx/core/registry');
  const { definitionFailure, loadServer } = await import('./load-entry');
  const { default: pino } = await import('pino');
  const { instance } = await loadServer(entry, values.server as string | undefined);
  let engine: McpEngine;
  try {
    // Builds the registry (running the scanner) without serving anything.
    engine = createEngine(instance, { logger: pino({ level: 'silent' }), strictDefinitions: values.strict === true });
  } catch (err) {
    throw definitionFailure(err) ?? err;
  }
  const { registry } = engine;
  const output: ListOutput = {
    server: engine.serverInfo,
    tools: [...registry.tools.values()].map((e) => e.definition),
    resources: [...registry.resources.values()].map((e) => e.definition),
    resourceTemplates: [...registry.templates.values()].map((e) => e.definition),
    prompts: [...registry.prompts.values()].map((e) => e.definition),
    warnings: definitionWarnings(engine).map((w) => w.message),
  };
  // On stderr, so the listing (and --json) stays as it was; a server would log them at startup.
  for (const warning of output.warnings) process.stderr.write(`mcpx: warning: ${warning}\n`);
  process.stdout.write(values.json ? `${JSON.stringify(output, null, 2)}\n` : formatList(output));
  return 0;
}

type Def = Record<string, unknown> & { name?: string; title?: string; description?: string };

export function formatList(out: ListOutput): string {
  const lines: string[] = [];
  const info = out.server as Def & { version?: string };
  lines.push(`${info.name ?? 'server'}${info.version ? ` ${info.version}` : ''}${info.title ? ` (${info.title})` : ''}`);
  if (info.description) lines.push(`  ${info.description}`);
  section(lines, 'Tools', out.tools as Def[], (t) => {
    const body = describe(t);
    body.push(...schemaLines(t.inputSchema as JsonSchema | undefined, 'input'));
    if (t.outputSchema) body.push(...schemaLines(t.outputSchema as JsonSchema, 'output'));
    return [t.name ?? '?', body];
  });
  section(lines, 'Resources', out.resources as Def[], (r) => [`${r.uri as string}  ${r.name ?? ''}${r.mimeType ? ` [${r.mimeType as string}]` : ''}`, describe(r)]);
  section(lines, 'Resource templates', out.resourceTemplates as Def[], (r) => [`${r.uriTemplate as string}  ${r.name ?? ''}${r.mimeType ? ` [${r.mimeType as string}]` : ''}`, describe(r)]);
  section(lines, 'Prompts', out.prompts as Def[], (p) => {
    const body = describe(p);
    const args = (p.arguments as Def[] | undefined) ?? [];
    body.push(args.length ? 'arguments:' : 'arguments: (none)');
    for (const arg of (p.arguments as Def[] | undefined) ?? []) {
      body.push(`  ${arg.name} (${arg.required ? 'required' : 'optional'})${arg.description ? `  ${arg.description}` : ''}`);
    }
    return [p.name ?? '?', body];
  });
  return `${lines.join('\n')}\n`;
}

function section(lines: string[], title: string, items: Def[], render: (item: Def) => [string, string[]]) {
  lines.push('', `${title} (${items.length})`);
  if (items.length === 0) lines.push('  (none)');
  for (const item of items) {
    const [head, body] = render(item);
    lines.push(`  ${head}`, ...body.map((l) => `    ${l}`));
  }
}

function describe(d: Def): string[] {
  const out: string[] = [];
  if (d.title) out.push(`title: ${d.title}`);
  if (d.description) out.push(`description: ${d.description}`);
  return out;
}

/** A schema as one line per property: `name: type (required)  description`. */
function schemaLines(schema: JsonSchema | undefined, label: string): string[] {
  const s = (schema ?? {}) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  const props = Object.entries(s.properties ?? {});
  if (props.length === 0) return [`${label}: (none)`];
  const required = new Set(s.required ?? []);
  return [
    `${label}:`,
    ...props.map(([name, p]) => {
      const type = Array.isArray(p.enum) ? `one of ${p.enum.map((v) => JSON.stringify(v)).join('|')}` : typeName(p);
      const extra = [required.has(name) ? 'required' : 'optional', p.default !== undefined ? `default ${JSON.stringify(p.default)}` : ''].filter(Boolean).join(', ');
      return `  ${name}: ${type} (${extra})${p.description ? `  ${p.description as string}` : ''}`;
    }),
  ];
}

function typeName(p: Record<string, unknown>): string {
  const t = p.type;
  if (t === 'array') {
    const items = p.items as Record<string, unknown> | undefined;
    return `${items ? typeName(items) : 'any'}[]`;
  }
  if (Array.isArray(t)) return t.join('|');
  return typeof t === 'string' ? t : p.anyOf || p.oneOf ? 'union' : p.$ref ? 'object' : 'any';
}
