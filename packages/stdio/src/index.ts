export { serveStdio, type StdioOptions, type StdioServer } from './serve-stdio';
export { LineReader } from './line-reader';
export { guardStdout } from './guard-stdout';
