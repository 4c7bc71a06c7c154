import path from 'node:path';

/**
 * Modules a dependency requires as it loads but reads only when one of its functions is called.
 * class-validator requires libphonenumber-js (every country's metadata: some 70 modules, 390 KB)
 * for one rule, @IsPhoneNumber, which calls it only when it checks a value; every server paid for it
 * on every start, a phone number checked or not (about 35 ms of a first start, measured pinned on
 * the benchmark server). Required from that module, it now gets a stand-in that loads the real one
 * the first time anything reads it.
 */
const DEFERRED: readonly { request: string; from: string }[] = [
  { request: 'libphonenumber-js/max', from: path.join('node_modules', 'class-validator', 'cjs', 'decorator', 'string', 'IsPhoneNumber.js') },
];

type Load = (request: string, parent: { filename?: string } | undefined, isMain: boolean) => unknown;
interface ModuleLoader {
  _load: Load;
  _cache: Record<string, unknown>;
}

/**
 * Puts the stand-ins in place until each has been handed out once (the dependency loads once). Not
 * where the dependency is already loaded, nor outside Node's own loader (a test runner's).
 */
export function deferModules(loader: ModuleLoader = require('node:module') as ModuleLoader): void {
  if (typeof loader._load !== 'function') return;
  const cached = Object.keys(loader._cache);
  const pending = DEFERRED.filter((d) => !cached.some((file) => file.endsWith(d.from)));
  if (pending.length === 0) return;
  const original = loader._load;
  const load: Load = function (this: unknown, request, parent, isMain) {
    const at = pending.findIndex((d) => d.request === request && parent?.filename?.endsWith(d.from) === true);
    if (at < 0) return original.call(this, request, parent, isMain);
    pending.splice(at, 1);
    // Another hook placed since ours stays: ours then passes everything through.
    if (pending.length === 0 && loader._load === load) loader._load = original;
    return loadedOnFirstUse(() => original.call(loader, request, parent, false) as object);
  };
  loader._load = load;
}

/**
 * A stand-in for a module's exports: the first read of any kind (a property, a call, its keys) loads
 * the module, whose own properties it takes on, so what its user sees is the module itself.
 */
export function loadedOnFirstUse(load: () => object): object {
  let real: object | undefined;
  // A function, so it can stand in for exports that are one (libphonenumber-js's are).
  const stand = (() => undefined) as unknown as Record<PropertyKey, unknown>;
  const loaded = (): object => {
    if (real === undefined) {
      real = load();
      for (const key of Reflect.ownKeys(real)) Object.defineProperty(stand, key, Reflect.getOwnPropertyDescriptor(real, key)!);
    }
    return real;
  };
  return new Proxy(stand, {
    get: (_, key) => Reflect.get(loaded(), key),
    has: (_, key) => Reflect.has(loaded(), key),
    ownKeys: () => (loaded(), Reflect.ownKeys(stand)),
    getOwnPropertyDescriptor: (_, key) => (loaded(), Reflect.getOwnPropertyDescriptor(stand, key)),
    getPrototypeOf: () => Reflect.getPrototypeOf(loaded()),
    apply: (_, self, args) => Reflect.apply(loaded() as (...args: unknown[]) => unknown, self, args),
  });
}
