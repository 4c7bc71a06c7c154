/**
 * What the browser tests (*.browser.test.ts) share: Debian's Chromium launched quietly through
 * playwright-core, and a page of one bundled script served from an origin of its own.
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Chromium with its profile in `profileDir`; an error saying how to install it when it is missing. */
export async function launchChromium(profileDir: string): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}. This test drives a real browser: install Debian's package with ` +
        '`sudo apt-get install -y chromium` (or set CHROMIUM_PATH to a Chromium binary), then run `npm run test:browser` again.',
    );
  }
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    // Without these, Chromium phones home (updates, sync, QUIC probes) on a closed network.
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A page at `/` that runs `script` (served at /page.js), on 127.0.0.1: each one a different origin (another port). */
export async function servePage(script: string, title: string): Promise<{ origin: string; server: http.Server }> {
  const html = `<!doctype html><meta charset="utf-8"><title>${title}</title><body><script src="/page.js"></script></body>`;
  const server = http.createServer((req, res) => {
    if (req.url === '/') return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    if (req.url === '/page.js') return res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
