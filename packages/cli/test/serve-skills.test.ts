/**
 * `mcpx serve --skills DIR` (and MCPX_SKILLS): the folder's skills served with the server's own,
 * over HTTP and stdio, read with the official client's ext/skills; a folder that cannot be served
 * stops the command with exit 2 and says why. The example's own skill comes from @Server({ skills }).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { join } from 'node:path';
import { BIN, EXAMPLE_JS, ROOT, cleanEnv, requireBuild, run, serveHttp } from './cli';

beforeAll(requireBuild);
jest.setTimeout(40_000);

const CATALOG = join(ROOT, 'packages/core/test/skills/fixtures/catalog');

const skillUris = async (client: Client) => (await new SkillsClient(client).list()).skills.map((s) => s.uri);

describe('mcpx serve --skills', () => {
  it("over HTTP (2026-07-28): the folder and the example's own skill, each file verified", async () => {
    const server = await serveHttp([EXAMPLE_JS, '--port', '0', '--skills', CATALOG]);
    try {
      const client = new Client({ name: 'cli-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      expect(await skillUris(client)).toEqual([
        'skill://acme/billing/refunds/SKILL.md',
        'skill://acme/billing/refunds/partial/SKILL.md',
        'skill://tidy-notebook/SKILL.md',
        'skill://tidy-notes/SKILL.md',
      ]);
      const skills = new SkillsClient(client);
      const { skill } = await skills.get('skill://tidy-notebook/SKILL.md');
      expect((await skills.read(skill, 'reference/tags.md')).verified).toBe(true);
      await client.close();
    } finally {
      await server.stop();
    }
  });

  it('over stdio (2025-11-25) from MCPX_SKILLS, a relative folder against the working directory', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'serve', EXAMPLE_JS, '--stdio'],
      cwd: ROOT,
      env: cleanEnv({ MCPX_SKILLS: 'packages/core/test/skills/fixtures/catalog' }) as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'cli-test', version: '1.0.0' });
    await client.connect(transport);
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    expect(await skillUris(client)).toContain('skill://tidy-notes/SKILL.md');
    const { skill } = await new SkillsClient(client).get('skill://tidy-notes/SKILL.md');
    expect((await new SkillsClient(client).read(skill)).frontmatter).toEqual(skill.frontmatter);
    await client.close();
  });

  it('a missing folder stops it with exit 2, naming the folder', () => {
    const r = run(['serve', EXAMPLE_JS, '--stdio', '--skills', 'no/such/folder']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`cannot serve the skills: skills: the folder ${join(ROOT, 'no/such/folder')} does not exist`);
  });

  it('lists --skills in its help', () => {
    expect(run(['serve', '--help']).stdout).toMatch(/--skills <dir> .*MCPX_SKILLS/);
  });
});
