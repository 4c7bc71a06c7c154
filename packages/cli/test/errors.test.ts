import { join } from 'node:path';
import { EXAMPLE_JS, EXAMPLE_TS, FIXTURES, requireBuild, run, runAsync } from './cli';

beforeAll(requireBuild);

const fixture = (name: string) => join(FIXTURES, name);

/** Every user error: exactly one `mcpx: ...` line on stderr, nothing on stdout, exit 2, no stack trace. */
const CASES: { name: string; args: string[]; env?: Record<string, string>; message: RegExp }[] = [
  { name: 'unknown flag', args: ['serve', EXAMPLE_JS, '--bogus'], message: /^mcpx: unknown option '--bogus' \(see mcpx serve --help\)$/ },
  { name: 'unknown command', args: ['frob'], message: /^mcpx: unknown command frob: expected serve, proxy, dev, list, call, read, prompt, init or manifest/ },
  { name: 'bad port', args: ['serve', EXAMPLE_JS, '--port', '70000'], message: /^mcpx: --port must be an integer from 0 to 65535, got "70000"$/ },
  { name: 'bad port from env', args: ['serve', EXAMPLE_JS], env: { MCPX_PORT: 'abc' }, message: /^mcpx: MCPX_PORT must be an integer from 0 to 65535, got "abc"$/ },
  { name: 'bad boolean env', args: ['serve', EXAMPLE_JS], env: { MCPX_STATELESS: 'maybe' }, message: /^mcpx: MCPX_STATELESS must be true or false/ },
  { name: 'bad log level', args: ['serve', EXAMPLE_JS, '--log-level', 'loud'], message: /^mcpx: --log-level must be one of fatal, error, warn, info, debug, trace, silent, got "loud"$/ },
  { name: 'bad idle timeout', args: ['serve', EXAMPLE_JS, '--session-idle-timeout=-5'], message: /^mcpx: --session-idle-timeout must be a positive number of milliseconds, got "-5"$/ },
  { name: 'dash value', args: ['serve', EXAMPLE_JS, '--session-idle-timeout', '-5'], message: /^mcpx: option '--session-idle-timeout' argument is ambiguous \(see mcpx serve --help\)$/ },
  { name: 'missing flag value', args: ['serve', EXAMPLE_JS, '--port'], message: /^mcpx: option '--port <value>' argument missing/ },
  { name: 'HTTP flag with --stdio', args: ['serve', EXAMPLE_JS, '--stdio', '--port', '3000'], message: /^mcpx: --port applies to HTTP only, not --stdio$/ },
  { name: 'no entry', args: ['serve'], message: /^mcpx: serve needs an entry file/ },
  {
    name: 'auth flag with --stdio',
    args: ['serve', EXAMPLE_JS, '--stdio', '--auth-jwks-url', 'https://id.example/jwks'],
    message: /^mcpx: --auth-jwks-url applies to HTTP only, not --stdio$/,
  },
  { name: 'auth flag without a JWKS', args: ['serve', EXAMPLE_JS, '--auth-issuer', 'https://id.example/'], message: /^mcpx: --auth-issuer needs --auth-jwks-url \(MCPX_AUTH_JWKS_URL\)/ },
  { name: 'auth env without a JWKS', args: ['serve', EXAMPLE_JS], env: { MCPX_AUTH_AUDIENCE: 'https://mcp.example/mcp' }, message: /^mcpx: MCPX_AUTH_AUDIENCE needs --auth-jwks-url/ },
  { name: 'JWKS without issuer', args: ['serve', EXAMPLE_JS, '--auth-jwks-url', 'https://id.example/jwks'], message: /^mcpx: --auth-jwks-url needs --auth-issuer/ },
  {
    name: 'JWKS without audience',
    args: ['serve', EXAMPLE_JS, '--auth-jwks-url', 'https://id.example/jwks', '--auth-issuer', 'https://id.example/'],
    message: /^mcpx: --auth-jwks-url needs --auth-audience \(MCPX_AUTH_AUDIENCE\)/,
  },
  {
    name: 'JWKS URL not http(s)',
    args: ['serve', EXAMPLE_JS],
    env: { MCPX_AUTH_JWKS_URL: 'ftp://id.example/jwks' },
    message: /^mcpx: MCPX_AUTH_JWKS_URL must be an http\(s\) URL, got "ftp:\/\/id\.example\/jwks"$/,
  },
  { name: 'missing file', args: ['serve', 'nope/server.js'], message: /^mcpx: cannot find entry file nope\/server\.js/ },
  { name: 'missing file (list)', args: ['list', 'nope.ts'], message: /^mcpx: cannot find entry file nope\.ts/ },
  { name: 'module without server', args: ['serve', fixture('no-server.js')], message: /exports no server: export a class decorated with @Server/ },
  { name: 'ambiguous server', args: ['serve', fixture('two-servers.js')], message: /exports several servers \(AlphaServer, BetaServer\): pick one with --server <Name>$/ },
  { name: 'unknown --server', args: ['list', fixture('two-servers.js'), '--server', 'Gamma'], message: /has no server named Gamma; it exports: AlphaServer, BetaServer$/ },
  { name: 'scanner error', args: ['serve', fixture('bad-definition.js'), '--port', '0'], message: /^mcpx: invalid server definition: BrokenServer\.second: duplicate tool name "same"/ },
  {
    name: 'a .ts entry without ts-node installed',
    args: ['list', EXAMPLE_TS],
    env: { NODE_OPTIONS: `--require ${fixture('hide-ts-node.js')}` },
    message: /^mcpx: \S+notes-server\.ts is TypeScript and ts-node is not installed: npm install --save-dev ts-node typescript/,
  },
  { name: 'scanner error (list)', args: ['list', fixture('bad-definition.js')], message: /^mcpx: invalid server definition: BrokenServer\.second/ },
];

describe('mcpx errors', () => {
  it.concurrent.each(CASES)('$name', async ({ args, env, message }) => {
    const r = await runAsync(args, env);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.endsWith('\n')).toBe(true);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('no command prints the usage on stderr and exits 2', () => {
    const r = run([]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('Usage:');
  });
});
