import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** One note. */
export interface Note {
  id: string;
  title: string;
  body: string;
  tags: string[];
  updatedAt: string;
}

export type NoteSeed = Omit<Note, 'id' | 'updatedAt'>;

export type NoteChanges = Partial<Pick<Note, 'title' | 'body' | 'tags'>>;

/** A value now, or later for a store that has to ask another process. */
export type Awaitable<T> = T | Promise<T>;

/** A note was saved (created or changed) or deleted, by this process or another one sharing the notes. */
export type NoteChange = { type: 'saved'; id: string; title: string } | { type: 'deleted'; id: string };

/** Told of changes made through any process that shares the notes. */
export interface NotebookListener {
  changed(change: NoteChange): void;
  /** Changes may have been missed (first start, or the connection came back): read everything again. */
  resync(): void;
}

/**
 * Where the notes live: one file for a single process (`NotesStore`), or Redis for several
 * replicas serving one notebook (`RedisNotesStore`). Ids are decimal strings that never repeat,
 * and `all()` lists notes oldest first.
 */
export interface Notebook {
  create(title: string, body: string, tags?: string[]): Awaitable<Note>;
  update(id: string, changes: NoteChanges): Awaitable<Note | undefined>;
  /** Adds a line to the end of the body as one step, so that appends made at once are all kept. */
  append(id: string, line: string): Awaitable<Note | undefined>;
  get(id: string): Awaitable<Note | undefined>;
  delete(id: string): Awaitable<boolean>;
  all(): Awaitable<Note[]>;
  search(query: string, tag?: string): Awaitable<Note[]>;
  tags(): Awaitable<string[]>;
  /** Present when other processes may change the notes too. */
  watch?(listener: NotebookListener): void;
  close?(): Promise<void>;
}

/** Notes whose title or body contains `query` (any case), and that carry `tag` if given. */
export function matching(notes: Note[], query: string, tag?: string): Note[] {
  const q = query.toLowerCase();
  return notes.filter((n) => (n.title.toLowerCase().includes(q) || n.body.toLowerCase().includes(q)) && (tag === undefined || n.tags.includes(tag)));
}

/** Every tag in use, sorted. */
export function tagsOf(notes: Note[]): string[] {
  return [...new Set(notes.flatMap((n) => n.tags))].sort();
}

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

/** Whether process `pid` may be writing a temporary file now: it is alive, and it is not this one (whose writes are synchronous). */
function mayBeWriting(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // alive, someone else's
  }
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
 * Serve one process per data folder; replicas share a `RedisNotesStore` instead.
 */
export class NotesStore implements Notebook {
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

  update(id: string, changes: NoteChanges): Note | undefined {
    const note = this.notes.get(id);
    if (!note) return undefined;
    Object.assign(note, changes, { updatedAt: new Date().toISOString() });
    this.save();
    return note;
  }

  append(id: string, line: string): Note | undefined {
    const note = this.notes.get(id);
    return note && this.update(id, { body: `${note.body}\n${line}` });
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
    return matching(this.all(), query, tag);
  }

  tags(): string[] {
    return tagsOf(this.all());
  }

  private insert(title: string, body: string, tags: string[]): Note {
    const note: Note = { id: String(this.nextId++), title, body, tags: [...tags], updatedAt: new Date().toISOString() };
    this.notes.set(note.id, note);
    return note;
  }

  /**
   * A process that died mid-write leaves its `notes.json.<pid>.tmp` behind (the rename never
   * happened, so notes.json is intact). The file of a live process is kept: it may be writing it
   * now (a server on the folder while `mcpx call` loads the same entry, say).
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
      const pid = /^notes\.json\.(\d+)\.tmp$/.exec(name)?.[1];
      if (pid !== undefined && !mayBeWriting(Number(pid))) rmSync(join(this.dir, name), { force: true });
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
