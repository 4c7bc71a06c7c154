import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';

/** What the API saw of the calls made to it. */
export interface Seen {
  requestIds: string[];
  paths: string[];
}

const pet = {
  type: 'object',
  properties: { id: { type: 'integer' }, name: { type: 'string' }, tag: { type: ['string', 'null'] } },
  required: ['id', 'name'],
} as const;

/**
 * A small pet API on Fastify that publishes its own description with @fastify/swagger (OpenAPI 3.0
 * or 3.1) at /openapi.json, as a team's real service would.
 */
export async function petApi(openapi: '3.0.3' | '3.1.0'): Promise<{ app: FastifyInstance; url: string; seen: Seen }> {
  const app = Fastify();
  const seen: Seen = { requestIds: [], paths: [] };
  const pets = new Map<number, { id: number; name: string; tag: string | null }>([[1, { id: 1, name: 'Tom', tag: 'cat' }]]);
  let next = 2;
  await app.register(swagger, { openapi: { openapi, info: { title: 'Pet API', version: '2.1.0', description: 'Pets, for tests' } } });
  app.addHook('onRequest', async (request) => {
    seen.paths.push(request.url);
  });
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
  app.get(
    '/pets',
    {
      schema: {
        operationId: 'listPets',
        summary: 'List pets',
        tags: ['pets'],
        querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, description: 'How many at most' } } },
        response: { 200: { type: 'array', items: pet } },
      },
    },
    (request) => [...pets.values()].slice(0, (request.query as { limit?: number }).limit ?? 100),
  );
  app.get(
    '/pets/:petId',
    {
      schema: {
        operationId: 'getPet',
        summary: 'Get a pet',
        tags: ['pets'],
        params: { type: 'object', properties: { petId: { type: 'integer' } }, required: ['petId'] },
        response: { 200: pet, 404: { type: 'object', properties: { message: { type: 'string' } } } },
      },
    },
    (request, reply) => pets.get((request.params as { petId: number }).petId) ?? reply.code(404).send({ message: 'no such pet' }),
  );
  app.post(
    '/pets',
    {
      schema: {
        operationId: 'createPet',
        summary: 'Add a pet',
        tags: ['pets'],
        body: { type: 'object', properties: { name: { type: 'string', minLength: 1 }, tag: { type: ['string', 'null'] } }, required: ['name'] },
        response: { 201: pet },
      },
    },
    (request, reply) => {
      const body = request.body as { name: string; tag?: string | null };
      const created = { id: next++, name: body.name, tag: body.tag ?? null };
      pets.set(created.id, created);
      return reply.code(201).send(created);
    },
  );
  app.delete(
    '/pets/:petId',
    {
      schema: {
        operationId: 'deletePet',
        summary: 'Remove a pet',
        tags: ['admin'],
        params: { type: 'object', properties: { petId: { type: 'integer' } }, required: ['petId'] },
        headers: { type: 'object', properties: { 'x-request-id': { type: 'string' } }, required: ['x-request-id'] },
        response: { 204: { type: 'null' } },
      },
    },
    (request, reply) => {
      seen.requestIds.push(request.headers['x-request-id'] as string);
      pets.delete((request.params as { petId: number }).petId);
      return reply.code(204).send();
    },
  );
  app.get(
    '/whoami',
    {
      schema: {
        operationId: 'whoAmI',
        tags: ['meta'],
        response: { 200: { type: 'object', properties: { authorization: { type: 'string' }, key: { type: 'string' } } } },
      },
    },
    (request) => ({ authorization: request.headers.authorization ?? '', key: (request.query as { key?: string }).key ?? '' }),
  );
  app.get(
    '/files/:name',
    {
      schema: {
        operationId: 'readFile',
        tags: ['meta'],
        params: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        response: { 200: { type: 'object', properties: { name: { type: 'string' } } } },
      },
    },
    (request) => ({ name: (request.params as { name: string }).name }),
  );
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url, seen };
}
