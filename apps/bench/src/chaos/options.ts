export type RedisChaos = 'pause' | 'cut' | 'restart';

export interface ChaosOptions {
  clients: number;
  modernShare: number;
  instances: number;
  rounds: number;
  roundMs: number;
  settleMs: number;
  /** Kill one instance (never the long-lived i0) this often; 0: never. */
  killEveryMs: number;
  killSignal: NodeJS.Signals;
  /** How long a killed instance stays down before it is started again. */
  downMs: number;
  /** One Redis event this often (rotating through `redisChaos`); 0: none. */
  redisEveryMs: number;
  redisChaos: RedisChaos[];
  pauseMs: number;
  sampleMs: number;
  /** Directory for heap snapshots of the long-lived instance (baseline and after each round). */
  heapSnapshots?: string;
  /** With heapSnapshots: also one snapshot of i0 a round, when its heapUsed first passes this (MB) under traffic. */
  snapshotHeapMb?: number;
  /** With heapSnapshots: also one snapshot of i0 this many seconds into each round (under traffic). */
  snapshotDuringS?: number;
  redisUrl: string;
  prefix: string;
  logLevel: string;
  exportDelayMs: number;
  sessionMs: [number, number];
  thinkMs: [number, number];
  nodeFlags: string[];
  keepKeys: boolean;
  json?: string;
}

const HELP = `npm run bench:chaos -- [flags]

Starts Redis-backed instances of apps/example behind a round-robin proxy, runs N MCP clients
(SDK 1.x sessions and 2026-07-28 clients) through R rounds while killing and restarting one
instance and disturbing Redis, and prints the RSS of every instance before, during and after
each round. Instance i0 is never killed: its series spans the whole run.

  --clients N          concurrent clients (default 150)
  --modern F           fraction of them that are 2026-07-28 clients (default 0.2)
  --instances K        instances (default 3)
  --rounds R           rounds (default 3)
  --round-s S          traffic per round, seconds (default 60)
  --settle-s S         quiet time after a round before the "after" reading (default 15)
  --kill-every-s S     kill + restart one instance this often (default 15; 0 = never)
  --kill-signal SIG    SIGKILL (default) or SIGTERM
  --down-s S           how long a killed instance stays down (default 2)
  --redis-every-s S    one Redis event this often (default 20; 0 = none)
  --redis-chaos LIST   events to rotate through: pause (CLIENT PAUSE on the shared Redis),
                       cut (the instances' connections dropped and refused, through a relay),
                       restart (cut + this run's keys deleted, as a Redis restarted empty)
                       (default pause,cut,restart)
  --pause-ms MS        CLIENT PAUSE length (default 3000)
  --sample-s S         sampling period (default 3)
  --heap-snapshots DIR heap snapshots of i0 at baseline and after each round
                       (also: MCPX_CHAOS_HEAPSNAP=DIR); compare with
                       node apps/bench/dist/chaos/heap-diff.js A B. Snapshots stop the
                       instance for a few seconds and raise its RSS: measure RSS without them.
  --snapshot-heap-mb M with --heap-snapshots, also snapshot i0 once a round when its heapUsed
                       first passes M MB under traffic (what is live at the peak)
  --snapshot-during-s S with --heap-snapshots, also snapshot i0 S seconds into each round
  --redis-url URL      (default $MCPX_BENCH_REDIS_URL or redis://127.0.0.1:6379)
  --prefix P           key prefix (default a fresh mcpx-chaos-<time>-<pid>: per run)
  --log-level L        the instances' MCPX_LOG_LEVEL (default warn)
  --export-delay-ms MS per-note delay of the export tool (default 10)
  --node-flags "..."   extra node flags for the instances
  --keep-keys          leave this run's keys in Redis
  --json FILE          write every sample as JSON
  --quick              40 clients, 2 rounds of 25 s, kill every 10 s, Redis event every 10 s
`;

export function parseOptions(argv: string[]): ChaosOptions {
  const options: ChaosOptions = {
    clients: 150,
    modernShare: 0.2,
    instances: 3,
    rounds: 3,
    roundMs: 60_000,
    settleMs: 15_000,
    killEveryMs: 15_000,
    killSignal: 'SIGKILL',
    downMs: 2000,
    redisEveryMs: 20_000,
    redisChaos: ['pause', 'cut', 'restart'],
    pauseMs: 3000,
    sampleMs: 3000,
    heapSnapshots: process.env.MCPX_CHAOS_HEAPSNAP || undefined,
    redisUrl: process.env.MCPX_BENCH_REDIS_URL || 'redis://127.0.0.1:6379',
    prefix: `mcpx-chaos-${Date.now().toString(36)}-${process.pid}:`,
    logLevel: 'warn',
    exportDelayMs: 10,
    sessionMs: [20_000, 60_000],
    thinkMs: [100, 600],
    nodeFlags: [],
    keepKeys: false,
  };
  if (argv.includes('--quick')) {
    Object.assign(options, { clients: 40, rounds: 2, roundMs: 25_000, settleMs: 8000, killEveryMs: 10_000, redisEveryMs: 10_000, sessionMs: [8000, 20_000], sampleMs: 2000 });
  }
  const seconds = (v: string) => Math.round(Number(v) * 1000);
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--quick':
        break;
      case '--help':
      case '-h':
        process.stdout.write(HELP);
        process.exit(0);
        break;
      case '--clients':
        options.clients = Number(value());
        break;
      case '--modern':
        options.modernShare = Number(value());
        break;
      case '--instances':
        options.instances = Number(value());
        break;
      case '--rounds':
        options.rounds = Number(value());
        break;
      case '--round-s':
        options.roundMs = seconds(value());
        break;
      case '--settle-s':
        options.settleMs = seconds(value());
        break;
      case '--kill-every-s':
        options.killEveryMs = seconds(value());
        break;
      case '--kill-signal':
        options.killSignal = value() as NodeJS.Signals;
        break;
      case '--down-s':
        options.downMs = seconds(value());
        break;
      case '--redis-every-s':
        options.redisEveryMs = seconds(value());
        break;
      case '--redis-chaos':
        options.redisChaos = value()
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean) as RedisChaos[];
        for (const kind of options.redisChaos) if (!['pause', 'cut', 'restart'].includes(kind)) throw new Error(`unknown --redis-chaos event ${kind}`);
        break;
      case '--pause-ms':
        options.pauseMs = Number(value());
        break;
      case '--sample-s':
        options.sampleMs = seconds(value());
        break;
      case '--heap-snapshots':
        options.heapSnapshots = value();
        break;
      case '--snapshot-heap-mb':
        options.snapshotHeapMb = Number(value());
        break;
      case '--snapshot-during-s':
        options.snapshotDuringS = Number(value());
        break;
      case '--redis-url':
        options.redisUrl = value();
        break;
      case '--prefix':
        options.prefix = value();
        break;
      case '--log-level':
        options.logLevel = value();
        break;
      case '--export-delay-ms':
        options.exportDelayMs = Number(value());
        break;
      case '--node-flags':
        options.nodeFlags = value().split(/\s+/).filter(Boolean);
        break;
      case '--keep-keys':
        options.keepKeys = true;
        break;
      case '--json':
        options.json = value();
        break;
      default:
        throw new Error(`unknown flag ${flag} (--help lists them)`);
    }
  }
  if (!(options.instances >= 2)) throw new Error('--instances must be at least 2 (i0 is never killed)');
  if (!(options.clients >= 1) || !(options.rounds >= 1)) throw new Error('--clients and --rounds must be at least 1');
  return options;
}
