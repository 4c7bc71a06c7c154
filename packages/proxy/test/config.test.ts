import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMcpxError } from '@mcpx/core';
import { loadProxyConfig, parseProxyConfig } from '../src';

const ENV = { GITHUB_TOKEN: 'ghp_x', KEY: 'k-1' };

describe('the proxy configuration', () => {
  it("reads Claude Desktop's mcpServers: stdio and HTTP entries, prefixes, ${VAR} and ${env:VAR}", () => {
    const config = parseProxyConfig(
      {
        mcpServers: {
          github: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${GITHUB_TOKEN}' } },
          search: { url: 'https://search.example.com/mcp', headers: { Authorization: 'Bearer ${env:KEY}' }, prefix: 'web', scopes: { '*': ['search:read'] } },
          local: { command: 'node', args: ['server.js', 'literal $${HOME}'], prefix: false, cwd: '/srv' },
          old: { type: 'sse', url: 'http://127.0.0.1:9000/sse' },
          off: { command: 'x', disabled: true },
        },
      },
      ENV,
    );
    expect(config.upstreams).toEqual([
      {
        key: 'github',
        prefix: 'github',
        scopes: {},
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-github'],
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_x' },
      },
      { key: 'search', prefix: 'web', scopes: { '*': ['search:read'] }, transport: 'http', url: 'https://search.example.com/mcp', headers: { Authorization: 'Bearer k-1' } },
      { key: 'local', prefix: undefined, scopes: {}, transport: 'stdio', command: 'node', args: ['server.js', 'literal ${HOME}'], env: {}, cwd: '/srv' },
      { key: 'old', prefix: 'old', scopes: {}, transport: 'sse', url: 'http://127.0.0.1:9000/sse', headers: {} },
    ]);
  });

  it("reads VS Code's servers with their type", () => {
    const config = parseProxyConfig({ servers: { api: { type: 'http', url: 'http://127.0.0.1:1/mcp' }, cli: { type: 'stdio', command: 'node' } } }, {});
    expect(config.upstreams.map((u) => [u.key, u.transport])).toEqual([
      ['api', 'http'],
      ['cli', 'stdio'],
    ]);
  });

  it.each([
    [{}, 'has no "mcpServers" object'],
    [{ mcpServers: {} }, 'names no server to proxy'],
    [{ mcpServers: { a: { command: 'x', url: 'http://h/mcp' } } }, '"a" has both "command" and "url"'],
    [{ mcpServers: { a: {} } }, '"a": "command" (or "url") must be a non-empty string'],
    [{ mcpServers: { a: { url: 'ftp://h/x' } } }, '"url" must be http or https'],
    [{ mcpServers: { a: { command: 'x', args: 'y' } } }, '"args" must be an array of strings'],
    [{ mcpServers: { a: { command: 'x', comand: 'y' } } }, '"a" has "comand", which a server entry does not take'],
    [{ mcpServers: { a: { command: 'x', env: { T: '${MISSING}' } } } }, 'uses ${MISSING}, which is not set in the environment'],
    [{ mcpServers: { my_server: { command: 'x' } } }, 'its key "my_server" is its prefix, but a prefix must be 1-64 letters, digits or "-"'],
    [{ mcpServers: { a: { command: 'x', prefix: 'p' }, b: { command: 'y', prefix: 'p' } } }, '"b" and "a" would both serve under the prefix "p"'],
    [{ mcpServers: { a: { command: 'x', type: 'websocket' } } }, '"type" must be "stdio", "http" or "sse"'],
    [{ mcpServers: { a: { command: 'x', scopes: ['s'] } } }, '"scopes" must be an object'],
  ])('refuses %j: %s', (json, message) => {
    let thrown: unknown;
    try {
      parseProxyConfig(json, {});
    } catch (err) {
      thrown = err;
    }
    expect(isMcpxError(thrown, 'MCPX_PROXY')).toBe(true);
    expect((thrown as Error).message).toContain(message);
  });

  it('keeps a "__proto__" variable name an ordinary key', () => {
    const config = parseProxyConfig(JSON.parse('{"mcpServers":{"a":{"command":"x","env":{"__proto__":"v"}}}}'), {});
    const env = config.upstreams[0]!.transport === 'stdio' ? config.upstreams[0]!.env : {};
    expect(Object.keys(env)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(env)).toBe(Object.prototype);
  });

  it('loads a file, and says which when it cannot', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-proxy-config-'));
    writeFileSync(join(dir, 'ok.json'), JSON.stringify({ mcpServers: { a: { command: 'node' } } }));
    writeFileSync(join(dir, 'bad.json'), '{ nope');
    expect((await loadProxyConfig(join(dir, 'ok.json'), {})).upstreams).toHaveLength(1);
    await expect(loadProxyConfig(join(dir, 'bad.json'), {})).rejects.toThrow(/bad\.json is not JSON/);
    await expect(loadProxyConfig(join(dir, 'none.json'), {})).rejects.toThrow(/cannot read .*none\.json/);
  });
});
