/** Each upstream's list the gateway asks for, in pages, at most this many pages (a bound on a looping cursor). */
const MAX_PAGES = 1000;

/** Every item of a paginated list: the pages followed by their cursors. */
export async function listAll<P extends { nextCursor?: string }, T>(list: (cursor: string | undefined) => Promise<P>, items: (page: P) => T[]): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < MAX_PAGES; i++) {
    const page = await list(cursor);
    all.push(...items(page));
    cursor = page.nextCursor;
    if (!cursor) return all;
  }
  throw new Error(`its list did not end after ${MAX_PAGES} pages`);
}
