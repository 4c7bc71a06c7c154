/**
 * `npx mcpx …` runs a command installed apart from the project, with its own copies of the
 * framework and of class-transformer. A project's input class decorated with `@Type` records that
 * in the project's class-transformer; the command must use the project's copies, or the class
 * looks undecorated. The project here is a folder outside the repository whose node_modules holds
 * its own copies of @mcpx/core and class-transformer (the rest linked), and the command is this
 * repository's build, with its own.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, ROOT, cleanEnv, requireBuild } from './cli';

const OWN_COPIES = ['class-transformer'];
let project: string;

beforeAll(() => {
  requireBuild();
  project = mkdtempSync(join(tmpdir(), 'mcpx-project-'));
  const modules = join(project, 'node_modules');
  mkdirSync(join(modules, '@mcpx'), { recursive: true });
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (name.startsWith('.') || name === '@mcpx') continue;
    if (OWN_COPIES.includes(name)) cpSync(join(ROOT, 'node_modules', name), join(modules, name), { recursive: true, dereference: true });
    else symlinkSync(join(ROOT, 'node_modules', name), join(modules, name));
  }
  // The project's own @mcpx/core: its build, a copy (so it loads the project's class-transformer).
  const core = join(modules, '@mcpx/core');
  mkdirSync(core);
  cpSync(join(ROOT, 'packages/core/package.json'), join(core, 'package.json'));
  cpSync(join(ROOT, 'packages/core/dist'), join(core, 'dist'), { recursive: true });
  writeFileSync(
    join(project, 'shop.js'),
    `require('reflect-metadata');
const { Server, Tool } = require('@mcpx/core');
const { Type } = require('class-transformer');
const { IsArray, IsString, ValidateNested } = require('class-validator');

class Item {}
IsString()(Item.prototype, 'name');
class Order {}
IsArray()(Order.prototype, 'items');
ValidateNested({ each: true })(Order.prototype, 'items');
Type(() => Item)(Order.prototype, 'items');

class Shop {
  order(input) {
    return input.items.map((item) => item.name).join(', ');
  }
}
Tool({ input: Order, description: 'Orders items' })(Shop.prototype, 'order', Object.getOwnPropertyDescriptor(Shop.prototype, 'order'));
Server({ name: 'shop', version: '1.0.0' })(Shop);
module.exports = { Shop };
`,
  );
});

afterAll(() => rmSync(project, { recursive: true, force: true }));

const mcpx = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { cwd: project, env: cleanEnv(), encoding: 'utf8', timeout: 50_000 });

it('lists an input class decorated with @Type in the project: the command uses the project’s class-transformer', () => {
  const r = mcpx(['list', 'shop.js', '--json']);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const { tools } = JSON.parse(r.stdout) as { tools: { name: string; inputSchema: { properties: Record<string, any>; $defs: Record<string, any> } }[] };
  const schema = tools[0]!.inputSchema;
  expect(schema.properties.items).toEqual({ type: 'array', items: { $ref: '#/$defs/Item' } });
  expect(schema.$defs.Item).toMatchObject({ type: 'object', properties: { name: { type: 'string' } } });
});

it('calls it, nested items transformed and validated by the project’s copies', () => {
  const ok = mcpx(['call', 'shop.js', 'order', '{"items":[{"name":"tea"},{"name":"jam"}]}']);
  expect({ status: ok.status, stdout: ok.stdout, stderr: ok.stderr }).toEqual({ status: 0, stdout: 'tea, jam\n', stderr: '' });
  const bad = mcpx(['call', 'shop.js', 'order', '{"items":[{"name":7}]}']);
  expect(bad.status).toBe(1);
  expect(bad.stderr).toBe('Invalid arguments:\n- items[0].name: name must be a string\n');
});
