import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE_JS, FIXTURES, ROOT, requireBuild, run } from './cli';

beforeAll(requireBuild);

describe('mcpx list', () => {
  it('prints tools (title, description, input), resources, templates and prompts as text', () => {
    const r = run(['list', EXAMPLE_JS]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^mcpx-notes 0\.1\.0 \(Notes\)\n/);
    expect(r.stdout).toMatch(/\nTools \(\d+\)\n {2}create\n {4}title: Create a note\n {4}description: Creates a note and returns a link to it\.\n {4}input:\n {6}title: string \(required\)/);
    expect(r.stdout).toContain('      tags: string[] (optional, default [])');
    // The board (an MCP Apps view) first: `mcpx list` shows the author every entry, whoever may see it.
    expect(r.stdout).toMatch(/\nResources \(\d+\)\n {2}ui:\/\/notes\/board {2}board \[text\/html;profile=mcp-app\]\n[\s\S]*?\n {2}notes:\/\/index/);
    expect(r.stdout).toMatch(/\nResource templates \(\d+\)\n {2}notes:\/\/notes\/\{id\}/);
    expect(r.stdout).toMatch(/\nPrompts \(1\)\n {2}summarize\n/);
    expect(r.stdout).toContain('noteId (required)');
  });

  it('--json prints the protocol definitions for machines', () => {
    const r = run(['list', EXAMPLE_JS, '--json']);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as {
      server: { name: string };
      tools: { name: string; inputSchema: { type: string; properties: Record<string, unknown> } }[];
      resources: { uri: string }[];
      resourceTemplates: { uriTemplate: string }[];
      prompts: { name: string }[];
    };
    expect(out.server.name).toBe('mcpx-notes');
    const search = out.tools.find((t) => t.name === 'search');
    expect(search?.inputSchema.type).toBe('object');
    expect(Object.keys(search?.inputSchema.properties ?? {})).toContain('query');
    expect(out.resources.map((r) => r.uri)).toContain('notes://index');
    expect(out.resourceTemplates.map((t) => t.uriTemplate)).toContain('notes://notes/{id}');
    expect(out.prompts.map((p) => p.name)).toEqual(['summarize']);
  });

  it('accepts --server, and a default export holding an instance', () => {
    const beta = JSON.parse(run(['list', join(FIXTURES, 'two-servers.js'), '--server', 'BetaServer', '--json']).stdout) as { tools: { name: string }[] };
    expect(beta.tools.map((t) => t.name)).toEqual(['beta']);
    const gamma = run(['list', join(FIXTURES, 'instance-default.js')]);
    expect(gamma.status).toBe(0);
    expect(gamma.stdout).toMatch(/^gamma 3\.0\.0\n[\s\S]*\n {2}gamma\n {4}description: Says gamma\n {4}input: \(none\)/);
  });
});

describe('mcpx list: definition warnings', () => {
  const loose = join(FIXTURES, 'loose-input.js');
  const warning =
    'LooseServer.take: LooseInput.payload: the schema accepts any JSON value here: no design type was emitted for it (this code was compiled without decorator metadata): ' +
    'add a rule that says what it holds (@IsString(), @IsIn([...]), @IsObject(), @ValidateNested() with @Type(() => SomeClass)), ' +
    'or describe it with @Field({ schema: {...} }) (@Field({ schema: {} }) accepts any JSON value on purpose)';

  it('prints what an input schema cannot check on stderr, and lists as usual', () => {
    const r = run(['list', loose]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(`mcpx: warning: ${warning}\n`);
    expect(r.stdout).toContain('      payload: any (required)  Anything at all');
  });

  it('--json carries them as warnings', () => {
    const r = run(['list', loose, '--json']);
    expect(r.status).toBe(0);
    expect((JSON.parse(r.stdout) as { warnings: string[] }).warnings).toEqual([warning]);
    const clean = JSON.parse(run(['list', EXAMPLE_JS, '--json']).stdout) as { warnings: string[] };
    expect(clean.warnings).toEqual([]);
  });

  it('--strict makes them a definition error (exit 2)', () => {
    expect(run(['list', loose, '--strict'])).toEqual({
      status: 2,
      stdout: '',
      stderr: `mcpx: invalid server definition: strictDefinitions makes this warning an error: ${warning}\n`,
    });
    expect(run(['list', EXAMPLE_JS, '--strict']).status).toBe(0);
  });
});

describe('mcpx --help and --version', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'packages/cli/package.json'), 'utf8')) as { version: string };

  it('--version prints the package version', () => {
    for (const flag of ['--version', '-v']) expect(run([flag])).toEqual({ status: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });

  it('--help lists the commands', () => {
    const r = run(['--help']);
    expect(r.status).toBe(0);
    for (const command of ['serve', 'list', 'init']) expect(r.stdout).toContain(`mcpx ${command}`);
  });

  it('serve --help names every flag with its env var', () => {
    const r = run(['serve', '--help']);
    expect(r.status).toBe(0);
    const pairs: [string, string][] = [
      ['--port', 'MCPX_PORT, PORT'],
      ['--host', 'MCPX_HOST, HOST'],
      ['--path', 'MCPX_PATH'],
      ['--stateless', 'MCPX_STATELESS'],
      ['--json-response', 'MCPX_JSON_RESPONSE'],
      ['--allowed-origins', 'MCPX_ALLOWED_ORIGINS'],
      ['--allowed-hosts', 'MCPX_ALLOWED_HOSTS'],
      ['--session-idle-timeout', 'MCPX_SESSION_IDLE_TIMEOUT'],
      ['--log-level', 'MCPX_LOG_LEVEL'],
    ];
    for (const [flag, env] of pairs) expect(r.stdout).toMatch(new RegExp(`\\n  ${flag}\\b.*${env}`));
    for (const flag of ['--stdio', '--server']) expect(r.stdout).toContain(`  ${flag}`);
  });

  it('list --help mentions --json and --strict', () => {
    const r = run(['list', '-h']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('--json');
    expect(r.stdout).toContain('--strict');
  });
});
