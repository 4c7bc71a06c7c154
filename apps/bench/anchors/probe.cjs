'use strict';
// Preloaded (node --expose-gc --require probe.cjs) into every server the benchmark starts, mcpx and
// anchors alike, so each is read the same way over its IPC channel:
//   'memory'     → process.memoryUsage() after two full garbage collections, with `young`: the
//                  resident bytes of V8's young generation (empty after those collections; its
//                  resident size follows the allocation rate, not what the process holds);
//   'cpu'        → process.cpuUsage() (user + system µs so far), for CPU time per request;
//   'peak-start' → starts sampling the RSS every 10 ms (the highest kept), replies once it has;
//   'peak'       → stops sampling, replies { rssMax, samples } (bytes; readings taken, the first
//                  and last included: under load the timer fires late, and `samples` says so),
//                  and, on Linux, `hwm`: the kernel's own peak RSS (VmHWM, reset at 'peak-start'
//                  through /proc/self/clear_refs), which no late timer can miss.
const fs = require('node:fs');
const v8 = require('node:v8');

/** Resident bytes of the young generation (new space, and new large objects). */
function youngResident() {
  let bytes = 0;
  for (const space of v8.getHeapSpaceStatistics()) if (space.space_name.startsWith('new_')) bytes += space.physical_space_size;
  return bytes;
}

/** Resets the kernel's peak RSS of this process; false where that cannot be done (not Linux, no permission). */
function resetHwm() {
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/** VmHWM in bytes, or undefined. */
function hwm() {
  try {
    const kb = /^VmHWM:\s*(\d+) kB/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

if (typeof process.send === 'function') {
  let peak;
  const sample = () => {
    peak.samples++;
    peak.rssMax = Math.max(peak.rssMax, process.memoryUsage.rss());
  };
  process.on('message', (message) => {
    if (message === 'memory') {
      if (typeof global.gc === 'function') {
        global.gc();
        global.gc();
      }
      process.send({ memory: { ...process.memoryUsage(), young: youngResident() } });
    } else if (message === 'cpu') {
      process.send({ cpu: process.cpuUsage() });
    } else if (message === 'peak-start') {
      if (peak) clearInterval(peak.timer);
      peak = { rssMax: 0, samples: 0, kernel: resetHwm(), timer: setInterval(sample, 10) };
      // Unref'd: sampling must not keep a server alive.
      peak.timer.unref();
      sample();
      process.send({ 'peak-start': { rss: peak.rssMax } });
    } else if (message === 'peak') {
      if (!peak) return void process.send({ peak: { rssMax: 0, samples: 0 } });
      clearInterval(peak.timer);
      sample();
      process.send({ peak: { rssMax: peak.rssMax, samples: peak.samples, hwm: peak.kernel ? hwm() : undefined } });
      peak = undefined;
    }
  });
  // The IPC channel must not keep a server alive, nor stop it from exiting on its own.
  process.channel?.unref();
}
