/**
 * The host page of apps/example/test/notes-board.browser.test.ts, bundled for Chromium by esbuild at
 * test time (never run in Node; type-checked with the board by apps/example/ui/tsconfig.json). It is what an MCP Apps host does: the official client connects to the example
 * server declaring the Apps extension, finds the view of the `search` tool, reads it, renders it in
 * a sandboxed iframe joined to the server by the official AppBridge, calls the tool and hands the
 * view its result. The view's own calls (open, delete) go through the bridge to the same client; a
 * deletion's confirmation (an elicitation) is answered here, as a host asks its user.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppBridge, PostMessageTransport, getToolUiResourceUri } from '@modelcontextprotocol/ext-apps/app-bridge';

const APP_MIME_TYPE = 'text/html;profile=mcp-app';

interface HostGlobals {
  /** Exposed by the test: an event and its detail. */
  report(event: string, detail: string): Promise<void>;
  runHost?: (url: string, era: 'legacy' | 'modern', query: string) => Promise<string>;
}

const page = globalThis as unknown as HostGlobals;

page.runHost = async (url, era, query) => {
  const client = new Client(
    { name: 'board-test-host', version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} }, extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [APP_MIME_TYPE] } } },
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  // The deletion's confirmation form: this host's user says yes.
  client.setRequestHandler('elicitation/create', async (request) => {
    await page.report('elicited', String(request.params.message));
    return { action: 'accept', content: { confirm: true } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  await page.report('connected', client.getNegotiatedProtocolVersion() ?? '');

  const { tools } = await client.listTools();
  const search = tools.find((t) => t.name === 'search')!;
  const viewUri = getToolUiResourceUri(search)!;
  const read = await client.readResource({ uri: viewUri });
  const view = read.contents[0]!;
  if (read.contents.length !== 1 || view.mimeType !== APP_MIME_TYPE || !('text' in view)) throw new Error(`${viewUri} is not one app document`);

  const frame = document.createElement('iframe');
  frame.sandbox.add('allow-scripts');
  frame.style.cssText = 'width: 760px; height: 480px; border: 1px solid #999';
  frame.title = 'notes board';
  document.body.append(frame);
  const bridge = new AppBridge(
    client,
    { name: 'board-test-host', version: '1.0.0' },
    { serverTools: {}, serverResources: {}, openLinks: {} },
    { hostContext: { theme: 'light', displayMode: 'inline' } },
  );
  const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  frame.srcdoc = view.text;
  await initialized;
  await page.report('view-initialized', viewUri);

  const args = { query };
  await bridge.sendToolInput({ arguments: args });
  const result = await client.callTool({ name: 'search', arguments: args });
  await bridge.sendToolResult(result);
  return JSON.stringify(result.structuredContent);
};
