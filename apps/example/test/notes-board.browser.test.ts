/**
 * The notes board, an MCP Apps view, in a real host page: Chromium (playwright-core) runs a page
 * with the official client and the official AppBridge (@modelcontextprotocol/ext-apps), bundled by
 * esbuild. The example server runs as `npm start` runs it (apps/example/dist/main-http.js), with
 * MCPX_CORS_ORIGINS naming the page's origin. In each era the page finds the view of `search`, renders it in a
 * sandboxed iframe, calls the tool and hands the view the result; the board shows the notes (a
 * screenshot is kept in test-results/), opens one (resources/read through the host) and deletes
 * one through the `delete` tool, whose confirmation the host answers.
 *
 * Not part of `npm test` (a fresh machine has no Chromium): `npm run test:browser`, which CI runs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { build } from 'esbuild';
import type { BrowserContext } from 'playwright-core';
import { launchChromium, servePage } from '../../../packages/http/test/browser/browser-kit';

const ROOT = join(__dirname, '..', '..', '..');
const MAIN_HTTP = join(ROOT, 'apps', 'example', 'dist', 'main-http.js');
const SHOTS = join(ROOT, 'test-results');

/** `npm start`'s entry with a fresh notebook; resolves with its MCP URL once it logs it. */
async function startExample(corsOrigin: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [MAIN_HTTP], {
    env: { ...process.env, PORT: '0', MCPX_DATA_DIR: mkdtempSync(join(tmpdir(), 'mcpx-board-')), MCPX_CORS_ORIGINS: corsOrigin, MCPX_LOG_LEVEL: 'info', CI: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    lines.on('line', (line) => {
      if (!line.includes('serving MCP over Streamable HTTP')) return;
      resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`the example exited (${code}) before serving`)));
  });
  return { child, url };
}

describe('the notes board (MCP Apps) in a host page', () => {
  let context: BrowserContext;
  let host: { origin: string; server: http.Server };
  let example: { child: ChildProcess; url: string };

  beforeAll(async () => {
    if (!existsSync(MAIN_HTTP)) throw new Error(`${MAIN_HTTP} is missing: run \`npm run build\` first`);
    const bundled = await build({
      entryPoints: [join(__dirname, '..', 'ui', 'test', 'board-host.ts')],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      target: 'chrome120',
      write: false,
      logLevel: 'silent',
    });
    host = await servePage(bundled.outputFiles[0]!.text, 'MCP Apps host');
    example = await startExample(host.origin);
    mkdirSync(SHOTS, { recursive: true });
    context = await launchChromium(mkdtempSync(join(tmpdir(), 'mcpx-board-profile-')));
  });

  afterAll(async () => {
    await context?.close();
    example?.child.kill();
    if (host) await new Promise((resolve) => host.server.close(resolve));
  });

  it.each([
    ['legacy', '2025-11-25'],
    ['modern', '2026-07-28'],
  ] as const)('renders the search results, opens a note and deletes one through the host (%s, %s)', async (era, version) => {
    const reports: [string, string][] = [];
    const page = await context.newPage();
    try {
      await page.exposeFunction('report', (event: string, detail: string) => void reports.push([event, detail]));
      await page.goto(`${host.origin}/`);
      await page.waitForFunction(() => typeof (globalThis as { runHost?: unknown }).runHost === 'function');
      // Every note of the fresh notebook has an "e" in its title or text.
      const found = JSON.parse(
        await page.evaluate(([url, e]) => (globalThis as unknown as { runHost(u: string, e: string, q: string): Promise<string> }).runHost(url, e, 'e'), [example.url, era] as const),
      ) as { notes: { id: string; title: string }[]; total: number };
      expect(reports.slice(0, 2)).toEqual([
        ['connected', version],
        ['view-initialized', 'ui://notes/board'],
      ]);
      expect(found.total).toBeGreaterThanOrEqual(2);

      const board = page.frameLocator('iframe[title="notes board"]');
      await board.locator('.card').first().waitFor();
      expect(await board.locator('#heading').textContent()).toBe(`${found.total} notes found`);
      expect(await board.locator('.card h2').allTextContents()).toEqual(found.notes.map((n) => n.title));
      const shot = join(SHOTS, `notes-board-${era}.png`);
      await page.screenshot({ path: shot });
      expect(readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');

      // Open: the view reads the note through the host.
      const first = found.notes[0]!;
      await board.locator(`.card[data-id="${first.id}"] button`, { hasText: 'Open' }).click();
      await board.locator('#status', { hasText: `Opened note ${first.id}.` }).waitFor();
      expect(await board.locator('#note').textContent()).toContain(first.title);

      // Delete: the view calls the tool through the host; the server asks to confirm; the host's user says yes.
      const last = found.notes[found.notes.length - 1]!;
      await board.locator(`.card[data-id="${last.id}"] button`, { hasText: 'Delete' }).click();
      await board.locator('#status', { hasText: `Deleted note ${last.id}.` }).waitFor();
      expect(await board.locator(`.card[data-id="${last.id}"]`).count()).toBe(0);
      expect(reports).toContainEqual(['elicited', `Delete note ${last.id} "${last.title}" for good?`]);
    } finally {
      await page.close();
    }
  });
});
