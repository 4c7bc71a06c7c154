// First: whatever the modules below print while they load goes to stderr, not into the protocol stream.
import '@mcpx/stdio/guard';
import { serveStdio } from '@mcpx/stdio';
import { NotesServer } from './notes-server';

// `npm run start:stdio`: the notes server on stdin/stdout; logs go to stderr.
serveStdio(new NotesServer(), {
  pageSize: Number(process.env.MCPX_PAGE_SIZE) || undefined,
});
