import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { deferModules, loadedOnFirstUse } from '../src/startup/deferred-modules';

const ROOT = path.resolve(__dirname, '../../..');
const IS_PHONE_NUMBER = path.join(ROOT, 'node_modules', 'class-validator', 'cjs', 'decorator', 'string', 'IsPhoneNumber.js');

describe('loadedOnFirstUse', () => {
  function exportsOf() {
    const parse = Object.assign((text: string) => `parsed ${text}`, { version: '1.0', nested: { deep: true } });
    Object.defineProperty(parse, 'fixed', { value: 42, enumerable: true, writable: false, configurable: false });
    return parse;
  }

  it('loads nothing until read, then loads once and is the module for every kind of read', () => {
    let loads = 0;
    const stand = loadedOnFirstUse(() => (loads++, exportsOf())) as ReturnType<typeof exportsOf> & { fixed: number };
    expect(loads).toBe(0);
    expect(typeof stand).toBe('function');
    expect(loads).toBe(0);
    expect(stand('x')).toBe('parsed x');
    expect(stand.version).toBe('1.0');
    expect(stand.nested).toEqual({ deep: true });
    expect(stand.fixed).toBe(42);
    expect('version' in stand).toBe(true);
    expect(Object.keys(stand).sort()).toEqual(['fixed', 'nested', 'version']);
    expect(Object.getOwnPropertyDescriptor(stand, 'fixed')).toEqual({ value: 42, enumerable: true, writable: false, configurable: false });
    expect(Object.getPrototypeOf(stand)).toBe(Function.prototype);
    expect(loads).toBe(1);
  });

  it.each([
    ['a property', (m: Record<string, unknown>) => m.version],
    ['its keys, as a TypeScript importStar reads them', (m: Record<string, unknown>) => Object.keys(m)],
    ['a call', (m: Record<string, unknown>) => (m as unknown as (t: string) => string)('y')],
    ['`in`', (m: Record<string, unknown>) => 'nested' in m],
  ])('loads the module on %s', (_, read) => {
    let loads = 0;
    const stand = loadedOnFirstUse(() => (loads++, exportsOf())) as Record<string, unknown>;
    read(stand);
    expect(loads).toBe(1);
    expect(stand.version).toBe('1.0');
    expect(loads).toBe(1);
  });
});

describe('deferModules', () => {
  function loader(cache: Record<string, unknown> = {}) {
    const calls: string[] = [];
    const fake = {
      _cache: cache,
      _load(request: string, parent: { filename?: string } | undefined, _isMain: boolean): unknown {
        calls.push(`${request} from ${parent?.filename ?? '-'}`);
        return { parsePhoneNumber: () => 'real' };
      },
    };
    return { fake, calls, original: fake._load };
  }

  it('gives class-validator a stand-in for libphonenumber-js, once, and puts the loader back', () => {
    const { fake, calls, original } = loader();
    deferModules(fake);
    expect(fake._load).not.toBe(original);
    // Anything else, or the same request from elsewhere, goes through.
    fake._load('pino', { filename: '/app/server.js' }, false);
    fake._load('libphonenumber-js/max', { filename: '/app/server.js' }, false);
    expect(calls).toEqual(['pino from /app/server.js', 'libphonenumber-js/max from /app/server.js']);
    const stand = fake._load('libphonenumber-js/max', { filename: IS_PHONE_NUMBER }, false) as { parsePhoneNumber: () => string };
    expect(calls).toHaveLength(2);
    expect(fake._load).toBe(original);
    expect(stand.parsePhoneNumber()).toBe('real');
    expect(calls[2]).toBe(`libphonenumber-js/max from ${IS_PHONE_NUMBER}`);
  });

  it('does nothing where class-validator is loaded already, and leaves a hook placed after its own', () => {
    const loadedBefore = loader({ [IS_PHONE_NUMBER]: {} });
    deferModules(loadedBefore.fake);
    expect(loadedBefore.fake._load).toBe(loadedBefore.original);

    const { fake, calls } = loader();
    deferModules(fake);
    const ours = fake._load;
    const theirs = function (this: unknown, request: string, parent: { filename?: string } | undefined, isMain: boolean): unknown {
      calls.push(`seen by theirs: ${request}`);
      return ours.call(this, request, parent, isMain);
    };
    fake._load = theirs;
    fake._load('libphonenumber-js/max', { filename: IS_PHONE_NUMBER }, false);
    expect(fake._load).toBe(theirs);
    expect(calls).toEqual(['seen by theirs: libphonenumber-js/max']);
  });

  it('in a real process: @mcpx/core loads class-validator without libphonenumber-js, and @IsPhoneNumber still judges as before', async () => {
    const program = `
      require('reflect-metadata');
      const loaded = () => Object.keys(require.cache).some((file) => file.includes('libphonenumber-js'));
      const { validateSync, IsPhoneNumber } = require('class-validator');
      const before = loaded();
      class Contact {}
      IsPhoneNumber('CH')(Contact.prototype, 'phone');
      const judge = (phone) => validateSync(Object.assign(new Contact(), { phone })).length === 0;
      const verdicts = [judge('+41 44 668 18 00'), judge('+1 415 555 2671'), judge('not a number')];
      const direct = require('libphonenumber-js/max');
      console.log(JSON.stringify({ before, verdicts, after: loaded(), direct: typeof direct.parsePhoneNumber }));
    `;
    const run = async (first: string) => {
      const { stdout } = await promisify(execFile)(process.execPath, ['-e', `require(${JSON.stringify(first)}); ${program}`], {
        cwd: ROOT,
        env: { ...process.env, MCPX_COMPILE_CACHE: 'off' },
      });
      return JSON.parse(stdout) as { before: boolean; verdicts: boolean[]; after: boolean; direct: string };
    };
    const core = path.join(ROOT, 'packages', 'core');
    expect(await run(core)).toEqual({ before: false, verdicts: [true, false, false], after: true, direct: 'function' });
    // Without @mcpx/core: class-validator as it comes, the same verdicts.
    expect(await run('reflect-metadata')).toEqual({ before: true, verdicts: [true, false, false], after: true, direct: 'function' });
  });
});
