import type * as ClassTransformer from 'class-transformer';

/**
 * class-transformer's functions, loaded the first time a value needs them (arguments the fast path
 * does not take, a class instance returned as structured content): its 34 modules stay out of a
 * server's start. Its metadata store is a module of its own, read by fast-accept without this.
 */
let loaded: typeof ClassTransformer | undefined;

export function classTransformer(): typeof ClassTransformer {
  return (loaded ??= require('class-transformer') as typeof ClassTransformer);
}
