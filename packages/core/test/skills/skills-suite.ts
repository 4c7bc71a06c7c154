/**
 * The Skills extension as the official client (`@modelcontextprotocol/client/ext/skills`) sees it, in
 * both eras, over whatever transport `connect` speaks: listing, getting, reading with digest
 * verification, directory reads, traversal refused, unknown URIs, and a digest that follows an edit
 * (with notifications/resources/list_changed). Not a test file itself: the transports' tests run it.
 */
import 'reflect-metadata';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { SkillsClient, SkillVerificationError } from '@modelcontextprotocol/client/ext/skills';
import { McpServer, Server } from '@mcpx/core';
import { reloadSkills } from '@mcpx/core/registry';

export const FIXTURE = join(__dirname, 'fixtures', 'catalog');
const TAGS = '# Tag rules\n\n- lowercase, hyphen-separated\n- at most five tags per note\n';

/** A copy of the fixture catalog that a test may edit. */
export function copyOfCatalog(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-skills-'));
  cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}

@Server({ name: 'skills-fixture', version: '1.0.0' })
export class SkillsFixture extends McpServer {}

export type Era = 'legacy' | 'modern';

/** A client of `era` connected to `server` (a SkillsFixture whose engine serves the copy), and how to close it. */
export type Connect = (server: SkillsFixture, folder: string, era: Era) => Promise<{ client: Client; close(): Promise<void> }>;

/** The official client of each era: pinned to 2026-07-28, or the default legacy mode (2025-11-25). */
export function clientOf(era: Era): Client {
  const client = new Client({ name: `skills-${era}`, version: '1.0.0' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  client.onerror = () => {};
  return client;
}

const errorOf = async (promise: Promise<unknown>): Promise<{ code?: number; message: string; data?: unknown }> => {
  try {
    await promise;
  } catch (err) {
    return err as { code?: number; message: string; data?: unknown };
  }
  throw new Error('expected a rejection');
};

export function skillsSuite(connect: Connect): void {
  describe.each<Era>(['legacy', 'modern'])('the %s era', (era) => {
    let folder: string;
    let server: SkillsFixture;
    let client: Client;
    let skills: SkillsClient;
    let close: () => Promise<void>;

    beforeAll(async () => {
      folder = copyOfCatalog();
      server = new SkillsFixture();
      ({ client, close } = await connect(server, folder, era));
      skills = new SkillsClient(client);
    });
    afterAll(async () => {
      await close();
      rmSync(folder, { recursive: true, force: true });
    });

    it('negotiates the era and finds the extension declared, with directoryRead and resources', () => {
      expect(client.getNegotiatedProtocolVersion()).toBe(era === 'modern' ? '2026-07-28' : '2025-11-25');
      expect(skills.supported).toBe(true);
      expect(skills.directoryRead).toBe(true);
      const capabilities = client.getServerCapabilities() as Record<string, any>;
      expect(capabilities.extensions['io.modelcontextprotocol/skills']).toEqual({ directoryRead: true });
      expect(capabilities.resources).toBeDefined();
    });

    it('lists every skill, nested ones flat, with complete manifests; caching hints in 2026-07-28 only', async () => {
      const listing = await skills.list();
      expect(listing.invalid).toEqual([]);
      expect(listing.skills.map((s) => s.uri)).toEqual(['skill://acme/billing/refunds/SKILL.md', 'skill://acme/billing/refunds/partial/SKILL.md', 'skill://tidy-notes/SKILL.md']);
      const tidy = listing.skills.find((s) => s.frontmatter.name === 'tidy-notes')!;
      expect(tidy.frontmatter).toEqual({ name: 'tidy-notes', description: "Tidy a notebook's notes - merge duplicates and normalise tags", license: 'MIT', metadata: { version: '1.2' } });
      expect(tidy.resources).toEqual([
        { uri: 'skill://tidy-notes/SKILL.md', digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), size: expect.any(Number) },
        { uri: 'skill://tidy-notes/reference/tags.md', digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), size: Buffer.byteLength(TAGS) },
      ]);
      // The enclosing skill lists its nested skill's files too.
      const refunds = listing.skills.find((s) => s.frontmatter.name === 'refunds')!;
      expect(refunds.resources === 'dynamic' ? [] : refunds.resources.map((r) => r.uri)).toEqual([
        'skill://acme/billing/refunds/SKILL.md',
        'skill://acme/billing/refunds/examples/email.md',
        'skill://acme/billing/refunds/partial/SKILL.md',
      ]);
      if (era === 'modern') expect(listing).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
      else expect(listing.ttlMs === undefined && listing.cacheScope === undefined).toBe(true);
    });

    it('gets one skill by its URI; an unknown one is -32602 "No skill is served at <uri>"', async () => {
      const got = await skills.get('skill://acme/billing/refunds/partial/SKILL.md');
      expect(got.skill.frontmatter).toEqual({ name: 'partial', description: 'Refund part of an order' });
      expect(got.ttlMs).toBe(era === 'modern' ? 0 : undefined);
      const err = await errorOf(skills.get('skill://acme/billing/chargebacks/SKILL.md'));
      expect(err).toMatchObject({ code: -32602, message: expect.stringContaining('No skill is served at skill://acme/billing/chargebacks/SKILL.md') });
      expect((await errorOf(skills.get('skill://tidy-notes/reference/tags.md'))).code).toBe(-32602);
    });

    it('reads SKILL.md and a supporting file, each verified against its size and digest', async () => {
      const { skill } = await skills.get('skill://tidy-notes/SKILL.md');
      const manifest = await skills.read(skill);
      expect(manifest).toMatchObject({ verified: true, mimeType: 'text/markdown', frontmatter: skill.frontmatter });
      expect(manifest.body).toContain('# Tidy notes');
      const tags = await skills.read(skill, 'reference/tags.md');
      expect(tags.verified).toBe(true);
      expect(tags.text).toBe(TAGS);
    });

    it('reads directories: direct children only, folders as inode/directory, SKILL.md named after its skill', async () => {
      const root = await skills.readDirectory('skill://acme/billing/refunds');
      expect(root.resources).toEqual([
        {
          uri: 'skill://acme/billing/refunds/SKILL.md',
          name: 'refunds',
          description: 'Process customer refund requests per company policy',
          mimeType: 'text/markdown',
          size: expect.any(Number),
        },
        { uri: 'skill://acme/billing/refunds/examples', name: 'examples', mimeType: 'inode/directory' },
        { uri: 'skill://acme/billing/refunds/partial', name: 'partial', mimeType: 'inode/directory' },
      ]);
      expect((await skills.readDirectory('skill://acme')).resources.map((r) => r.uri)).toEqual(['skill://acme/billing']);
      if (era === 'modern') expect(root).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
      const notDirectory = await errorOf(skills.readDirectory('skill://tidy-notes/SKILL.md'));
      expect(notDirectory).toMatchObject({ code: -32602, message: expect.stringContaining('skill://tidy-notes/SKILL.md is not a directory resource') });
      expect((await errorOf(skills.readDirectory('skill://nowhere'))).code).toBe(-32602);
    });

    it.each([
      'skill://tidy-notes/../../etc/passwd',
      'skill://tidy-notes/%2e%2e/%2e%2e/etc/passwd',
      'skill://tidy-notes/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd',
      'skill://tidy-notes/reference/../../../README.md',
      'skill://tidy-notes//etc/passwd',
      'skill:///etc/passwd',
      'skill://README.md',
      'skill://tidy-notes/%zz',
      'skill://tidy-notes/missing.md',
    ])('refuses %s with -32602 and the URI in data', async (uri) => {
      const err = await errorOf(client.readResource({ uri }));
      expect(err).toMatchObject({ code: -32602, data: { uri } });
      expect(err.message).toContain('No skill file is served at');
    });

    it('after an edit and reloadSkills(), the digest follows the file and clients hear resources/list_changed', async () => {
      const { skill: before } = await skills.get('skill://tidy-notes/SKILL.md');
      const heard = new Promise<void>((resolve) => client.setNotificationHandler('notifications/resources/list_changed', () => resolve()));
      const subscription = era === 'modern' ? await client.listen({ resourcesListChanged: true }) : undefined;
      writeFileSync(join(folder, 'tidy-notes', 'reference', 'tags.md'), '# Tag rules\n\n- lowercase\n');
      const changes = await reloadSkills(server);
      expect(changes).toEqual({ added: [], removed: [], changed: ['skill://tidy-notes/SKILL.md'], listChanged: true });
      await heard;
      await subscription?.close();
      const { skill: after } = await skills.get('skill://tidy-notes/SKILL.md');
      const digestOf = (skill: typeof before) => (skill.resources === 'dynamic' ? [] : skill.resources).find((r) => r.uri.endsWith('tags.md'))!;
      expect(digestOf(after).digest).not.toBe(digestOf(before).digest);
      expect(digestOf(after).size).toBe(Buffer.byteLength('# Tag rules\n\n- lowercase\n'));
      // The entry held from before no longer matches what the server serves.
      const stale = await errorOf(skills.read(before, 'reference/tags.md'));
      expect(stale).toBeInstanceOf(SkillVerificationError);
      expect((stale as unknown as SkillVerificationError).reason).toBe('size');
      expect((await skills.read(after, 'reference/tags.md')).text).toBe('# Tag rules\n\n- lowercase\n');
    });
  });
}
