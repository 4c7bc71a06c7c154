import 'reflect-metadata';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { BrowserContext, Page } from 'playwright-core';
import { McpServer, Server, Tool } from '@mcpx/core';
import type { McpHttpServer } from '@mcpx/http';
import type { RunResult } from './browser/mcp-page';
import { launchChromium, servePage } from './browser/browser-kit';
import { startServer } from './http-kit';

/**
 * A real browser as the client: Debian's Chromium, driven by playwright-core, runs a page with the
 * official SDK client (bundled by esbuild for the browser) served from another origin than the
 * MCP server. With CORS on for the page's origin, it connects, lists tools, calls one and hears
 * a notification on the standalone GET stream; from an origin not in the list, it is refused.
 *
 * Not part of `npm test` (a fresh machine has no Chromium): `npm run test:browser`, which CI runs.
 */

const PAGE_ENTRY = join(__dirname, 'browser', 'mcp-page.ts');

@Server({ name: 'browser-fixture', version: '1.0.0' })
class Fixture extends McpServer {
  @Tool({ description: 'Greets the browser' })
  hello() {
    return 'hello, browser';
  }
}

/** What reached the MCP server, as Node's HTTP server saw it (preflights included, which the page cannot see). */
interface Seen {
  method: string;
  origin: string | undefined;
  preflight: boolean;
  status: number;
}

/** Events the page reports, each awaited by name (no timers: the page says when). */
class Reports {
  private readonly got = new Map<string, string>();
  private readonly waiting = new Map<string, (detail: string) => void>();

  receive(event: string, detail: string): void {
    this.got.set(event, detail);
    this.waiting.get(event)?.(detail);
  }

  next(event: string): Promise<string> {
    const done = this.got.get(event);
    if (done !== undefined) return Promise.resolve(done);
    return new Promise((resolve) => this.waiting.set(event, resolve));
  }
}

describe('a browser client (Chromium, the official SDK) over CORS', () => {
  let workDir: string;
  let context: BrowserContext;
  let mcp: McpHttpServer;
  let fixture: Fixture;
  let allowed: { origin: string; server: http.Server };
  let refused: { origin: string; server: http.Server };
  const seen: Seen[] = [];

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'mcpx-browser-'));
    await build({
      entryPoints: [PAGE_ENTRY],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      target: 'chrome120',
      outfile: join(workDir, 'page.js'),
      logLevel: 'silent',
    });
    const script = await readFile(join(workDir, 'page.js'), 'utf8');
    allowed = await servePage(script, 'mcpx browser client');
    refused = await servePage(script, 'mcpx browser client');

    fixture = new Fixture();
    // allowedOrigins: [] keeps the loopback default out: only the CORS origin may call, so the
    // refused page (another loopback port) gets the Origin check's 403.
    mcp = await startServer(fixture, { allowedOrigins: [], cors: { origins: [allowed.origin] } });
    // A second listener on Node's server only watches: Fastify's own answers every request.
    mcp.app.server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      res.once('finish', () =>
        seen.push({
          method: req.method!,
          origin: req.headers.origin,
          preflight: req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined,
          status: res.statusCode,
        }),
      );
    });

    context = await launchChromium(join(workDir, 'profile'));
  });

  afterAll(async () => {
    await context?.close();
    await mcp?.close();
    for (const page of [allowed, refused]) if (page) await new Promise((resolve) => page.server.close(resolve));
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  async function openPage(origin: string, reports: Reports): Promise<Page> {
    const page = await context.newPage();
    await page.exposeFunction('report', (event: string, detail: string) => reports.receive(event, detail));
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => typeof (globalThis as { runMcp?: unknown }).runMcp === 'function');
    return page;
  }

  it('connects from the CORS origin, lists and calls tools, and hears list_changed on the GET stream', async () => {
    const reports = new Reports();
    const page = await openPage(allowed.origin, reports);
    const run = page.evaluate((url) => (globalThis as unknown as { runMcp(u: string): Promise<RunResult> }).runMcp(url), mcp.url);

    // The page has called its tool and its GET stream is open: now the server sends on that stream
    // (no request of the page is in flight, so nothing else could carry it).
    const [stream] = await Promise.all([reports.next('get-stream-open'), reports.next('called')]);
    expect(JSON.parse(stream)).toMatchObject({ method: 'GET', status: 200, contentType: 'text/event-stream' });
    fixture.registry.addTool({
      name: 'late_arrival',
      description: 'Added while the page is connected',
      inputSchema: { type: 'object', properties: {} },
      handler: () => 'late',
    });

    const result = await run;
    if (!result.connected) throw new Error(`the page could not connect: ${result.error}`);
    expect(result.server).toBe('browser-fixture');
    expect(result.tools).toEqual(['hello']);
    expect(result.called).toBe('hello, browser');
    expect(result.toolsAfterChange).toEqual(['hello', 'late_arrival']);
    // The page's script could read Mcp-Session-Id (exposed): the initialize answer carried it.
    const initialize = result.responses.find((r) => r.method === 'POST' && r.sessionId !== null);
    expect(initialize).toMatchObject({ status: 200, contentType: expect.stringMatching(/^application\/json/) });
    expect(result.responses.some((r) => r.method === 'POST' && r.contentType === 'text/event-stream')).toBe(true);
    expect(result.responses.find((r) => r.method === 'DELETE')).toMatchObject({ status: 200 });

    // The browser asked first (preflights) and the server said yes; every request came from the page's origin.
    const fromPage = seen.filter((s) => s.origin === allowed.origin);
    expect(fromPage.filter((s) => s.preflight).length).toBeGreaterThan(0);
    expect(fromPage.filter((s) => s.preflight).every((s) => s.status === 204)).toBe(true);
    expect(new Set(fromPage.filter((s) => !s.preflight).map((s) => s.method))).toEqual(new Set(['POST', 'GET', 'DELETE']));
    expect(fromPage.every((s) => s.status < 400)).toBe(true);
    await page.close();
  });

  it('refuses the same page from an origin not in the list: 403 to the preflight, and connect fails', async () => {
    const page = await openPage(refused.origin, new Reports());
    const result = await page.evaluate((url) => (globalThis as unknown as { runMcp(u: string): Promise<RunResult> }).runMcp(url), mcp.url);
    expect(result).toEqual({ connected: false, error: expect.stringMatching(/^TypeError: Failed to fetch/) });

    const fromRefused = seen.filter((s) => s.origin === refused.origin);
    // The initialize POST needs a preflight (JSON body, MCP headers): refused, it was never sent.
    expect(fromRefused).toEqual([{ method: 'OPTIONS', origin: refused.origin, preflight: true, status: 403 }]);
    await page.close();
  });
});
