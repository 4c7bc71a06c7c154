/**
 * Preloaded (`node --require dist/chaos/probe.js`) into every instance the chaos bench starts: it
 * answers readings over the IPC channel, so the server itself needs no debug endpoint.
 *   { type: 'memory', id }           → process.memoryUsage() (no GC forced: the figure as it stands);
 *   { type: 'snapshot', id, file }   → two full GCs (with --expose-gc), then v8.writeHeapSnapshot(file).
 */
import v8 from 'node:v8';

interface ProbeRequest {
  type: 'memory' | 'snapshot';
  id: number;
  file?: string;
}

if (typeof process.send === 'function') {
  process.on('message', (message: ProbeRequest) => {
    if (!message || typeof message !== 'object') return;
    try {
      if (message.type === 'memory') {
        process.send!({ type: 'memory', id: message.id, memory: process.memoryUsage() });
      } else if (message.type === 'snapshot' && message.file) {
        const gc = (globalThis as { gc?: () => void }).gc;
        gc?.();
        gc?.();
        const before = process.memoryUsage();
        const file = v8.writeHeapSnapshot(message.file);
        process.send!({ type: 'snapshot', id: message.id, file, memory: before });
      }
    } catch (err) {
      process.send!({ type: 'error', id: message.id, error: String(err) });
    }
  });
  // The channel must not keep the server alive.
  process.channel?.unref();
}
