/**
 * Names and answers that come off the wire, over stdio: method names that are properties of
 * Object.prototype are unknown methods in both eras (-32601 with the request's id), and a 2026-07-28
 * delete of the example server that brings an answer nobody asked for asks its question instead.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import pino from 'pino';
import { serveStdio } from '@mcpx/stdio';
import { NotesServer, SAMPLE_NOTES } from '../../../apps/example/src/notes-server';
import { NotesStore } from '../../../apps/example/src/notes-store';

const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];
const META = (capabilities: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'wire-names', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': capabilities,
});

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The example server on in-memory streams; send() writes a request and resolves with the answer to its id. */
function serve() {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-wire-names-'));
  dirs.push(dir);
  const notes = new NotesServer(new NotesStore({ dir, seed: SAMPLE_NOTES }));
  const input = new PassThrough();
  const output = new PassThrough();
  const server = serveStdio(notes, { input, output, exitProcess: false, logger: pino({ level: 'silent' }) });
  let buffer = '';
  const waiting = new Map<string | number, (message: any) => void>();
  output.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const message = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      if (message.method === undefined) waiting.get(message.id)?.(message);
    }
  });
  const send = (id: string | number, method: string, params?: object) =>
    new Promise<any>((resolve) => {
      waiting.set(id, resolve);
      input.write(JSON.stringify(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params }) + '\n');
    });
  const close = async () => {
    input.end();
    await server.closed;
  };
  return { notes, input, send, close };
}

describe('method names that are properties of Object.prototype, over stdio', () => {
  it('are unknown methods in a 2025-11-25 session: -32601 with the request id', async () => {
    const { input, send, close } = serve();
    await send(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
    input.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
    for (const [i, method] of PROTOTYPE_NAMES.entries()) {
      const id = `legacy-${i}`;
      expect(await send(id, method, {})).toEqual({ jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } });
      // Without params too: nothing about the request is read off the prototype.
      expect((await send(`${id}-bare`, method)).error.code).toBe(-32601);
    }
    expect((await send('after', 'ping')).result).toEqual({});
    await close();
  });

  it('are unknown methods as 2026-07-28 requests: -32601 with the request id', async () => {
    const { send, close } = serve();
    for (const [i, method] of PROTOTYPE_NAMES.entries()) {
      const id = 100 + i;
      const response = await send(id, method, { _meta: META() });
      expect(response).toMatchObject({ jsonrpc: '2.0', id, error: { code: -32601 } });
      expect(response.error.message).toContain(method);
    }
    const discover = await send('after', 'server/discover', { _meta: META() });
    expect(discover.result.resultType).toBe('complete');
    await close();
  });
});

describe("the example's delete over stdio, 2026-07-28", () => {
  const YES = { action: 'accept', content: { confirm: true } };

  it('asks for confirmation when the first call brings an answer nobody asked for, and keeps the note', async () => {
    const { notes, send, close } = serve();
    const response = await send(1, 'tools/call', { _meta: META({ elicitation: {} }), name: 'delete', arguments: { id: '1' }, inputResponses: { 'elicit-1': YES } });
    expect(response.result.resultType).toBe('input_required');
    expect(Object.keys(response.result.inputRequests)).toEqual(['elicit-1']);
    expect(response.result.inputRequests['elicit-1']).toMatchObject({ method: 'elicitation/create', params: { message: 'Delete note 1 "Welcome" for good?' } });
    expect(notes.store.get('1')).toMatchObject({ title: 'Welcome' });

    // Answered on the retry the server asked for (a new id, its requestState): the note goes.
    const done = await send(2, 'tools/call', {
      _meta: META({ elicitation: {} }),
      name: 'delete',
      arguments: { id: '1' },
      requestState: response.result.requestState,
      inputResponses: { 'elicit-1': YES },
    });
    expect(done.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Deleted note 1.' }] });
    expect(notes.store.get('1')).toBeUndefined();
    await close();
  });
});
