import { enableCompileCache } from './compile-cache';

// Imported for this effect alone, ahead of everything else in '@mcpx/core'.
enableCompileCache();
