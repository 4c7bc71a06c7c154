import { serveSettings } from '../src/serve';
import { CliError } from '../src/errors';
import { EXAMPLE_JS, INITIALIZE, requireBuild, run, serveHttp } from './cli';

/** `--cors-origin <list>` and MCPX_CORS_ORIGINS: CORS for browser clients on `mcpx serve`. */

const APP = 'https://app.example.com';

describe('--cors-origin and MCPX_CORS_ORIGINS map onto listen({ cors })', () => {
  const http = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
    const settings = serveSettings([EXAMPLE_JS, ...argv], env);
    if (settings === 'help') throw new Error('unexpected help');
    return settings.http;
  };

  it('is off unless given', () => {
    expect(http([])).not.toHaveProperty('cors');
  });

  it('takes a comma list from the flag', () => {
    expect(http(['--cors-origin', `${APP}, http://localhost:5173`]).cors).toEqual({ origins: [APP, 'http://localhost:5173'] });
  });

  it('takes the list from MCPX_CORS_ORIGINS; the flag wins over it', () => {
    expect(http([], { MCPX_CORS_ORIGINS: APP }).cors).toEqual({ origins: [APP] });
    expect(http(['--cors-origin=https://other.example.com'], { MCPX_CORS_ORIGINS: APP }).cors).toEqual({ origins: ['https://other.example.com'] });
  });

  it('takes * alone', () => {
    expect(http(['--cors-origin', '*']).cors).toEqual({ origins: ['*'] });
  });

  it.each([
    [['--cors-origin', `*,${APP}`], {}, /^--cors-origin: \* stands alone \(any origin\), got "\*,https:\/\/app\.example\.com"$/],
    [['--cors-origin', `${APP}/mcp`], {}, /^--cors-origin takes origins like https:\/\/app\.example\.com \(scheme, host, port; no path\), got "https:\/\/app\.example\.com\/mcp"$/],
    [[], { MCPX_CORS_ORIGINS: 'app.example.com' }, /^MCPX_CORS_ORIGINS takes origins like/],
    [[], { MCPX_CORS_ORIGINS: 'null' }, /got "null"$/],
    [['--cors-origin', ' , '], {}, /^--cors-origin needs a comma-separated list/],
    [['--stdio', '--cors-origin', APP], {}, /^--cors-origin applies to HTTP only, not --stdio$/],
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

describe('mcpx serve with CORS, end to end', () => {
  beforeAll(requireBuild);
  jest.setTimeout(40_000);

  const preflight = (url: string, origin: string) =>
    fetch(url, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,mcp-protocol-version' },
    });

  it('--cors-origin: preflights from that origin get 204, others 403', async () => {
    const server = await serveHttp([EXAMPLE_JS, '--port', '0', '--cors-origin', APP]);
    try {
      const ok = await preflight(server.url, APP);
      expect(ok.status).toBe(204);
      expect(ok.headers.get('access-control-allow-origin')).toBe(APP);
      expect(ok.headers.get('access-control-allow-headers')).toMatch(/MCP-Protocol-Version/);
      expect((await preflight(server.url, 'https://evil.example.com')).status).toBe(403);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('MCPX_CORS_ORIGINS: the answers carry the CORS headers, Mcp-Session-Id exposed', async () => {
    const server = await serveHttp([EXAMPLE_JS, '--port', '0'], { MCPX_CORS_ORIGINS: APP });
    try {
      const res = await fetch(server.url, {
        method: 'POST',
        headers: { origin: APP, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(INITIALIZE),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe(APP);
      expect(res.headers.get('access-control-expose-headers')).toMatch(/Mcp-Session-Id/);
      expect(res.headers.get('mcp-session-id')).toBeTruthy();
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('a bad origin is a usage error: one line, exit 2', () => {
    const r = run(['serve', EXAMPLE_JS, '--port', '0', '--cors-origin', 'https://app.example.com/path']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toMatch(/^mcpx: --cors-origin takes origins like https:\/\/app\.example\.com/);
  });

  it('serve --help names the flag with its env var', () => {
    const r = run(['serve', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/\n {2}--cors-origin <list>\s.*MCPX_CORS_ORIGINS/);
  });
});
