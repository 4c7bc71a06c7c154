import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The notes themselves, kept in one JSON file under a data folder. */
export interface Note {
  id: string;
  title: string;
  body: string;
  tags: string[];
  updatedAt: string;
}

export type NoteSeed = Omit<Note, 'id' | 'updatedAt'>;

export interface NotesStoreOptions {
  /** The data folder (created on the first write). Default: $MCPX_DATA_DIR or ./.data/notes. */
  dir?: string;
  /** Notes to start with when the folder holds no notes file yet. */
  seed?: NoteSeed[];
}

/** What notes.json holds. */
interface NotesFile {
  version: 1;
  nextId: number;
  notes: Note[];
}

/** The data folder the example uses: $MCPX_DATA_DIR, else ./.data/notes (relative to the working directory). */
export function defaultDataDir(): string {
  return resolve(process.env.MCPX_DATA_DIR || join('.data', 'notes'));
}

/**
 * A small file-backed store: everything lives in memory and every change rewrites
 * `<dir>/notes.json` atomically (write a temporary file, flush it, rename it over the old one), so
 * a crash leaves either the old file or the new one, never half of one. Writes are synchronous:
 * the store is the single writer of its folder, and each change is on disk before the tool answers.
 * Serve one process per data folder.
 */
export class NotesStore {
  readonly dir: string;
  readonly file: string;
  private readonly notes = new Map<string, Note>();
  private nextId = 1;

  constructor(options: NotesStoreOptions = {}) {
    this.dir = resolve(options.dir ?? defaultDataDir());
    this.file = join(this.dir, 'notes.json');
    this.removeLeftovers();
    const saved = this.load();
    if (saved) {
      this.nextId = saved.nextId;
      for (const note of saved.notes) this.notes.set(note.id, note);
    } else {
      // A fresh folder: start from the seed; it is written with the first change.
      for (const note of options.seed ?? []) this.insert(note.title, note.body, note.tags);
    }
  }

  create(title: string, body: string, tags: string[] = []): Note {
    const note = this.insert(title, body, tags);
    this.save();
    return note;
  }

  update(id: string, changes: Partial<Pick<Note, 'title' | 'body' | 'tags'>>): Note | undefined {
    const note = this.notes.get(id);
    if (!note) return undefined;
    Object.assign(note, changes, { updatedAt: new Date().toISOString() });
    this.save();
    return note;
  }

  get(id: string): Note | undefined {
    return this.notes.get(id);
  }

  delete(id: string): boolean {
    if (!this.notes.delete(id)) return false;
    this.save();
    return true;
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

  private insert(title: string, body: string, tags: string[]): Note {
    const note: Note = { id: String(this.nextId++), title, body, tags: [...tags], updatedAt: new Date().toISOString() };
    this.notes.set(note.id, note);
    return note;
  }

  /**
   * A process that died mid-write leaves its `notes.json.<pid>.tmp` behind (the rename never
   * happened, so notes.json is intact). One process serves a folder, so any such file is stale.
   */
  private removeLeftovers(): void {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for (const name of names) {
      if (/^notes\.json\.\d+\.tmp$/.test(name)) rmSync(join(this.dir, name), { force: true });
    }
  }

  private load(): NotesFile | undefined {
    let raw: string;
    try {
      raw = readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    const data = JSON.parse(raw) as NotesFile;
    if (data?.version !== 1 || !Array.isArray(data.notes) || !Number.isInteger(data.nextId)) {
      throw new Error(`${this.file} is not a notes file (version 1)`);
    }
    return data;
  }

  private save(): void {
    const data: NotesFile = { version: 1, nextId: this.nextId, notes: this.all() };
    mkdirSync(this.dir, { recursive: true });
    const temp = `${this.file}.${process.pid}.tmp`;
    try {
      const fd = openSync(temp, 'w', 0o600);
      try {
        writeSync(fd, `${JSON.stringify(data, null, 2)}\n`);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, this.file);
    } catch (err) {
      rmSync(temp, { force: true });
      throw err;
    }
  }
}
