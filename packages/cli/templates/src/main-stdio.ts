#!/usr/bin/env node
// First: whatever the modules below print while they load goes to stderr, not into the protocol stream.
import '@mcpx/stdio/guard';
import { serveStdio } from '@mcpx/stdio';
import { createLogger } from './logger';
import { AppServer } from './server';

// The package's bin: one MCP session on stdin/stdout, as MCP clients start local servers. Logs go to stderr.
serveStdio(new AppServer(), { logger: createLogger('{{name}}', 'stderr') });
