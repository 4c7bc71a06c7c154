/**
 * The Skills extension in core, through the in-process test client in both eras: where folders are
 * resolved from, skills written in code, startup errors (missing folder, frontmatter, names,
 * limits, links out of the folder), pagination, binary files, directoryRead off, the watcher, and
 * where each era finds the declaration.
 */
import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, quietOptions, rpcErrorOf } from '@mcpx/testing';
import { McpServer, Server, UnknownOptionError, createEngine, isMcpxError } from '../../src';
import { SkillsError } from '../../src/exports/registry';
import type { SkillsOption } from '../../src/exports/registry';
import { copyOfCatalog } from './skills-suite';

const MODERN = { protocolVersion: '2026-07-28' } as const;

@Server({ name: 'relative-skills', version: '1.0.0', skills: './fixtures/catalog' })
class RelativeSkills {}

@Server({ name: 'bare', version: '1.0.0' })
class Bare extends McpServer {}

const engineWith = (skills: SkillsOption, pageSize?: number) => createEngine(new Bare(), { ...quietOptions(), skills, ...(pageSize ? { pageSize } : {}) });

const temp: string[] = [];
function folderWith(files: Record<string, string | Buffer>): string {
  const root = mkdtempSync(join(tmpdir(), 'mcpx-skills-core-'));
  temp.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}
afterAll(() => temp.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const manifest = (name: string, description = 'Does a thing', extra = '') => `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\nBody.\n`;

describe('where skills come from', () => {
  it("@Server({ skills: './…' }) resolves against the declaring file, not the working directory", async () => {
    expect(process.cwd()).not.toBe(__dirname);
    const client = await connect(new RelativeSkills(), quietOptions());
    const { skills } = await client.request<{ skills: { uri: string }[] }>('skills/list');
    expect(skills.map((s) => s.uri)).toContain('skill://tidy-notes/SKILL.md');
  });

  it('skills written in code: SKILL.md made from name and description, files served with digests', async () => {
    const client = await connect(new Bare(), {
      ...quietOptions(),
      skills: [
        { name: 'greet', prefix: 'team/tools', description: 'Say: hello', instructions: 'Greet warmly.', files: { 'ref/words.md': 'hello\n', 'logo.bin': new Uint8Array([0, 255, 1]) } },
      ],
    });
    const { skill } = await client.request<{ skill: any }>('skills/get', { uri: 'skill://team/tools/greet/SKILL.md' });
    expect(skill.frontmatter).toEqual({ name: 'greet', description: 'Say: hello' });
    const read = await client.readResource('skill://team/tools/greet/SKILL.md');
    expect(read.contents[0]).toEqual({ uri: 'skill://team/tools/greet/SKILL.md', mimeType: 'text/markdown', text: '---\nname: "greet"\ndescription: "Say: hello"\n---\n\nGreet warmly.' });
    const blob = await client.readResource('skill://team/tools/greet/logo.bin');
    expect(blob.contents[0]).toEqual({ uri: 'skill://team/tools/greet/logo.bin', mimeType: 'application/octet-stream', blob: Buffer.from([0, 255, 1]).toString('base64') });
    const entry = skill.resources.find((r: { uri: string }) => r.uri.endsWith('logo.bin'));
    expect(entry).toEqual({
      uri: 'skill://team/tools/greet/logo.bin',
      size: 3,
      digest: `sha256:${createHash('sha256')
        .update(Buffer.from([0, 255, 1]))
        .digest('hex')}`,
    });
  });

  it('a skill in code whose SKILL.md disagrees with its name, a bad path, or a path given twice is refused', () => {
    expect(() => engineWith({ name: 'a', description: 'x', files: { 'SKILL.md': manifest('b', 'x') } })).toThrow(/its SKILL.md says name "b"/);
    expect(() => engineWith({ name: 'a', description: 'x', files: { '../x.md': 'x' } })).toThrow(/must be a relative path of names/);
    expect(() =>
      engineWith({
        sources: [
          { name: 'a', description: 'x' },
          { name: 'a', description: 'x' },
        ],
      }),
    ).toThrow(/a\/SKILL.md is given twice/);
    expect(() => engineWith({ sources: [], wacth: true } as never)).toThrow(UnknownOptionError);
  });
});

describe('startup errors', () => {
  const fails = (skills: SkillsOption, message: RegExp) => {
    let thrown: unknown;
    try {
      engineWith(skills);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(SkillsError);
    expect(isMcpxError(thrown, 'MCPX_SKILLS')).toBe(true);
    expect((thrown as Error).message).toMatch(message);
  };

  it('a missing folder, or a file given as the folder', () => {
    fails('/nonexistent/skills-folder', /the folder \/nonexistent\/skills-folder does not exist/);
    const root = folderWith({ 'x/SKILL.md': manifest('x') });
    fails(join(root, 'x', 'SKILL.md'), /is not a folder/);
  });

  it.each([
    ['no frontmatter', '# just markdown\n', /must begin with a "---" line/],
    ['unclosed frontmatter', '---\nname: x\n', /no closing "---"/],
    ['invalid YAML', '---\nname: [x\n---\n', /not valid YAML/],
    ['no description', '---\nname: x\n---\n', /no "description"/],
    ['an upper-case name', manifest('X'), /the name "X" must be 1-64 lowercase/],
    ['a name that is not the folder', manifest('y'), /the name "y" must be the name of its folder \("x"\)/],
    ['a __proto__ key', manifest('x', 'd', '__proto__:\n  polluted: true\n'), /"__proto__" is not supported/],
    ['an alias', manifest('x', '&a d', 'license: *a\n'), /anchors and aliases/],
    ['metadata that is not strings', manifest('x', 'd', 'metadata:\n  n: 1\n'), /"metadata" must map strings to strings/],
  ])('a SKILL.md with %s', (_what, text, message) => {
    fails(folderWith({ 'x/SKILL.md': text }), message);
  });

  it('a skill over 512 files, or over 16 MiB', () => {
    const many: Record<string, string> = { 'big/SKILL.md': manifest('big') };
    for (let i = 0; i < 512; i++) many[`big/f/${i}.txt`] = `${i}`;
    fails(folderWith(many), /has 513 files, more than the 512/);
    fails(folderWith({ 'big/SKILL.md': manifest('big'), 'big/a.bin': Buffer.alloc(9 * 1024 * 1024), 'big/b.bin': Buffer.alloc(8 * 1024 * 1024) }), /holds \d+ bytes, more than the 16777216/);
  });

  it('a symbolic link out of the folder; one inside it is served', async () => {
    const root = folderWith({ 'x/SKILL.md': manifest('x'), 'x/real.md': 'inside\n' });
    symlinkSync(join(root, 'x', 'real.md'), join(root, 'x', 'alias.md'));
    const client = await connect(new Bare(), { ...quietOptions(), skills: root });
    expect((await client.readResource('skill://x/alias.md')).contents[0]).toMatchObject({ text: 'inside\n' });
    symlinkSync('/etc/passwd', join(root, 'x', 'passwd'));
    fails(root, /x\/passwd is a symbolic link to \/etc\/passwd, outside the skills folder/);
  });
});

describe('serving', () => {
  it('pages skills/list at the server page size; a cursor it did not issue is -32602', async () => {
    const client = await connect(new Bare(), { ...quietOptions(), skills: copyOfCatalog(), pageSize: 2 });
    const first = await client.request<{ skills: { uri: string }[]; nextCursor?: string }>('skills/list');
    expect(first.skills).toHaveLength(2);
    const second = await client.request<{ skills: { uri: string }[]; nextCursor?: string }>('skills/list', { cursor: first.nextCursor });
    expect(second.skills.map((s) => s.uri)).toEqual(['skill://tidy-notes/SKILL.md']);
    expect(second.nextCursor).toBeUndefined();
    expect(await rpcErrorOf(client.request('skills/list', { cursor: 'bogus' }))).toMatchObject({ code: -32602 });
    expect(await rpcErrorOf(client.request('skills/get', {}))).toMatchObject({ code: -32602, message: 'skills/get needs params.uri, a string' });
  });

  it('2025-11-25 finds the declaration in capabilities.extensions (not experimental); 2026-07-28 in server/discover', async () => {
    const legacy = await connect(new Bare(), { ...quietOptions(), skills: copyOfCatalog(), initialize: false });
    const init = (await legacy.initialize()) as { capabilities: Record<string, any> };
    expect(init.capabilities.extensions).toEqual({ 'io.modelcontextprotocol/skills': { directoryRead: true } });
    expect(init.capabilities.experimental?.['io.modelcontextprotocol/skills']).toBeUndefined();
    const modern = await connect(new Bare(), { ...quietOptions(), ...MODERN, skills: copyOfCatalog() });
    expect((await modern.discover()).capabilities.extensions['io.modelcontextprotocol/skills']).toEqual({ directoryRead: true });
  });

  it('directoryRead: false declares {} and leaves resources/directory/read unknown', async () => {
    const client = await connect(new Bare(), { ...quietOptions(), ...MODERN, skills: { sources: [copyOfCatalog()], directoryRead: false, cache: { ttlMs: 60_000, cacheScope: 'public' } } });
    expect((await client.discover()).capabilities.extensions['io.modelcontextprotocol/skills']).toEqual({});
    expect(await rpcErrorOf(client.request('resources/directory/read', { uri: 'skill://tidy-notes' }))).toMatchObject({ code: -32601 });
    expect(await client.request('skills/list')).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
    expect(await client.readResource('skill://tidy-notes/SKILL.md')).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
  });

  it('watch: an edit on disk is reloaded by itself, and sessions hear resources/list_changed', async () => {
    const folder = copyOfCatalog();
    temp.push(folder);
    const server = new Bare();
    const client = await connect(server, { ...quietOptions(), skills: { sources: [folder], watch: true } });
    const digest = async () =>
      (await client.request<{ skill: { resources: { uri: string; digest: string }[] } }>('skills/get', { uri: 'skill://tidy-notes/SKILL.md' })).skill.resources[0]!.digest;
    const before = await digest();
    const heard = client.nextNotification('notifications/resources/list_changed');
    writeFileSync(join(folder, 'tidy-notes', 'SKILL.md'), manifest('tidy-notes', 'Tidier'));
    await heard;
    expect(await digest()).not.toBe(before);
    expect(await digest()).toBe(`sha256:${createHash('sha256').update(manifest('tidy-notes', 'Tidier')).digest('hex')}`);
    // A reload that fails keeps what was served.
    writeFileSync(join(folder, 'tidy-notes', 'SKILL.md'), '# broken\n');
    await expect(server.reloadSkills()).rejects.toThrow(SkillsError);
    expect((await client.request<{ skill: { frontmatter: object } }>('skills/get', { uri: 'skill://tidy-notes/SKILL.md' })).skill.frontmatter).toEqual({
      name: 'tidy-notes',
      description: 'Tidier',
    });
  });

  it('reloadSkills() on a server without skills says so', async () => {
    await expect(new Bare().reloadSkills()).rejects.toThrow(/serves no skills/);
  });
});
