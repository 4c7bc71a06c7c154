/**
 * A replica keeps its resource list in step with the shared notebook by reading every note again
 * when it may have missed changes (a resync, a note heard out of order). Those reads go one at a
 * time: however many are asked for while one runs, one more follows it, with what was asked last.
 * Unbounded, a burst of changes under a slow Redis started a read of the whole notebook per change
 * and the heap of every replica grew with them.
 */
import { createEngine } from '@mcpx/core';
import type { Note, NoteChange, Notebook, NotebookListener } from '../src/notes-store';
import { NotesServer } from '../src/notes-server';

function slowNotebook(notes: Note[]) {
  let listener: NotebookListener | undefined;
  const reads = { started: 0, inFlight: 0, maxInFlight: 0 };
  const waiting: (() => void)[] = [];
  const notebook: Notebook = {
    create: () => Promise.reject(new Error('not used')),
    update: async () => undefined,
    append: async () => undefined,
    get: async (id) => notes.find((n) => n.id === id),
    delete: async () => false,
    search: async () => [],
    tags: async () => [],
    all: () => {
      reads.started++;
      reads.inFlight++;
      reads.maxInFlight = Math.max(reads.maxInFlight, reads.inFlight);
      return new Promise<Note[]>((resolve) =>
        waiting.push(() => {
          reads.inFlight--;
          resolve([...notes]);
        }),
      );
    },
    watch: (l) => (listener = l),
  };
  /** Lets the reads started so far answer. */
  const answer = async () => {
    for (const go of waiting.splice(0)) go();
    await new Promise((done) => setImmediate(done));
  };
  return { notebook, reads, answer, feed: () => listener! };
}

const note = (id: string, title = `Note ${id}`): Note => ({ id, title, body: '', tags: [], updatedAt: '2026-12-05T00:00:00.000Z' });

it('reads the notebook once at a time, and once more after a burst of resyncs and out-of-order changes', async () => {
  const notes = [note('1'), note('2'), note('3')];
  const { notebook, reads, answer, feed } = slowNotebook(notes);
  const engine = createEngine(new NotesServer(notebook));
  feed().resync();
  await answer();
  expect(reads.started).toBe(1);
  const listed = () => engine.registry.resources.keys().filter((uri) => uri.startsWith('notes://notes/'));
  expect(listed()).toEqual(['notes://notes/1', 'notes://notes/2', 'notes://notes/3']);

  // A burst while a read is under way: resyncs, and notes heard out of order (older than the last listed).
  feed().resync();
  notes.splice(1, 0, note('1a'));
  for (let i = 0; i < 50; i++) {
    feed().resync();
    feed().changed({ type: 'saved', id: '2', title: `Note 2 (${i})` } satisfies NoteChange);
  }
  expect(reads.started).toBe(2);
  await answer();
  // The one that was under way, then one for the whole burst.
  expect(reads.started).toBe(3);
  await answer();
  expect(reads.started).toBe(3);
  expect(reads.maxInFlight).toBe(1);
  expect(listed()).toEqual(['notes://notes/1', 'notes://notes/1a', 'notes://notes/2', 'notes://notes/3']);
});
