import { InMemoryTaskStore, createEngine } from '@mcpx/core';
import { ReportServer } from './tasks';

// Task lifetimes and the poll interval suggested to clients; a custom TaskStore may replace the in-memory one.
export const engine = createEngine(new ReportServer(), {
  logLevel: 'warn',
  taskStore: new InMemoryTaskStore(),
  tasks: { defaultTtlMs: 10 * 60_000, maxTtlMs: 60 * 60_000, pollIntervalMs: 1000 },
});
