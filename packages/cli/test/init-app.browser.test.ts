/**
 * The view `mcpx init --template app` scaffolds, in a real host page: Chromium (playwright-core)
 * runs a page with the official client and AppBridge (@modelcontextprotocol/ext-apps), bundled by
 * esbuild. The scaffold is built in the repo (as in init-app.test.ts) and served by `mcpx serve`
 * with CORS for the page's origin. The page reads the counter tool's view, renders it in a sandboxed
 * iframe, calls the tool and hands the view its result; the view's button then calls the app-only
 * `add` tool through the host.
 *
 * Not part of `npm test` (a fresh machine has no Chromium): `npm run test:browser`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { build } from 'esbuild';
import type { BrowserContext } from 'playwright-core';
import { launchChromium, servePage } from '../../http/test/browser/browser-kit';
import { runInit } from '../src/init';

const ROOT = join(__dirname, '..', '..', '..');
const CLI = join(ROOT, 'packages/cli/dist/bin.js');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

/** The host page's script (plain JavaScript, bundled by esbuild from the repo's node_modules). */
const HOST = `
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppBridge, PostMessageTransport, getToolUiResourceUri } from '@modelcontextprotocol/ext-apps/app-bridge';
const MIME = 'text/html;profile=mcp-app';
globalThis.runHost = async (url) => {
  const client = new Client({ name: 'init-app-host', version: '1.0.0' }, { capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [MIME] } } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const { tools } = await client.listTools();
  const counter = tools.find((t) => t.name === 'counter');
  const uri = getToolUiResourceUri(counter);
  const read = await client.readResource({ uri });
  if (read.contents.length !== 1 || read.contents[0].mimeType !== MIME) throw new Error(uri + ' is not one app document');
  const frame = document.createElement('iframe');
  frame.sandbox.add('allow-scripts');
  frame.title = 'counter';
  document.body.append(frame);
  const bridge = new AppBridge(client, { name: 'init-app-host', version: '1.0.0' }, { serverTools: {} }, { hostContext: { theme: 'dark', displayMode: 'inline' } });
  const initialized = new Promise((resolve) => (bridge.oninitialized = () => resolve()));
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  frame.srcdoc = read.contents[0].text;
  await initialized;
  await bridge.sendToolInput({ arguments: {} });
  const result = await client.callTool({ name: 'counter', arguments: {} });
  await bridge.sendToolResult(result);
  return uri;
};
`;

function run(args: string[], cwd: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', resolve);
  });
}

describe("the app template's view in a host page", () => {
  let dir: string;
  let context: BrowserContext;
  let host: { origin: string; server: http.Server };
  let server: { child: ChildProcess; url: string };

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
    dir = mkdtempSync(join(ROOT, '.tmp-init-'));
    const io = { stdout: { write: () => true }, stderr: { write: (t: string) => process.stderr.write(t) } };
    expect(await runInit([dir, '--name', 'counter-app', '--template', 'app'], io)).toBe(0);
    expect(await run([join(dir, 'scripts/build-ui.mjs')], dir)).toBe(0);
    expect(await run([TSC, '-p', dir], ROOT)).toBe(0);

    const bundled = await build({
      stdin: { contents: HOST, resolveDir: ROOT, loader: 'js' },
      bundle: true,
      platform: 'browser',
      format: 'iife',
      target: 'chrome120',
      write: false,
      logLevel: 'silent',
    });
    host = await servePage(bundled.outputFiles[0]!.text, 'MCP Apps host');

    const child = spawn(process.execPath, [CLI, 'serve', join(dir, 'dist/server.js'), '--port', '0', '--cors-origin', host.origin], {
      cwd: dir,
      env: { ...process.env, CI: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const found = /"url":"(http:\/\/[^"]+)"/.exec(line);
        if (found) resolve(found[1]!);
      });
      child.once('exit', (code) => reject(new Error(`mcpx serve exited (${code}) before serving`)));
    });
    server = { child, url };
    context = await launchChromium(mkdtempSync(join(tmpdir(), 'mcpx-init-app-profile-')));
  });

  afterAll(async () => {
    await context?.close();
    server?.child.kill();
    if (host) await new Promise((resolve) => host.server.close(resolve));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("shows the counter tool's result, and its button adds one through the host", async () => {
    const page = await context.newPage();
    try {
      await page.goto(`${host.origin}/`);
      await page.waitForFunction(() => typeof (globalThis as { runHost?: unknown }).runHost === 'function');
      const uri = await page.evaluate((url) => (globalThis as unknown as { runHost(u: string): Promise<string> }).runHost(url), server.url);
      expect(uri).toBe('ui://counter-app/counter');
      const view = page.frameLocator('iframe[title="counter"]');
      await view.locator('#count', { hasText: '0' }).waitFor();
      // The host's theme reached the view.
      expect(await view.locator('html').getAttribute('data-theme')).toBe('dark');
      const button = view.locator('#add');
      await button.click();
      await view.locator('#count', { hasText: '1' }).waitFor();
      await button.click();
      await view.locator('#count', { hasText: '2' }).waitFor();
      expect(await view.locator('#status').textContent()).toBe('');
    } finally {
      await page.close();
    }
  });
});
