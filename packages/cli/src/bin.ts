#!/usr/bin/env node
import { main } from './main';

void main(process.argv.slice(2)).then((code) => {
  // Done (help, list, an error): exit even if the loaded module left timers or sockets open.
  if (code !== 'serving') process.exit(code);
});
