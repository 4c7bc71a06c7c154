import { enableCompileCache } from './compile-cache';
import { deferModules } from './deferred-modules';

// Imported for these effects alone, ahead of everything else in '@mcpx/core'.
enableCompileCache();
deferModules();
