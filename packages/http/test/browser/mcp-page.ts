/**
 * The page of browser-cors.browser.test.ts: the official SDK client, bundled for the browser by
 * esbuild at test time. Not a test itself; it runs in Chromium, never in Node.
 *
 * `runMcp(url)` connects over Streamable HTTP, lists the tools, calls one, then waits for
 * `notifications/tools/list_changed` on the standalone GET stream (the test makes the server send
 * it), lists again and ends the session. Along the way it reports to the test through `report`,
 * which the test exposes to the page.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

/** What one fetch by the client saw: what a page's script may read of the answer. */
export interface SeenResponse {
  method: string;
  status: number;
  contentType: string | null;
  /** Mcp-Session-Id as the script reads it: null unless the server exposes the header. */
  sessionId: string | null;
}

export type RunResult =
  | { connected: false; error: string }
  | {
      connected: true;
      server: string | undefined;
      tools: string[];
      called: string;
      toolsAfterChange: string[];
      responses: SeenResponse[];
    };

interface PageGlobals {
  /** Exposed by the test: an event name and its detail (JSON). */
  report(event: string, detail: string): Promise<void>;
  runMcp?: (url: string) => Promise<RunResult>;
}

const page = globalThis as unknown as PageGlobals;

page.runMcp = async (url: string): Promise<RunResult> => {
  const responses: SeenResponse[] = [];
  // The browser's own fetch, watched: the GET stream opens in the background after initialize,
  // and the test waits for it before making the server send on it.
  const watched = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    const seen: SeenResponse = {
      method: init?.method ?? 'GET',
      status: response.status,
      contentType: response.headers.get('content-type'),
      sessionId: response.headers.get('mcp-session-id'),
    };
    responses.push(seen);
    if (seen.method === 'GET' && response.ok) await page.report('get-stream-open', JSON.stringify(seen));
    return response;
  };

  const client = new Client({ name: 'browser-page', version: '1.0.0' });
  const listChanged = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: watched });
  try {
    await client.connect(transport);
  } catch (err) {
    return { connected: false, error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
  }
  const tools = (await client.listTools()).tools.map((t) => t.name);
  const result = await client.callTool({ name: 'hello', arguments: {} });
  const called = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? c.type).join('');
  await page.report('called', called);

  await listChanged;
  const toolsAfterChange = (await client.listTools()).tools.map((t) => t.name);
  await transport.terminateSession(); // DELETE
  await client.close();
  return { connected: true, server: client.getServerVersion()?.name, tools, called, toolsAfterChange, responses };
};
