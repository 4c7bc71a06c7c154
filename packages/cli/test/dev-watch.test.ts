import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { watchTree, type TreeWatcher } from '../src/dev-watch';

/** What `mcpx dev` watches: code in the project's folders, not dependencies, build output or data. */
describe('the mcpx dev watcher', () => {
  let root: string;
  let watcher: TreeWatcher | undefined;
  const seen: string[] = [];
  const waiting: { path: string; resolve: () => void }[] = [];

  /** Resolves once `path` has been reported (events are awaited, never timed). */
  const reported = (path: string) =>
    new Promise<void>((resolve) => {
      if (seen.includes(path)) return resolve();
      waiting.push({ path, resolve });
    });
  const start = (keep: string[] = []) => {
    watcher = watchTree([root], keep, (path) => {
      seen.push(path);
      for (const w of waiting.filter((w) => w.path === path)) w.resolve();
    });
  };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'mcpx-watch-'));
    for (const dir of ['src', 'node_modules/dep', 'dist', '.data', '.git']) mkdirSync(join(root, dir), { recursive: true });
    seen.length = 0;
    waiting.length = 0;
  });
  afterEach(() => {
    watcher?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('reports code changes, and nothing from node_modules, dist, hidden folders or data files', async () => {
    start();
    for (const file of ['node_modules/dep/index.js', 'dist/server.js', '.data/note.json', '.git/index.js', 'src/notes.txt', 'src/.server.ts.swp']) writeFileSync(join(root, file), 'x');
    writeFileSync(join(root, 'src/server.ts'), 'export {};');
    await reported(join(root, 'src/server.ts'));
    // Everything above was written first: had any of it been reported, it would be here.
    expect(new Set(seen)).toEqual(new Set([join(root, 'src/server.ts')]));
  });

  it('watches folders created after it started', async () => {
    start();
    mkdirSync(join(root, 'src/tools'));
    await reported(join(root, 'src/tools'));
    writeFileSync(join(root, 'src/tools/search.ts'), 'export {};');
    await reported(join(root, 'src/tools/search.ts'));
  });

  it('watches a skipped folder that holds the entry (dist/server.js next to tsc --watch)', async () => {
    start([join(root, 'dist/server.js')]);
    writeFileSync(join(root, 'dist/server.js'), 'exports.x = 1;');
    await reported(join(root, 'dist/server.js'));
  });
});
