/**
 * Compares two V8 heap snapshots of one process (as the chaos bench writes them):
 *
 *   node --max-old-space-size=4096 apps/bench/dist/chaos/heap-diff.js A.heapsnapshot B.heapsnapshot [--top 40] [--count Name,...]
 *     [--retainers Name[,Name]] [--paths 3]
 *
 * Prints the classes whose count and size grew most from A to B, the objects of B allocated since
 * A (node ids are stable within a process) by class, and for each class named in --retainers a few
 * retainer paths of its new objects up to a GC root (the shortest, weak edges ignored).
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  file: string;
  nodeCount: number;
  fields: number;
  /** Per node: type index, name string index, id, self size, first edge index. */
  type: Uint8Array;
  name: Uint32Array;
  id: Uint32Array;
  size: Float64Array;
  firstEdge: Uint32Array;
  edgeCount: Uint32Array;
  edgeType: Uint8Array;
  edgeName: Uint32Array;
  /** Edge target as a node ordinal. */
  edgeTo: Uint32Array;
  strings: string[];
  nodeTypes: string[];
  edgeTypes: string[];
}

function load(file: string): Snapshot {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
    nodes: number[];
    edges: number[];
    strings: string[];
  };
  const meta = raw.snapshot.meta;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const at = (name: string) => meta.node_fields.indexOf(name);
  const [tI, nI, idI, sI, ecI] = [at('type'), at('name'), at('id'), at('self_size'), at('edge_count')];
  const [etI, enI, toI] = ['type', 'name_or_index', 'to_node'].map((f) => meta.edge_fields.indexOf(f)) as [number, number, number];
  const nodeCount = raw.nodes.length / nf;
  const s: Snapshot = {
    file,
    nodeCount,
    fields: nf,
    type: new Uint8Array(nodeCount),
    name: new Uint32Array(nodeCount),
    id: new Uint32Array(nodeCount),
    size: new Float64Array(nodeCount),
    firstEdge: new Uint32Array(nodeCount),
    edgeCount: new Uint32Array(nodeCount),
    edgeType: new Uint8Array(raw.edges.length / ef),
    edgeName: new Uint32Array(raw.edges.length / ef),
    edgeTo: new Uint32Array(raw.edges.length / ef),
    strings: raw.strings,
    nodeTypes: meta.node_types[0],
    edgeTypes: meta.edge_types[0],
  };
  let edge = 0;
  for (let n = 0; n < nodeCount; n++) {
    const base = n * nf;
    s.type[n] = raw.nodes[base + tI]!;
    s.name[n] = raw.nodes[base + nI]!;
    s.id[n] = raw.nodes[base + idI]!;
    s.size[n] = raw.nodes[base + sI]!;
    s.edgeCount[n] = raw.nodes[base + ecI]!;
    s.firstEdge[n] = edge;
    edge += s.edgeCount[n]!;
  }
  for (let e = 0; e < s.edgeType.length; e++) {
    s.edgeType[e] = raw.edges[e * ef + etI]!;
    s.edgeName[e] = raw.edges[e * ef + enI]!;
    s.edgeTo[e] = raw.edges[e * ef + toI]! / nf;
  }
  return s;
}

/** A node's class as DevTools groups it: objects by constructor, closures by function, the rest by type. */
function classOf(s: Snapshot, n: number): string {
  const type = s.nodeTypes[s.type[n]!]!;
  const name = s.strings[s.name[n]!]!;
  switch (type) {
    case 'object':
    case 'native':
      return name.length > 60 ? name.slice(0, 60) + '…' : name;
    case 'closure':
      return `${name || '(anonymous)'}()`;
    case 'string':
    case 'concatenated string':
    case 'sliced string':
      return '(string)';
    case 'hidden':
    case 'array':
    case 'code':
      return `(${type}) ${name.slice(0, 40)}`;
    default:
      return `(${type})`;
  }
}

interface Group {
  count: number;
  size: number;
}

function groups(s: Snapshot, only?: (n: number) => boolean): Map<string, Group> {
  const out = new Map<string, Group>();
  for (let n = 0; n < s.nodeCount; n++) {
    if (only && !only(n)) continue;
    const key = classOf(s, n);
    let g = out.get(key);
    if (!g) out.set(key, (g = { count: 0, size: 0 }));
    g.count++;
    g.size += s.size[n]!;
  }
  return out;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;

/** Shortest distance of every node from the root (node 0), following strong edges only. */
interface Graph {
  dist: Int32Array;
  owner: Uint32Array;
  /** The edges pointing at a node. */
  retainers: (n: number) => number[];
}

function distances(s: Snapshot): Graph {
  const weak = s.edgeTypes.indexOf('weak');
  const dist = new Int32Array(s.nodeCount).fill(-1);
  const queue = new Uint32Array(s.nodeCount);
  let head = 0;
  let tail = 0;
  dist[0] = 0;
  queue[tail++] = 0;
  while (head < tail) {
    const n = queue[head++]!;
    const end = s.firstEdge[n]! + s.edgeCount[n]!;
    for (let e = s.firstEdge[n]!; e < end; e++) {
      if (s.edgeType[e] === weak) continue;
      const to = s.edgeTo[e]!;
      if (dist[to] === -1) {
        dist[to] = dist[n]! + 1;
        queue[tail++] = to;
      }
    }
  }
  // Reverse edges, built once.
  const count = new Uint32Array(s.nodeCount + 1);
  for (let e = 0; e < s.edgeTo.length; e++) count[s.edgeTo[e]! + 1]!++;
  for (let i = 1; i <= s.nodeCount; i++) count[i]! += count[i - 1]!;
  const from = new Uint32Array(s.edgeTo.length);
  const fill = count.slice();
  for (let n = 0; n < s.nodeCount; n++) {
    const end = s.firstEdge[n]! + s.edgeCount[n]!;
    for (let e = s.firstEdge[n]!; e < end; e++) from[fill[s.edgeTo[e]!]!++] = e;
  }
  const owner = new Uint32Array(s.edgeTo.length);
  for (let n = 0; n < s.nodeCount; n++) {
    const end = s.firstEdge[n]! + s.edgeCount[n]!;
    for (let e = s.firstEdge[n]!; e < end; e++) owner[e] = n;
  }
  return {
    dist,
    owner,
    retainers: (n: number) => {
      const edges: number[] = [];
      for (let i = count[n]!; i < count[n + 1]!; i++) edges.push(from[i]!);
      return edges;
    },
  };
}

function edgeLabel(s: Snapshot, e: number): string {
  const type = s.edgeTypes[s.edgeType[e]!]!;
  const name = type === 'element' || type === 'hidden' ? `[${s.edgeName[e]}]` : s.strings[s.edgeName[e]!]!;
  return type === 'context' ? `ctx.${name}` : type === 'internal' ? `{${name}}` : name;
}

/** The node's class, and for a suspended async function (Generator) or a closure, which function it is. */
function label(s: Snapshot, n: number): string {
  const cls = classOf(s, n);
  if (cls !== 'Generator' && !cls.endsWith('()')) return cls;
  const end = s.firstEdge[n]! + s.edgeCount[n]!;
  for (let e = s.firstEdge[n]!; e < end; e++) {
    const name = s.strings[s.edgeName[e]!];
    if (cls === 'Generator' && name === 'function') return `Generator<${classOf(s, s.edgeTo[e]!)}${where(s, s.edgeTo[e]!)}>`;
    if (cls !== 'Generator' && name === 'shared') return `${cls}${where(s, n)}`;
  }
  return cls;
}

/** file:line of a closure, from its script (as much as the snapshot tells: the shared info's script name). */
function where(s: Snapshot, closure: number): string {
  const end = s.firstEdge[closure]! + s.edgeCount[closure]!;
  for (let e = s.firstEdge[closure]!; e < end; e++) {
    if (s.strings[s.edgeName[e]!] !== 'shared') continue;
    const shared = s.edgeTo[e]!;
    const send = s.firstEdge[shared]! + s.edgeCount[shared]!;
    for (let f = s.firstEdge[shared]!; f < send; f++) {
      if (s.strings[s.edgeName[f]!] !== 'script') continue;
      const script = s.edgeTo[f]!;
      const tend = s.firstEdge[script]! + s.edgeCount[script]!;
      for (let g = s.firstEdge[script]!; g < tend; g++) {
        if (s.strings[s.edgeName[g]!] === 'name') {
          const file = s.strings[s.name[s.edgeTo[g]!]!] ?? '';
          return file ? ` ${file.split('/').slice(-2).join('/')}` : '';
        }
      }
    }
  }
  return '';
}

function retainerPath(s: Snapshot, graph: Graph, n: number, maxDepth = 60): string {
  const parts: string[] = [`${label(s, n)}@${s.id[n]}`];
  const weak = s.edgeTypes.indexOf('weak');
  let at = n;
  for (let depth = 0; depth < maxDepth && at !== 0; depth++) {
    let best: number | undefined;
    for (const e of graph.retainers(at)) {
      if (s.edgeType[e] === weak) continue;
      const o = graph.owner[e]!;
      if (graph.dist[o]! < 0) continue;
      if (best === undefined || graph.dist[o]! < graph.dist[graph.owner[best]!]!) best = e;
    }
    if (best === undefined) {
      parts.push('(unreachable)');
      break;
    }
    const owner = graph.owner[best]!;
    if (owner === 0) break;
    parts.push(`${label(s, owner)}.${edgeLabel(s, best)}`);
    at = owner;
  }
  // Linked lists and promise chains: runs of one step are shown once, with their length.
  const folded: string[] = [];
  for (const part of parts) {
    const last = folded.at(-1);
    const bare = last?.replace(/ ×\d+$/, '');
    if (bare === part) folded[folded.length - 1] = `${part} ×${Number(/ ×(\d+)$/.exec(last!)?.[1] ?? 1) + 1}`;
    else folded.push(part);
  }
  return folded.join('  ←  ');
}

function main(): void {
  const args = process.argv.slice(2);
  const files = args.filter((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
  const flag = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  if (files.length !== 2) {
    process.stderr.write('usage: heap-diff A.heapsnapshot B.heapsnapshot [--top 40] [--count Name,...] [--retainers Name[,Name]] [--paths 3]\n');
    process.exit(2);
  }
  const top = Number(flag('--top') ?? 40);
  const paths = Number(flag('--paths') ?? 3);
  const a = load(files[0]!);
  const b = load(files[1]!);
  const ga = groups(a);
  const gb = groups(b);
  const totalA = a.size.reduce((x, y) => x + y, 0);
  const totalB = b.size.reduce((x, y) => x + y, 0);
  process.stdout.write(`A ${a.file}: ${a.nodeCount} nodes, ${kb(totalA)}\nB ${b.file}: ${b.nodeCount} nodes, ${kb(totalB)}\n\n`);
  const keys = new Set([...ga.keys(), ...gb.keys()]);
  const rows = [...keys].map((k) => {
    const x = ga.get(k) ?? { count: 0, size: 0 };
    const y = gb.get(k) ?? { count: 0, size: 0 };
    return { k, dc: y.count - x.count, ds: y.size - x.size, count: y.count, size: y.size };
  });
  rows.sort((p, q) => q.ds - p.ds);
  process.stdout.write(`Growth A→B by class (self size):\n${'Δsize'.padStart(10)} ${'Δcount'.padStart(8)} ${'count B'.padStart(8)}  class\n`);
  for (const r of rows.slice(0, top)) process.stdout.write(`${kb(r.ds).padStart(10)} ${String(r.dc).padStart(8)} ${String(r.count).padStart(8)}  ${r.k}\n`);

  const idsA = new Set<number>(a.id);
  const fresh = (n: number) => !idsA.has(b.id[n]!);
  const gn = [...groups(b, fresh).entries()].sort((p, q) => q[1].size - p[1].size);
  process.stdout.write(`\nObjects of B allocated since A (still alive), by class:\n`);
  for (const [k, g] of gn.slice(0, top)) process.stdout.write(`${kb(g.size).padStart(10)} ${String(g.count).padStart(8)}  ${k}\n`);

  const suspended = new Map<string, number>();
  for (let n = 0; n < b.nodeCount; n++) if (fresh(n) && classOf(b, n) === 'Generator') suspended.set(label(b, n), (suspended.get(label(b, n)) ?? 0) + 1);
  if (suspended.size > 0) {
    process.stdout.write(`\nSuspended async functions (new Generator objects) by function:\n`);
    for (const [k, c] of [...suspended.entries()].sort((p, q) => q[1] - p[1]).slice(0, top)) process.stdout.write(`${String(c).padStart(8)}  ${k}\n`);
  }

  const counted = flag('--count');
  if (counted) {
    process.stdout.write(`\nCounts (A → B):\n`);
    for (const name of counted.split(',')) {
      const count = (x: Snapshot) => {
        let c = 0;
        for (let n = 0; n < x.nodeCount; n++) if (classOf(x, n) === name || (name.startsWith('Generator<') && label(x, n) === name)) c++;
        return c;
      };
      process.stdout.write(`${String(count(a)).padStart(8)} → ${String(count(b)).padEnd(8)} ${name}\n`);
    }
  }

  const wanted = flag('--retainers');
  if (wanted) {
    const graph = distances(b);
    for (const name of wanted.split(',')) {
      const nodes: number[] = [];
      for (let n = b.nodeCount - 1; n >= 0 && nodes.length < 2000; n--) if (classOf(b, n) === name && fresh(n)) nodes.push(n);
      process.stdout.write(`\nRetainer paths of new ${name} (${nodes.length} sampled${nodes.length === 2000 ? '+' : ''}):\n`);
      // Group by path shape (ids stripped), print the commonest.
      const shapes = new Map<string, { n: number; example: string }>();
      for (const n of nodes) {
        const p = retainerPath(b, graph, n);
        const shape = p.replace(/@\d+/g, '').replace(/\[\d+\]/g, '[i]');
        const entry = shapes.get(shape);
        if (entry) entry.n++;
        else shapes.set(shape, { n: 1, example: p });
      }
      for (const [, { n, example }] of [...shapes.entries()].sort((p, q) => q[1].n - p[1].n).slice(0, paths)) process.stdout.write(`  ${n} ×  ${example}\n`);
    }
  }
}

main();
