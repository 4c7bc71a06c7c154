// `import '@mcpx/stdio/guard'` as the first line of a stdio entry: from then on, what any module
// writes to stdout goes to stderr, and serveStdio() keeps stdout for the protocol (guard-stdout.ts).
import { guardStdout } from './guard-stdout';

guardStdout();
