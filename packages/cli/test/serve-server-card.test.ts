import { join } from 'node:path';
import { serveSettings } from '../src/serve';
import { CliError } from '../src/errors';
import { EXAMPLE_JS, FIXTURES, requireBuild, runAsync, serveHttp } from './cli';

/** `--server-card` and MCPX_SERVER_CARD: the experimental MCP server card on `mcpx serve`. */

const CARD_SERVER = join(FIXTURES, 'card-server.js');

describe('--server-card and MCPX_SERVER_CARD map onto listen({ serverCard })', () => {
  const http = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
    const settings = serveSettings([EXAMPLE_JS, ...argv], env);
    if (settings === 'help') throw new Error('unexpected help');
    return settings.http;
  };

  it('is off unless given; the flag wins over the variable', () => {
    expect(http([])).not.toHaveProperty('serverCard');
    expect(http(['--server-card']).serverCard).toBe(true);
    expect(http([], { MCPX_SERVER_CARD: '1' }).serverCard).toBe(true);
    expect(http([], { MCPX_SERVER_CARD: 'false' }).serverCard).toBe(false);
    expect(http(['--server-card'], { MCPX_SERVER_CARD: 'no' }).serverCard).toBe(true);
  });

  it.each([
    [['--stdio', '--server-card'], {}, /^--server-card applies to HTTP only, not --stdio$/],
    [[], { MCPX_SERVER_CARD: 'maybe' }, /^MCPX_SERVER_CARD must be true or false/],
  ] as [string[], NodeJS.ProcessEnv, RegExp][])('refuses %j %j', (argv, env, message) => {
    let error: unknown;
    try {
      serveSettings([EXAMPLE_JS, ...argv], env);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CliError);
    expect((error as Error).message).toMatch(message);
  });
});

describe('mcpx serve --server-card, end to end', () => {
  beforeAll(requireBuild);
  jest.setTimeout(40_000);

  it('serves the card at <endpoint>/server-card and /.well-known/mcp/server-card.json', async () => {
    const server = await serveHttp([CARD_SERVER, '--port', '0', '--server-card']);
    try {
      const port = new URL(server.url).port;
      for (const url of [`${server.url}/server-card`, new URL('/.well-known/mcp/server-card.json', server.url).href]) {
        const res = await fetch(url, { headers: { accept: 'application/mcp-server-card+json' } });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/mcp-server-card+json');
        expect(res.headers.get('access-control-allow-origin')).toBe('*');
        expect(await res.json()).toEqual({
          $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
          name: 'io.github.acme/card-demo',
          version: '1.4.0',
          title: 'Card demo',
          description: 'Says hello, and shows its card.',
          remotes: [{ type: 'streamable-http', url: `http://127.0.0.1:${port}/mcp`, supportedProtocolVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'] }],
        });
      }
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('is off without the flag', async () => {
    const server = await serveHttp([CARD_SERVER, '--port', '0']);
    try {
      expect((await fetch(`${server.url}/server-card`)).status).toBe(404);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('stops with exit code 2 and one line when the server has no reverse-DNS name to put on the card', async () => {
    const r = await runAsync(['serve', EXAMPLE_JS, '--port', '0'], { MCPX_SERVER_CARD: 'true' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^mcpx: serverCard: the card needs a reverse-DNS name, namespace\/name .*"mcpx-notes" is not one.*\n$/);
  });
});
