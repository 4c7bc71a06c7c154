import { serveStdio } from '@mcpx/stdio';
import { ConformanceServer } from './conformance-server';

// The same fixtures over stdio, for the cross-transport test.
serveStdio(new ConformanceServer(), { clientLogLevel: 'debug' });
