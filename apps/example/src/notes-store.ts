/** The notes themselves: a small in-memory store the server exposes. */
export interface Note {
  id: string;
  title: string;
  body: string;
  tags: string[];
  updatedAt: string;
}

export class NotesStore {
  private readonly notes = new Map<string, Note>();
  private nextId = 1;

  constructor(seed: Omit<Note, 'id' | 'updatedAt'>[] = []) {
    for (const note of seed) this.create(note.title, note.body, note.tags);
  }

  create(title: string, body: string, tags: string[] = []): Note {
    const note: Note = { id: String(this.nextId++), title, body, tags, updatedAt: new Date().toISOString() };
    this.notes.set(note.id, note);
    return note;
  }

  update(id: string, changes: Partial<Pick<Note, 'title' | 'body' | 'tags'>>): Note | undefined {
    const note = this.notes.get(id);
    if (!note) return undefined;
    Object.assign(note, changes, { updatedAt: new Date().toISOString() });
    return note;
  }

  get(id: string): Note | undefined {
    return this.notes.get(id);
  }

  delete(id: string): boolean {
    return this.notes.delete(id);
  }

  all(): Note[] {
    return [...this.notes.values()];
  }

  search(query: string, tag?: string): Note[] {
    const q = query.toLowerCase();
    return this.all().filter(
      (n) => (n.title.toLowerCase().includes(q) || n.body.toLowerCase().includes(q)) && (tag === undefined || n.tags.includes(tag)),
    );
  }

  tags(): string[] {
    return [...new Set(this.all().flatMap((n) => n.tags))].sort();
  }
}
