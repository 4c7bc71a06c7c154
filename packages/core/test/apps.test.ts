/**
 * MCP Apps (io.modelcontextprotocol/ui) on the server side: views declared with @AppResource and
 * named by @Tool({ ui }), what clients with and without app support see, and the startup errors.
 */
import 'reflect-metadata';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppResource, McpServer, Server, Tool, createEngine } from '@mcpx/core';
import { APP_MIME_TYPE } from '@mcpx/core/protocol';
import { connect, quietOptions } from '@mcpx/testing';

const APPS = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [APP_MIME_TYPE] } } };
const BOARD = '<!doctype html><html><body><div id="board"></div></body></html>';

@AppResource({
  uri: 'ui://board/main',
  name: 'board',
  title: 'Board',
  html: BOARD,
  csp: { connectDomains: ['https://api.example.com'], resourceDomains: ['https://*.cdn.example.com'] },
  prefersBorder: true,
})
@Server({ name: 'boards', version: '1.0.0' })
class Boards extends McpServer {
  @Tool({ description: 'Shows the board', ui: 'ui://board/main', inputSchema: { type: 'object' } })
  show() {
    return 'the board has 3 cards';
  }

  @Tool({ description: 'Moves a card (the board calls it)', ui: { resourceUri: 'ui://board/main', visibility: ['app'] }, inputSchema: { type: 'object' } })
  move() {
    return 'moved';
  }

  @Tool({ description: 'Plain', inputSchema: { type: 'object' } })
  plain() {
    return 'plain';
  }
}

describe.each([['2025-11-25'], ['2026-07-28']] as const)('a server with an app view, to %s clients', (protocolVersion) => {
  it('tells a client that renders views which view each tool has, and serves the view', async () => {
    const client = await connect(new Boards(), { ...quietOptions(), protocolVersion, capabilities: APPS });
    const tools = (await client.listTools()).tools;
    expect(tools.map((t) => [t.name, t._meta])).toEqual([
      ['show', { ui: { resourceUri: 'ui://board/main' }, 'ui/resourceUri': 'ui://board/main' }],
      ['move', { ui: { resourceUri: 'ui://board/main', visibility: ['app'] }, 'ui/resourceUri': 'ui://board/main' }],
      ['plain', undefined],
    ]);
    const listed = (await client.listResources()).resources.find((r) => r.uri === 'ui://board/main');
    const meta = { ui: { csp: { connectDomains: ['https://api.example.com'], resourceDomains: ['https://*.cdn.example.com'] }, prefersBorder: true } };
    expect(listed).toMatchObject({ uri: 'ui://board/main', name: 'board', title: 'Board', mimeType: APP_MIME_TYPE, _meta: meta });
    const read = await client.readResource('ui://board/main');
    expect(read.contents).toEqual([{ uri: 'ui://board/main', mimeType: APP_MIME_TYPE, text: BOARD, _meta: meta }]);
    // The view calls its app-only tool through the host: an ordinary call.
    expect((await client.callTool('move')).content).toEqual([{ type: 'text', text: 'moved' }]);
    client.close();
  });

  it('gives a client without views working tools, no UI metadata, none of the app-only tools and no views', async () => {
    const client = await connect(new Boards(), { ...quietOptions(), protocolVersion });
    const tools = (await client.listTools()).tools;
    expect(tools.map((t) => [t.name, t._meta])).toEqual([
      ['show', undefined],
      ['plain', undefined],
    ]);
    expect((await client.callTool('show')).content).toEqual([{ type: 'text', text: 'the board has 3 cards' }]);
    await expect(client.callTool('move')).rejects.toThrow(/Unknown tool: move/);
    // Its views are left out of resources/list, and not read for it.
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual([]);
    await expect(client.readResource('ui://board/main')).rejects.toThrow();
    client.close();
  });
});

describe('declaring views', () => {
  const define = (view: object, ui: unknown = 'ui://x/view') => {
    @AppResource({ uri: 'ui://x/view', name: 'view', html: '<p>x</p>', ...view } as never)
    class S {
      @Tool({ description: 'd', ui: ui as never, inputSchema: { type: 'object' } })
      t() {
        return 'x';
      }
    }
    return () => createEngine(new S());
  };

  it('reads a file relative to the declaring module', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpx-apps-'));
    writeFileSync(join(dir, 'view.html'), '<p>from a file</p>');
    expect(() => define({ html: undefined, file: join(dir, 'view.html') })()).not.toThrow();
    expect(() => define({ html: undefined, file: './no-such-view.html' })()).toThrow(/cannot read its file .*packages\/core\/test\/no-such-view\.html: ENOENT/); // this module's folder, not the working directory;
  });

  it('refuses what the spec forbids, at startup', () => {
    expect(() => define({ uri: 'https://x/view' })).toThrow(/must be a ui:\/\/ URI/);
    expect(() => define({ csp: { connectDomains: ['*'] } })).toThrow(/csp\.connectDomains\[0\] "\*" is not an origin/);
    expect(() => define({ csp: { resourceDomains: ["'unsafe-eval'"] } })).toThrow(/is not an origin/);
    expect(() => define({ csp: { frameDomains: ['https://a.example.com; script-src *'] } })).toThrow(/is not an origin/);
    expect(() => define({ csp: { connectDomains: ['https://a.example.com/path'] } })).toThrow(/is not an origin/);
    expect(() => define({ csp: { scriptDomains: [] } })).toThrow(/unknown option `scriptDomains`/);
    expect(() => define({ permissions: { camera: { always: true } } })).toThrow(/permissions\.camera must be \{\}/);
    expect(() => define({ permissions: { usb: {} } })).toThrow(/unknown option `usb`/);
    expect(() => define({ html: undefined })).toThrow(/exactly one of html/);
    expect(() => define({}, 'ui://x/missing')()).toThrow(/ui names ui:\/\/x\/missing, which this server does not declare/);
    expect(() => define({}, { resourceUri: 'ui://x/view', visibility: [] })()).toThrow(/visibility must list/);
    expect(() => define({}, { resourceUri: 'ui://x/view', visibility: ['user'] })()).toThrow(/visibility must list/);
  });
});
