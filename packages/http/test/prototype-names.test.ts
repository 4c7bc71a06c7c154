/**
 * Names from the wire that are properties of Object.prototype (`__proto__`, `constructor`,
 * `toString`...), over HTTP: as method names they are unknown methods in both eras (2026-07-28:
 * 404 and -32601; a 2025-11-25 session: -32601), never mistaken for an entry of a table; as tool,
 * prompt or resource names and task ids they are simply not found.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { McpHttpServer } from '@mcpx/http';
import { NotesServer, SAMPLE_NOTES } from '../../../apps/example/src/notes-server';
import { NotesStore } from '../../../apps/example/src/notes-store';
import { jsonOf, openSession, post, rpc, startServer, type RawResponse } from './http-kit';
import { META_CAPABILITIES, modernMeta, modernPost, refusalOf, responseOf } from './modern-kit';

/** The one message of a 2025-11-25 answer, JSON or an SSE stream (whose events carry ids). */
function legacyResponse(res: RawResponse): any {
  expect(res.status).toBe(200);
  if (String(res.headers['content-type']).startsWith('application/json')) return jsonOf(res);
  const data = res.body.split('\n').filter((line) => line.startsWith('data:') && line.slice(5).trim() !== '');
  expect(data).toHaveLength(1);
  return JSON.parse(data[0]!.slice(5));
}

const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];
const TASKS = { _meta: modernMeta({ [META_CAPABILITIES]: { extensions: { 'io.modelcontextprotocol/tasks': {} } } }) };

let server: McpHttpServer;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mcpx-prototype-names-'));
  server = await startServer(new NotesServer(new NotesStore({ dir, seed: SAMPLE_NOTES })));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(NAMES)('%s', (name) => {
  it('as a 2026-07-28 method: 404 and -32601 Method not found, with the request id', async () => {
    const error = refusalOf(await modernPost(server.url, `m-${name}`, name), 404, `m-${name}`);
    expect(error).toEqual({ code: -32601, message: `Method not found: ${name} (protocol 2026-07-28)` });
  });

  it('as a method in a 2025-11-25 session: -32601 with the request id', async () => {
    const session = await openSession(server.url);
    const response = legacyResponse(await post(server.url, rpc(`l-${name}`, name, {}), session));
    expect(response).toEqual({ jsonrpc: '2.0', id: `l-${name}`, error: { code: -32601, message: `Method not found: ${name}` } });
  });

  it('as a tool, prompt or resource name, or a task id (2026-07-28): not found', async () => {
    expect(responseOf(await modernPost(server.url, 1, 'tools/call', { name, arguments: {} }), 1).error).toEqual({ code: -32602, message: `Unknown tool: ${name}` });
    expect(responseOf(await modernPost(server.url, 2, 'prompts/get', { name }), 2).error).toEqual({ code: -32602, message: `Unknown prompt: ${name}` });
    expect(responseOf(await modernPost(server.url, 3, 'resources/read', { uri: name }), 3).error).toMatchObject({ code: -32602, message: `Resource not found: ${name}` });
    expect(responseOf(await modernPost(server.url, 4, 'tasks/get', { ...TASKS, taskId: name }), 4).error).toEqual({
      code: -32602,
      message: `Failed to retrieve task: Task not found (${name})`,
    });
  });
});
