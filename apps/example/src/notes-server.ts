import {
  AppResource,
  RateLimit,
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
import { redisFromEnv } from '@mcpx/core/stores';
import { AppendInput, CreateNoteInput, DeleteConfirmation, ExportInput, NoteIdInput, SearchInput, SearchResult, SummarizeArgs } from './inputs';
import { RedisNotesStore } from './notes-redis-store';
import { NotesStore, type Note, type NoteChange, type NoteSeed, type Notebook } from './notes-store';

/** The notes a fresh data folder starts with. */
export const SAMPLE_NOTES: NoteSeed[] = [
  { title: 'Welcome', body: 'This is the notes example served by mcpx.', tags: ['intro'] },
  { title: 'Shopping', body: 'Milk, eggs, coffee beans.', tags: ['home'] },
  { title: 'Release plan', body: 'Cut the release on Friday; write the changelog first.', tags: ['work', 'planning'] },
];

const NOTE_URI_PREFIX = 'notes://notes/';
const noteUri = (id: string) => `${NOTE_URI_PREFIX}${id}`;

/**
 * Where `new NotesServer()` keeps its notes: in the Redis the environment names for the server's
 * shared state ($MCPX_REDIS_URL, $MCPX_REDIS_CLUSTER_NODES or $MCPX_REDIS_SENTINELS, as `listen()`
 * reads them), under `$MCPX_REDIS_PREFIX` + `notes:`, so that replicas sharing sessions there share
 * the notebook too; else in $MCPX_DATA_DIR (default ./.data/notes). Either way a fresh store starts
 * with the samples.
 */
export function openNotebook(env: NodeJS.ProcessEnv = process.env): Notebook {
  const redis = redisFromEnv(env);
  if (redis) return new RedisNotesStore({ url: redis.url, cluster: redis.cluster, sentinel: redis.sentinel, prefix: redis.prefix || 'mcpx:', seed: SAMPLE_NOTES });
  return new NotesStore({ seed: SAMPLE_NOTES });
}

// The board a host that renders MCP Apps views shows for search results (apps/example/ui, built into
// dist/ui by `npm run build`); the path holds from src/ and from dist/ alike.
@AppResource({
  uri: 'ui://notes/board',
  name: 'board',
  title: 'Notes board',
  description: 'The notes a search found, to open or delete',
  file: '../dist/ui/board.html',
  prefersBorder: true,
})
@Server({
  name: 'mcpx-notes',
  title: 'Notes',
  version: '0.1.0',
  description: 'Create, search and read short Markdown notes.',
  instructions: 'Use search to find notes, then read notes://notes/{id} for the full text.',
  skills: '../skills', // apps/example/skills, from src/ and from dist/ alike (docs/skills.md)
})
export class NotesServer extends McpServer {
  /** With no arguments (as `mcpx serve` builds it) the notes live where `openNotebook()` says. */
  constructor(readonly store: Notebook = openNotebook()) {
    super();
  }

  @Tool({ title: 'Create a note', description: 'Creates a note and returns a link to it.', annotations: { destructiveHint: false } })
  async create(input: CreateNoteInput, ctx: RequestContext) {
    const note = await this.store.create(input.title, input.body, input.tags ?? []);
    ctx.log.info('note created', { id: note.id });
    this.changed(note);
    return [text(`Created note ${note.id}.`), resourceLink({ uri: noteUri(note.id), name: note.title, mimeType: 'text/markdown' })];
  }

  @Tool({
    title: 'Search notes',
    description: 'Finds notes whose title or text contains the query.',
    annotations: { readOnlyHint: true, openWorldHint: false },
    output: SearchResult,
    ui: 'ui://notes/board',
  })
  async search(input: SearchInput, ctx: RequestContext): Promise<SearchResult> {
    const found = await this.store.search(input.query, input.tag);
    ctx.log.debug('search', { query: input.query, hits: found.length });
    return { notes: found.slice(0, input.limit ?? 10).map(({ id, title, tags }) => ({ id, title, tags })), total: found.length };
  }

  @Tool({
    title: 'Delete a note',
    description: 'Deletes a note for good, once the user confirms it in a form (the client must support elicitation).',
    annotations: { destructiveHint: true, idempotentHint: true },
  })
  async delete(input: NoteIdInput, ctx: RequestContext) {
    const note = await this.store.get(input.id);
    if (!note) return { content: [text(`No note ${input.id}.`)], isError: true };
    const refusal = await this.confirmDelete(note, ctx);
    if (refusal) {
      ctx.log.info('delete not confirmed', { id: note.id });
      // The user saying no is an answer; being unable to ask at all is a failure the model should see.
      return { content: [text(`Kept note ${note.id}: ${refusal.reason}`)], isError: refusal.cannotAsk };
    }
    // The note may have gone while the user was deciding.
    if (!(await this.store.delete(note.id))) return { content: [text(`No note ${input.id}.`)], isError: true };
    ctx.log.warning('note deleted', { id: input.id });
    this.unlisted(note.id);
    this.notifyResourceUpdated(noteUri(input.id));
    this.notifyCollections(note);
    return `Deleted note ${input.id}.`;
  }

  @Tool({ title: 'Append to a note', description: 'Adds a line to the end of a note.' })
  async append(input: AppendInput, ctx: RequestContext) {
    const note = await this.store.append(input.id, input.line);
    if (!note) throw new Error(`No note ${input.id}`);
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
  // Exporting reads every note: 20 a minute per caller (its principal, else its session or address),
  // shared by every instance when the server runs on Redis (docs/policies.md).
  @RateLimit({ limit: 20, windowMs: 60_000, name: 'notes-export' })
  async export(input: ExportInput, ctx: RequestContext) {
    const notes = await this.store.all();
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
  async index() {
    return JSON.stringify((await this.store.all()).map(({ id, title, tags }) => ({ id, title, tags })));
  }

  @ResourceTemplate({ uriTemplate: 'notes://notes/{id}', name: 'note', title: 'A note', description: 'One note as Markdown', mimeType: 'text/markdown' })
  async note({ id }: { id: string }) {
    const note = await this.store.get(id);
    return note ? `# ${note.title}\n\n${note.body}` : undefined;
  }

  @ResourceTemplate({ uriTemplate: 'notes://tags/{tag}', name: 'tag', title: 'Notes with a tag', mimeType: 'application/json' })
  async tagged({ tag }: { tag: string }) {
    return JSON.stringify((await this.store.all()).filter((n) => n.tags.includes(tag)).map(({ id, title }) => ({ id, title })));
  }

  @Complete({ template: 'notes://notes/{id}', argument: 'id' })
  async completeNoteId(value: string): Promise<string[]> {
    return (await this.store.all()).map((n) => n.id).filter((id) => id.startsWith(value));
  }

  @Complete({ template: 'notes://tags/{tag}', argument: 'tag' })
  async completeTag(value: string): Promise<string[]> {
    return (await this.store.tags()).filter((t) => t.startsWith(value));
  }

  @Prompt({ title: 'Summarise a note', description: 'Asks the model to summarise one note.' })
  async summarize(args: SummarizeArgs) {
    const note = await this.requireNote(args.noteId, true);
    return {
      description: `Summary of "${note.title}"`,
      messages: [
        userMessage(embeddedResource(noteUri(note.id), `# ${note.title}\n\n${note.body}`, { mimeType: 'text/markdown' })),
        userMessage(`Summarise the note above${args.style === 'detailed' ? ' in detail' : ' in one sentence'}.`),
      ],
    };
  }

  @Complete({ prompt: 'summarize', argument: 'noteId' })
  completeSummarizeId(value: string): Promise<string[]> {
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

  private async requireNote(id: string, asParams = false): Promise<Note> {
    const note = await this.store.get(id);
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

  /**
   * Once served: list the stored notes as resources too. resources/list reads this process's
   * registry, so with notes shared in Redis each replica keeps its registry in step with the
   * store's change feed (a note created through one replica is listed by all of them), and reads
   * everything again when it may have missed changes. Subscribers hear `resources/updated` from
   * the replica where the change happened (`changed`), through the framework, wherever they are
   * connected; the feed only moves the lists.
   */
  override onServerInit(): void {
    if (this.store.watch) this.store.watch({ changed: (change) => this.follow(change), resync: () => this.relist() });
    else this.relist();
  }

  /** Changes heard on the feed so far: a resync that read the notes before one of them reads again. */
  private changesHeard = 0;
  /** Whether a relist is reading the notes now; `relistAgain`: one more was asked for meanwhile. */
  private relisting = false;
  private relistAgain = false;

  /** A change made through any replica (this one's own changes come back too, and change nothing). */
  private follow(change: NoteChange): void {
    this.changesHeard++;
    if (change.type === 'deleted') return this.unlisted(change.id);
    const uri = noteUri(change.id);
    if (this.registry.resources.has(uri) || Number(change.id) > this.lastListedId()) this.listed(change);
    else this.relist(); // an older note listed late (two replicas creating at once): keep the id order
  }

  /**
   * Lists exactly the stored notes, oldest first, as every replica does: entries are only added,
   * retitled or removed where the lists differ, so an unchanged list raises no list_changed.
   *
   * One read of the notes at a time: a relist asked for while one reads (a resync, a note out of
   * order, a change heard meanwhile) runs once after it, however many were asked. Unbounded, every
   * out-of-order note started a chain of reads of the whole notebook that went on for as long as
   * changes kept coming; under steady writes they piled up (31 at once, each holding ~150 HGETALLs
   * in flight, in the chaos bench) and the heap peaked higher every round.
   */
  private relist(): void {
    if (this.relisting) {
      this.relistAgain = true;
      return;
    }
    const apply = (notes: Note[]) => {
      const wanted = new Set(notes.map((n) => noteUri(n.id)));
      for (const uri of this.listedUris()) if (!wanted.has(uri)) this.registry.resources.remove(uri);
      // Up to the first note out of place, entries stay (retitled if need be); from it on, they are
      // taken out and added back in order.
      const listed = this.listedUris();
      const outOfPlace = notes.findIndex((note, i) => listed[i] !== noteUri(note.id));
      const inPlace = outOfPlace < 0 ? notes.length : outOfPlace;
      for (const note of notes.slice(0, inPlace)) this.listed(note);
      for (const uri of listed.slice(inPlace)) this.registry.resources.remove(uri);
      for (const note of notes.slice(inPlace)) this.listed(note);
    };
    const notes = this.store.all();
    if (Array.isArray(notes)) return apply(notes);
    this.relisting = true;
    const heardBefore = this.changesHeard;
    void notes
      .then(
        (all) => {
          apply(all);
          // A change heard while the notes were being read may be older than what was read, or not.
          return this.changesHeard !== heardBefore;
        },
        (err: unknown) => {
          this.engine.logger.warn({ err }, 'cannot list the notes as resources');
          return false;
        },
      )
      .then((stale) => {
        this.relisting = false;
        const again = stale || this.relistAgain;
        this.relistAgain = false;
        if (again) this.relist();
      });
  }

  private listed(note: Pick<Note, 'id' | 'title'>): void {
    const uri = noteUri(note.id);
    const listed = this.registry.resources.has(uri);
    if (listed && this.registry.resources.get(uri)?.definition.title === note.title) return;
    this.registry.addResource({ uri, name: `note-${note.id}`, title: note.title, mimeType: 'text/markdown', handler: () => this.note({ id: note.id }) }, { replace: listed });
  }

  private unlisted(id: string): void {
    this.registry.resources.remove(noteUri(id));
  }

  private listedUris(): string[] {
    return this.registry.resources.keys().filter((uri) => uri.startsWith(NOTE_URI_PREFIX));
  }

  private lastListedId(): number {
    return Math.max(0, ...this.listedUris().map((uri) => Number(uri.slice(NOTE_URI_PREFIX.length))));
  }
}

/** Waits `ms`, or rejects when `signal` aborts first; the abort listener goes with the wait (one export adds one per note). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
