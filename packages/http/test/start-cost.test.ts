/**
 * What a server's start loads: listen() with no JWT verifier, no skills and no route declaring a
 * schema loads neither jose, nor yaml, nor Fastify's schema compilers (about a fifth of its time
 * to listen, measured by `npm run bench`); with no OpenTelemetry registered, not the API; and
 * class-transformer's functions wait for a value that needs them. The server runs in a process of
 * its own, whose module cache is the real one; the compilers, once a route does declare a schema,
 * work as Fastify's own; and an SDK registered after the start is traced from then on.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import Fastify from 'fastify';
import { lazySchemaCompilers } from '../src/lazy-schema-compilers';

const ROOT = resolve(__dirname, '../../..');
const RUN_TS = resolve(ROOT, 'packages/stdio/test/fixtures/run-ts.js');
const FIXTURE = resolve(__dirname, 'fixtures/start-cost-server.ts');
const DEFERRED = [
  'jose',
  'yaml',
  '@fastify/ajv-compiler',
  '@fastify/fast-json-stringify-compiler',
  'ajv',
  '@opentelemetry/api',
  // Its metadata store (a module of its own) is read at start; the transforming code is not loaded.
  'class-transformer/cjs/ClassTransformer.js',
];

// A process of its own compiling the fixture, on a machine busy with other suites.
jest.setTimeout(60_000);

it('starts without loading jose, yaml, the schema compilers, the OpenTelemetry API or class-transformer, and still loads what it needs', async () => {
  const watched = [...DEFERRED, 'fastify', 'pino', 'class-transformer/cjs/storage.js'];
  const { stdout } = await promisify(execFile)(process.execPath, [RUN_TS, FIXTURE, watched.join(',')], { cwd: ROOT, timeout: 50_000 });
  const { url, loaded } = JSON.parse(stdout.trim().split('\n').pop()!) as { url: string; loaded: string[] };
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  // The check sees modules at all: the ones the server does use are there.
  expect(loaded).toEqual(['fastify', 'pino', 'class-transformer/cjs/storage.js']);
});

it('traces requests once an OpenTelemetry SDK registers after the server started', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [RUN_TS, FIXTURE, '@opentelemetry/api', 'trace-late'], { cwd: ROOT, timeout: 50_000 });
  const [started, traced] = stdout
    .trim()
    .split('\n')
    .slice(-2)
    .map((line) => JSON.parse(line) as { loaded?: string[]; spans?: string[] });
  expect(started!.loaded).toEqual([]);
  expect(traced!.spans).toEqual(['tools/call ping']);
});

describe('lazySchemaCompilers', () => {
  it('validates bodies and serializes responses by their schemas, as Fastify does', async () => {
    const app = Fastify({ schemaController: { compilersFactory: lazySchemaCompilers() } });
    app.post(
      '/',
      {
        schema: {
          body: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
          response: { 200: { type: 'object', properties: { twice: { type: 'integer' } } } },
        },
      },
      async (request) => ({ twice: (request.body as { n: number }).n * 2, dropped: 'not in the response schema' }),
    );
    try {
      const url = await app.listen({ host: '127.0.0.1', port: 0 });
      const post = (body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const good = await post({ n: 21 });
      expect(good.status).toBe(200);
      expect(await good.json()).toEqual({ twice: 42 });
      const bad = await post({ n: 'many' });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { message: string }).message).toMatch(/body\/n must be integer/);
    } finally {
      await app.close();
    }
  });
});
