/**
 * Answers count only for questions this server asked, over HTTP, with the example's `delete`:
 * - 2026-07-28: an `inputResponses` on a first call (no requestState) is ignored and the question is
 *   asked; the note stays. The retry the server asked for, with its requestState, deletes it, and
 *   answers under keys the round did not ask are ignored, not refused.
 * - 2025-11-25: a client's response settles only a request the server sent on that session: another
 *   session answering with the same id changes nothing.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { McpHttpServer } from '@mcpx/http';
import { NotesServer, SAMPLE_NOTES } from '../../../apps/example/src/notes-server';
import { NotesStore } from '../../../apps/example/src/notes-store';
import { notification, post, postSse, rpc, startServer } from './http-kit';
import { META_CAPABILITIES, modernMeta, modernPost, responseOf } from './modern-kit';

const YES = { action: 'accept', content: { confirm: true } };
const ELICITING = { _meta: modernMeta({ [META_CAPABILITIES]: { elicitation: {} } }) };
const QUESTION = { method: 'elicitation/create', params: { mode: 'form', message: 'Delete note 1 "Welcome" for good?' } };

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function notesServer(): NotesServer {
  const dir = mkdtempSync(join(tmpdir(), 'mcpx-unsolicited-'));
  dirs.push(dir);
  return new NotesServer(new NotesStore({ dir, seed: SAMPLE_NOTES }));
}

describe('2026-07-28: delete with answers nobody asked for', () => {
  let notes: NotesServer;
  let server: McpHttpServer;
  beforeEach(async () => {
    notes = notesServer();
    server = await startServer(notes);
  });
  afterEach(() => server.close());

  it('asks for confirmation on a first call that brings inputResponses, and keeps the note', async () => {
    const call = { ...ELICITING, name: 'delete', arguments: { id: '1' }, inputResponses: { 'elicit-1': YES } };
    const response = responseOf(await modernPost(server.url, 1, 'tools/call', call), 1);
    expect(response.result).toMatchObject({ resultType: 'input_required', inputRequests: { 'elicit-1': QUESTION }, requestState: expect.any(String) });
    expect(Object.keys(response.result.inputRequests)).toEqual(['elicit-1']);
    expect(notes.store.get('1')).toMatchObject({ title: 'Welcome' });
  });

  it('deletes once the retry answers the question the server asked, ignoring keys it did not ask', async () => {
    const call = { ...ELICITING, name: 'delete', arguments: { id: '1' } };
    const first = responseOf(await modernPost(server.url, 1, 'tools/call', call), 1).result;
    expect(first.resultType).toBe('input_required');
    const retry = { ...call, requestState: first.requestState, inputResponses: { 'elicit-1': YES, 'elicit-2': 'not asked', other: null } };
    const done = responseOf(await modernPost(server.url, 2, 'tools/call', retry), 2);
    expect(done.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Deleted note 1.' }] });
    expect(notes.store.get('1')).toBeUndefined();
  });

  it('does not take a requestState issued for another note', async () => {
    const first = responseOf(await modernPost(server.url, 1, 'tools/call', { ...ELICITING, name: 'delete', arguments: { id: '1' } }), 1).result;
    const other = { ...ELICITING, name: 'delete', arguments: { id: '2' }, requestState: first.requestState, inputResponses: { 'elicit-1': YES } };
    const refused = responseOf(await modernPost(server.url, 2, 'tools/call', other), 2);
    expect(refused.error).toMatchObject({ code: -32602, message: expect.stringMatching(/different request/) });
    expect(notes.store.get('2')).toMatchObject({ title: 'Shopping' });
  });
});

describe('2025-11-25: a response settles only a request sent on its own session', () => {
  let notes: NotesServer;
  let server: McpHttpServer;
  beforeAll(async () => {
    notes = notesServer();
    server = await startServer(notes);
  });
  afterAll(() => server.close());

  async function elicitingSession(): Promise<string> {
    const init = await post(server.url, rpc(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 't', version: '1' } }));
    const session = init.headers['mcp-session-id'] as string;
    expect((await post(server.url, notification('notifications/initialized'), session)).status).toBe(202);
    return session;
  }
  const answer = (id: unknown, result: unknown) => JSON.stringify({ jsonrpc: '2.0', id, result });

  it("ignores another session's answer to the confirmation; the asking session's own answer decides", async () => {
    const asker = await elicitingSession();
    const intruder = await elicitingSession();
    const stream = await postSse(server.url, asker, rpc(7, 'tools/call', { name: 'delete', arguments: { id: '1' } }));
    // The first event primes the stream (no message): the question follows.
    let ask = (await stream.nextEvent())!.message;
    while (ask === undefined) ask = (await stream.nextEvent())!.message;
    expect(ask).toMatchObject(QUESTION);

    // Another session sends the yes, with the id of the asker's question.
    expect((await post(server.url, answer(ask.id, YES), intruder)).status).toBe(202);
    // The asker declines: that is the answer taken.
    expect((await post(server.url, answer(ask.id, { action: 'decline' }), asker)).status).toBe(202);
    const rest = await stream.rest();
    const result = rest.map((b) => b.message).find((m) => m?.id === 7);
    expect(result).toEqual({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'Kept note 1: the deletion was not confirmed.' }], isError: false } });
    expect(notes.store.get('1')).toMatchObject({ title: 'Welcome' });
  });
});
