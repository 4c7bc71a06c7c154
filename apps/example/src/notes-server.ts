import {
  ClientCapabilityError,
  ClientUnreachableError,
  Complete,
  McpError,
  McpServer,
  Prompt,
  Resource,
  ResourceTemplate,
  Server,
  Tool,
  embeddedResource,
  resourceLink,
  text,
  userMessage,
  type RequestContext,
} from '@mcpx/core';
import { AppendInput, CreateNoteInput, DeleteConfirmation, ExportInput, NoteIdInput, SearchInput, SearchResult, SummarizeArgs } from './inputs';
import { NotesStore, type Note, type NoteSeed } from './notes-store';

/** The notes a fresh data folder starts with. */
export const SAMPLE_NOTES: NoteSeed[] = [
  { title: 'Welcome', body: 'This is the notes example served by mcpx.', tags: ['intro'] },
  { title: 'Shopping', body: 'Milk, eggs, coffee beans.', tags: ['home'] },
  { title: 'Release plan', body: 'Cut the release on Friday; write the changelog first.', tags: ['work', 'planning'] },
];

const noteUri = (id: string) => `notes://notes/${id}`;

@Server({
  name: 'mcpx-notes',
  title: 'Notes',
  version: '0.1.0',
  description: 'Create, search and read short Markdown notes.',
  instructions: 'Use search to find notes, then read notes://notes/{id} for the full text.',
})
export class NotesServer extends McpServer {
  /**
   * With no arguments (as `mcpx serve` builds it) the notes live in $MCPX_DATA_DIR, default
   * ./.data/notes; a fresh folder starts with three sample notes.
   */
  constructor(readonly store = new NotesStore({ seed: SAMPLE_NOTES })) {
    super();
  }

  @Tool({ title: 'Create a note', description: 'Creates a note and returns a link to it.', annotations: { destructiveHint: false } })
  create(input: CreateNoteInput, ctx: RequestContext) {
    const note = this.store.create(input.title, input.body, input.tags ?? []);
    ctx.log.info('note created', { id: note.id });
    this.changed(note);
    return [text(`Created note ${note.id}.`), resourceLink({ uri: noteUri(note.id), name: note.title, mimeType: 'text/markdown' })];
  }

  @Tool({
    title: 'Search notes',
    description: 'Finds notes whose title or text contains the query.',
    annotations: { readOnlyHint: true, openWorldHint: false },
    output: SearchResult,
  })
  search(input: SearchInput, ctx: RequestContext): SearchResult {
    const found = this.store.search(input.query, input.tag);
    ctx.log.debug('search', { query: input.query, hits: found.length });
    return { notes: found.slice(0, input.limit ?? 10).map(({ id, title, tags }) => ({ id, title, tags })), total: found.length };
  }

  @Tool({
    title: 'Delete a note',
    description: 'Deletes a note for good, once the user confirms it in a form (the client must support elicitation).',
    annotations: { destructiveHint: true, idempotentHint: true },
  })
  async delete(input: NoteIdInput, ctx: RequestContext) {
    const note = this.store.get(input.id);
    if (!note) return { content: [text(`No note ${input.id}.`)], isError: true };
    const refusal = await this.confirmDelete(note, ctx);
    if (refusal) {
      ctx.log.info('delete not confirmed', { id: note.id });
      // The user saying no is an answer; being unable to ask at all is a failure the model should see.
      return { content: [text(`Kept note ${note.id}: ${refusal.reason}`)], isError: refusal.cannotAsk };
    }
    // The note may have gone while the user was deciding.
    if (!this.store.delete(note.id)) return { content: [text(`No note ${input.id}.`)], isError: true };
    ctx.log.warning('note deleted', { id: input.id });
    this.registry.resources.remove(noteUri(input.id));
    this.notifyResourceUpdated(noteUri(input.id));
    this.notifyCollections(note);
    return `Deleted note ${input.id}.`;
  }

  @Tool({ title: 'Append to a note', description: 'Adds a line to the end of a note.' })
  append(input: AppendInput, ctx: RequestContext) {
    const note = this.requireNote(input.id);
    this.store.update(note.id, { body: `${note.body}\n${input.line}` });
    ctx.log.info('note appended', { id: note.id });
    this.changed(note);
    return `Appended to note ${note.id}.`;
  }

  @Tool({
    title: 'Export all notes',
    description: 'Renders every note; slow on purpose, reports progress, can be cancelled and can run as a task.',
    annotations: { readOnlyHint: true },
    taskSupport: 'optional',
  })
  async export(input: ExportInput, ctx: RequestContext) {
    const notes = this.store.all();
    const parts: string[] = [];
    for (const [i, note] of notes.entries()) {
      await this.pause(input.delayMs ?? 50, ctx.signal);
      parts.push(input.format === 'json' ? JSON.stringify(note) : `# ${note.title}\n\n${note.body}`);
      ctx.progress(i + 1, notes.length, `exported ${note.title}`);
    }
    ctx.log.notice('export finished', { notes: notes.length });
    return parts.join(input.format === 'json' ? '\n' : '\n\n---\n\n');
  }

  /** The export's wait before each note (slow on purpose); tests override it to hold the export where they want. */
  protected pause(ms: number, signal: AbortSignal): Promise<void> {
    return sleep(ms, signal);
  }

  @Resource({ uri: 'notes://index', name: 'index', title: 'All notes', description: 'Every note id and title, as JSON', mimeType: 'application/json' })
  index() {
    return JSON.stringify(this.store.all().map(({ id, title, tags }) => ({ id, title, tags })));
  }

  @ResourceTemplate({ uriTemplate: 'notes://notes/{id}', name: 'note', title: 'A note', description: 'One note as Markdown', mimeType: 'text/markdown' })
  note({ id }: { id: string }) {
    const note = this.store.get(id);
    return note ? `# ${note.title}\n\n${note.body}` : undefined;
  }

  @ResourceTemplate({ uriTemplate: 'notes://tags/{tag}', name: 'tag', title: 'Notes with a tag', mimeType: 'application/json' })
  tagged({ tag }: { tag: string }) {
    return JSON.stringify(this.store.all().filter((n) => n.tags.includes(tag)).map(({ id, title }) => ({ id, title })));
  }

  @Complete({ template: 'notes://notes/{id}', argument: 'id' })
  completeNoteId(value: string): string[] {
    return this.store.all().map((n) => n.id).filter((id) => id.startsWith(value));
  }

  @Complete({ template: 'notes://tags/{tag}', argument: 'tag' })
  completeTag(value: string): string[] {
    return this.store.tags().filter((t) => t.startsWith(value));
  }

  @Prompt({ title: 'Summarise a note', description: 'Asks the model to summarise one note.' })
  summarize(args: SummarizeArgs) {
    const note = this.requireNote(args.noteId, true);
    return {
      description: `Summary of "${note.title}"`,
      messages: [
        userMessage(embeddedResource(noteUri(note.id), `# ${note.title}\n\n${note.body}`, { mimeType: 'text/markdown' })),
        userMessage(`Summarise the note above${args.style === 'detailed' ? ' in detail' : ' in one sentence'}.`),
      ],
    };
  }

  @Complete({ prompt: 'summarize', argument: 'noteId' })
  completeSummarizeId(value: string): string[] {
    return this.completeNoteId(value);
  }

  @Complete({ prompt: 'summarize', argument: 'style' })
  completeStyle(value: string): string[] {
    return ['brief', 'detailed'].filter((s) => s.startsWith(value));
  }

  /**
   * Asks the user to confirm a deletion. Fails closed: only an accepted form with confirm=true
   * deletes; a decline, a cancel, confirm=false, a client that cannot show forms and a server that
   * cannot ask (stateless) all keep the note. Returns why it was kept, or undefined to go ahead.
   */
  private async confirmDelete(note: Note, ctx: RequestContext): Promise<{ reason: string; cannotAsk: boolean } | undefined> {
    try {
      const answer = await ctx.elicit(`Delete note ${note.id} "${note.title}" for good?`, DeleteConfirmation);
      if (answer.action === 'accept' && answer.content?.confirm === true) return undefined;
      return { reason: 'the deletion was not confirmed.', cannotAsk: false };
    } catch (err) {
      if (err instanceof ClientUnreachableError) {
        return { reason: 'this server runs stateless, so it cannot ask for the confirmation a deletion needs.', cannotAsk: true };
      }
      if (err instanceof ClientCapabilityError) {
        return { reason: 'this client cannot show the confirmation form a deletion needs (it declared no elicitation capability).', cannotAsk: true };
      }
      throw err;
    }
  }

  /** The index and the tag views of a note changed with it: tell their subscribers. */
  private notifyCollections(note: Note): void {
    this.notifyResourceUpdated('notes://index');
    for (const tag of note.tags) this.notifyResourceUpdated(`notes://tags/${tag}`);
  }

  private requireNote(id: string, asParams = false): Note {
    const note = this.store.get(id);
    if (note) return note;
    if (asParams) throw McpError.invalidParams(`No note ${id}`);
    throw new Error(`No note ${id}`);
  }

  /** Each note is also listed as a resource; changes reach subscribers and list watchers. */
  private changed(note: Note): void {
    this.listed(note);
    this.notifyResourceUpdated(noteUri(note.id));
    this.notifyCollections(note);
  }

  /** Once served: list the stored notes as resources too. */
  override onServerInit(): void {
    for (const note of this.store.all()) this.listed(note);
  }

  private listed(note: Note): void {
    const uri = noteUri(note.id);
    if (this.registry.resources.has(uri)) return;
    this.registry.addResource({ uri, name: `note-${note.id}`, title: note.title, mimeType: 'text/markdown', handler: () => this.note({ id: note.id }) });
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}
