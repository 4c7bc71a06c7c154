import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEngine } from '@mcpx/core';
import { definitionWarnings, getServerOptions } from '@mcpx/core/registry';
import { connect, quietOptions } from '@mcpx/testing';
import * as nested from '../../../docs/examples/cookbook-nested';
import * as enums from '../../../docs/examples/cookbook-enums';
import * as dates from '../../../docs/examples/cookbook-dates';
import * as defaults from '../../../docs/examples/cookbook-defaults';
import * as unions from '../../../docs/examples/cookbook-unions';

// docs/cookbook.md shows, under each example, the inputSchema mcpx lists for it: checked here.
const modules: Record<string, Record<string, unknown>> = {
  'cookbook-nested.ts': nested,
  'cookbook-enums.ts': enums,
  'cookbook-dates.ts': dates,
  'cookbook-defaults.ts': defaults,
  'cookbook-unions.ts': unions,
};

const page = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'cookbook.md'), 'utf8');
const shown = [...page.matchAll(/<!-- schema: ([\w.-]+) (\w+) -->\n```json\n([\s\S]*?)```/g)].map((m) => ({ file: m[1]!, tool: m[2]!, schema: m[3]! }));

function serverOf(file: string): object {
  const cls = Object.values(modules[file] ?? {}).find((v) => typeof v === 'function' && getServerOptions(v) !== undefined);
  if (!cls) throw new Error(`${file} exports no @Server class`);
  return new (cls as new () => object)();
}

async function call(file: string, tool: string, args: Record<string, unknown>): Promise<string> {
  const client = await connect(serverOf(file), quietOptions());
  try {
    return ((await client.callTool(tool, args)).content[0] as { text: string }).text;
  } finally {
    client.close();
  }
}

describe('docs/cookbook.md', () => {
  it('shows a schema for every cookbook example', () => {
    expect(shown.map((s) => s.file).sort()).toEqual(Object.keys(modules).sort());
  });

  it.each(shown)('$file: the schema shown for $tool is the one tools/list answers', async ({ file, tool, schema }) => {
    const client = await connect(serverOf(file), quietOptions());
    const listed = (await client.listTools()).tools.find((t) => t.name === tool);
    expect(listed?.inputSchema).toEqual(JSON.parse(schema));
    client.close();
  });

  it('no example draws a definition warning, even strictly', () => {
    for (const file of Object.keys(modules)) {
      expect({ file, warnings: definitionWarnings(createEngine(serverOf(file), { ...quietOptions(), strictDefinitions: true })) }).toEqual({ file, warnings: [] });
    }
  });

  it('behaves as the page says', async () => {
    expect(
      await call('cookbook-nested.ts', 'place', {
        shipTo: { street: 'Main 1', city: 'Oslo' },
        items: [
          { sku: 'x', quantity: 2 },
          { sku: 'y', quantity: 1 },
        ],
      }),
    ).toBe('3 items to Oslo');
    const nestedIssues = await call('cookbook-nested.ts', 'place', { shipTo: { city: 'Oslo' }, items: [{ sku: 'x' }] });
    expect(nestedIssues).toContain('shipTo.street: street is required');
    expect(nestedIssues).toContain('items[0].quantity: quantity is required');

    expect(await call('cookbook-enums.ts', 'file', { priority: 'high', kind: 'bug', level: 10, watch: ['low'] })).toBe('bug at high priority');
    expect(await call('cookbook-enums.ts', 'file', { priority: 'high', kind: 'bug', level: 'Debug' })).toBe('bug at high priority'); // class-validator's @IsEnum, as the page warns

    expect(await call('cookbook-dates.ts', 'schedule', { start: '2024-05-01T11:30:00.250+02:00', reminders: ['2024-04-30T09:30:00Z'] })).toBe('Meeting on 2024-05-01 with 1 reminders');
    for (const start of ['2024-05-01', '2023-02-29T10:00:00Z', 1714555800000]) {
      expect(await call('cookbook-dates.ts', 'schedule', { start })).toBe(
        'Invalid arguments:\n- start: start must be an ISO 8601 date-time string with a time zone, such as 2024-05-01T09:30:00Z',
      );
    }

    expect(await call('cookbook-defaults.ts', 'search', { query: 'mcp' })).toBe('mcp: limit 10, exact false, language any');
    expect(await call('cookbook-defaults.ts', 'search', { query: 'mcp', limit: 3, exact: true, language: 'en' })).toBe('mcp: limit 3, exact true, language en');
    expect(await call('cookbook-defaults.ts', 'search', { limit: 3 })).toBe('Invalid arguments:\n- query: query is required');

    expect(await call('cookbook-unions.ts', 'lookup', { by: 'id', key: 42 })).toBe('by id: number 42');
    expect(await call('cookbook-unions.ts', 'lookup', { by: 'email', key: 'a@b.c', note: null })).toBe('by email: string a@b.c');
    expect(await call('cookbook-unions.ts', 'lookup', { by: 'id', key: true, note: 3 })).toBe('Invalid arguments:\n- key: key must be a string or a number\n- note: note must be a string');
  });
});
