import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

type Selector = (externalSchemas: unknown, options: unknown) => unknown;

/**
 * Fastify's schema compilers (ajv and fast-json-stringify), loaded the first time a route declares a
 * schema. No route listen() serves declares one, and none can be added once it listens, so a server
 * started by listen() never loads them: about a tenth of its time to listen. Fastify gets the
 * compilers it would have built itself, resolved from its own dependencies.
 */
export function lazySchemaCompilers(): CompilersFactory {
  const fromFastify = createRequire(require.resolve('fastify'));
  let validator: Selector | undefined;
  let serializer: Selector | undefined;
  const factory: Record<'buildValidator' | 'buildSerializer', Selector> = {
    buildValidator: (schemas, options) => (validator ??= (fromFastify('@fastify/ajv-compiler') as () => Selector)())(schemas, options),
    buildSerializer: (schemas, options) => (serializer ??= (fromFastify('@fastify/fast-json-stringify-compiler') as () => Selector)())(schemas, options),
  };
  return factory as unknown as CompilersFactory;
}
