#!/usr/bin/env node
'use strict';
// The command lives in @mcpx/cli; this package gives it the name `npx mcpx` looks for.
let cli;
try {
  cli = require.resolve('@mcpx/cli/bin');
} catch {
  // Only a checkout that skipped its build gets here: the published @mcpx/cli ships compiled.
  process.stderr.write('mcpx: @mcpx/cli is not built (in the mcpx repository: npm run build)\n');
  process.exit(1);
}
require(cli);
