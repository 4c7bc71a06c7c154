import { existsSync, readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { basename, extname, join, sep } from 'node:path';

/** Folders never watched: dependencies and build output (hidden folders such as .git or .data are skipped too). */
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'build', 'coverage']);
/** Files whose change can change the server: code and its configuration, not the data a server writes. */
const WATCHED_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.tsx', '.js', '.mjs', '.cjs', '.json']);

export interface TreeWatcher {
  close(): void;
}

/**
 * Watches the folders under `roots` for changes to code files and calls `onChange` with the path.
 * Node's own recursive fs.watch on Linux watches every file of the tree, node_modules included;
 * this one watches one handle per folder and skips what cannot hold the server's source. A
 * skipped folder that holds one of `keep` (the entry, when it sits in dist/) is watched all the same.
 */
export function watchTree(roots: string[], keep: string[], onChange: (path: string) => void): TreeWatcher {
  const watchers = new Map<string, FSWatcher>();
  let closed = false;

  const holdsKept = (dir: string) => keep.some((file) => file.startsWith(dir + sep));
  const skipped = (dir: string) => {
    const name = basename(dir);
    return (name.startsWith('.') || SKIPPED_FOLDERS.has(name)) && !holdsKept(dir);
  };
  const isFolder = (path: string) => {
    try {
      return statSync(path).isDirectory();
    } catch {
      return false;
    }
  };

  const unwatch = (dir: string) => {
    for (const [path, watcher] of watchers) {
      if (path === dir || path.startsWith(dir + sep)) {
        watcher.close();
        watchers.delete(path);
      }
    }
  };

  const add = (dir: string) => {
    if (closed || watchers.has(dir)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, { persistent: true }, (_event, name) => changed(dir, name));
    } catch {
      return; // gone already, or unreadable: nothing to watch
    }
    // A folder removed under the watcher: its handle errors on some systems; drop it.
    watcher.on('error', () => unwatch(dir));
    watchers.set(dir, watcher);
    let names: string[];
    try {
      names = readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name);
    } catch {
      return;
    }
    for (const name of names) {
      const sub = join(dir, name);
      if (!skipped(sub)) add(sub);
    }
  };

  const changed = (dir: string, name: string | Buffer | null) => {
    if (closed) return;
    if (name === null) return onChange(dir); // some platforms do not say which file
    const path = join(dir, name.toString());
    if (watchers.has(path) && !existsSync(path)) {
      unwatch(path); // a watched folder went away, perhaps with code in it
      return onChange(path);
    }
    if (isFolder(path)) {
      // A new folder (created or moved in): watch it; its files may be code.
      if (!watchers.has(path) && !skipped(path)) {
        add(path);
        onChange(path);
      }
      return;
    }
    const file = basename(path);
    if (file.startsWith('.') || !WATCHED_EXTENSIONS.has(extname(file))) return; // editor swap files, data
    onChange(path);
  };

  for (const root of roots) add(root);
  return {
    close() {
      closed = true;
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
