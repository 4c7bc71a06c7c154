// The IPC messages between `mcpx dev`'s supervisor and its child, apart from both: the child
// imports the CLI (main, and through it the supervisor), so the supervisor cannot import the child.

/** Supervisor to child, over the IPC channel. */
export type ToChild = { type: 'warm'; entry: string; stdio: boolean; modules: string[] } | { type: 'start'; args: string[] };
/** Child to supervisor: serving, with the dependency files loaded (the next spare preloads them). */
export type FromChild = { type: 'ready'; modules: string[] };
