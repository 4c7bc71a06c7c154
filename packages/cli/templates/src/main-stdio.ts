import { serveStdio } from '@mcpx/stdio';
import { AppServer } from './server';

// `node dist/main-stdio.js`: one MCP session on stdin/stdout; logs go to stderr.
serveStdio(new AppServer());
