import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { serveSettings } from '../src/serve';
import { CliError } from '../src/errors';
import { BIN, EXAMPLE_JS, ROOT, cleanEnv, requireBuild, serveHttp } from './cli';
import { petApi } from '../../openapi/test/pet-api';

/** `mcpx serve --openapi SPEC --base-url URL`: an OpenAPI description's operations as tools, no entry file. */

describe('--openapi settings', () => {
  const settingsOf = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
    const settings = serveSettings(argv, env);
    if (settings === 'help') throw new Error('unexpected help');
    return settings;
  };

  it('takes the description, the base URL, headers and tags from flags or MCPX_OPENAPI_*', () => {
    expect(
      settingsOf([
        '--openapi',
        'api.yaml',
        '--base-url',
        'https://api.example.com/v1',
        '--openapi-header',
        'Authorization: Bearer t',
        '--openapi-header',
        'X-Team:core',
        '--openapi-exclude-tags',
        'admin',
      ]).openapi,
    ).toEqual({
      spec: 'api.yaml',
      baseUrl: 'https://api.example.com/v1',
      headers: { Authorization: 'Bearer t', 'X-Team': 'core' },
      excludeTags: ['admin'],
    });
    expect(
      settingsOf([], {
        MCPX_OPENAPI: 'https://api.example.com/openapi.json',
        MCPX_OPENAPI_BASE_URL: 'https://api.example.com',
        MCPX_OPENAPI_HEADERS: '{"x-api-key":"k"}',
        MCPX_OPENAPI_TAGS: 'pets,store',
      }),
    ).toMatchObject({
      entry: '',
      openapi: { headers: { 'x-api-key': 'k' }, includeTags: ['pets', 'store'] },
    });
  });

  it.each([
    [['--openapi', 'api.yaml'], {}, /^--openapi needs --base-url \(MCPX_OPENAPI_BASE_URL\)/],
    [['--openapi', 'api.yaml', '--base-url', 'file:///etc'], {}, /^--base-url must be an http\(s\) URL/],
    [['--openapi', 'api.yaml', '--base-url', 'https://a.example', EXAMPLE_JS], {}, /^--openapi serves the description's operations: give it no entry file/],
    [['--openapi', 'api.yaml', '--base-url', 'https://a.example', '--server', 'Notes'], {}, /^--server picks a class in an entry file/],
    [['--openapi', 'api.yaml', '--base-url', 'https://a.example', '--openapi-header', 'no colon'], {}, /^--openapi-header must be "Name: value"/],
    [[EXAMPLE_JS, '--base-url', 'https://a.example'], {}, /^--base-url needs --openapi \(MCPX_OPENAPI\)/],
    [['--openapi', 'api.yaml', '--base-url', 'https://a.example'], { MCPX_OPENAPI_HEADERS: '["x"]' }, /^MCPX_OPENAPI_HEADERS must be a JSON object/],
  ] as [string[], NodeJS.ProcessEnv, RegExp][])('refuses %j %j', (argv, env, message) => {
    let error: unknown;
    try {
      serveSettings(argv, env);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CliError);
    expect((error as Error).message).toMatch(message);
  });
});

describe('mcpx serve --openapi, end to end', () => {
  let api: Awaited<ReturnType<typeof petApi>>;
  beforeAll(async () => {
    requireBuild();
    api = await petApi('3.1.0');
  });
  afterAll(() => api?.app.close());
  jest.setTimeout(40_000);

  const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);
  const structured = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
    ((await client.callTool({ name, arguments: args })) as { structuredContent?: unknown }).structuredContent;

  it('serves the operations over HTTP with the configured credentials, leaving out an excluded tag', async () => {
    const running = await serveHttp([
      '--openapi',
      `${api.url}/openapi.json`,
      '--base-url',
      api.url,
      '--port',
      '0',
      '--openapi-header',
      'Authorization: Bearer from-cli',
      '--openapi-exclude-tags',
      'admin',
    ]);
    const client = new Client({ name: 'cli-openapi', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(running.url)));
      expect(client.getServerVersion()).toMatchObject({ name: 'Pet API', version: '2.1.0' });
      expect(await names(client)).toEqual(['listPets', 'createPet', 'getPet', 'whoAmI', 'readFile']);
      expect(await structured(client, 'whoAmI')).toEqual({ authorization: 'Bearer from-cli', key: '' });
      expect(await structured(client, 'getPet', { petId: 1 })).toEqual({ id: 1, name: 'Tom', tag: 'cat' });
    } finally {
      await client.close();
      expect(await running.stop()).toBe(0);
    }
  });

  it('serves them over stdio, taking the settings from the environment', async () => {
    requireBuild();
    const client = new Client({ name: 'cli-openapi-stdio', version: '1.0.0' });
    const env = cleanEnv({ MCPX_OPENAPI: `${api.url}/openapi.json`, MCPX_OPENAPI_BASE_URL: api.url, MCPX_OPENAPI_HEADERS: '{"authorization":"Bearer from-env"}', MCPX_OPENAPI_TAGS: 'meta' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--stdio'], cwd: ROOT, env: env as Record<string, string>, stderr: 'pipe' }));
    try {
      expect(await names(client)).toEqual(['whoAmI', 'readFile']);
      expect(await structured(client, 'whoAmI')).toEqual({ authorization: 'Bearer from-env', key: '' });
    } finally {
      await client.close();
    }
  });
});
