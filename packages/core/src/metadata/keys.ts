/** Metadata keys. Each class keeps its own list; the scanner walks the prototype chain. */
export const SERVER_KEY = Symbol.for('mcpx:server');
export const ENTRIES_KEY = Symbol.for('mcpx:entries');
export const MIDDLEWARE_KEY = Symbol.for('mcpx:middleware');
export const RATE_LIMIT_KEY = Symbol.for('mcpx:rate-limit');
