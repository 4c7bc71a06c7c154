'use strict';
// Preloaded (node --expose-gc --require probe.cjs) into every server the benchmark starts, mcpx and
// anchors alike, so each is read the same way over its IPC channel:
//   'memory' → process.memoryUsage() after two full garbage collections;
//   'cpu'    → process.cpuUsage() (user + system µs so far), for CPU time per request.
if (typeof process.send === 'function') {
  process.on('message', (message) => {
    if (message === 'memory') {
      if (typeof global.gc === 'function') {
        global.gc();
        global.gc();
      }
      process.send({ memory: process.memoryUsage() });
    } else if (message === 'cpu') {
      process.send({ cpu: process.cpuUsage() });
    }
  });
  // The IPC channel must not keep a server alive, nor stop it from exiting on its own.
  process.channel?.unref();
}
