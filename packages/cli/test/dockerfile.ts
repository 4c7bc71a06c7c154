import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';

/** What a container started from a Dockerfile's last stage runs, read from the file itself. */
export interface ImageSpec {
  /** Every FROM image, in order. */
  bases: string[];
  /** The last stage's instructions, continuation lines joined, comments dropped. */
  lines: string[];
  env: Record<string, string>;
  /** ENTRYPOINT then CMD, both exec form. */
  command: string[];
  healthcheck: string[];
  user?: string;
  stopSignal?: string;
}

/** The instructions, one a line: continuation lines joined, comments and blank lines dropped. */
function instructions(text: string): string[] {
  return text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
}

function execForm(instruction: string, rest: string): string[] {
  const value = JSON.parse(rest) as unknown;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new Error(`${instruction} must be a JSON array of strings (exec form): ${rest}`);
  return value;
}

export function parseDockerfile(text: string): ImageSpec {
  const all = instructions(text);
  const froms = all.flatMap((line, i) => (/^FROM\s/i.test(line) ? [i] : []));
  const lines = all.slice(froms[froms.length - 1]! + 1);
  const spec: ImageSpec = { bases: froms.map((i) => all[i]!.split(/\s+/)[1]!), lines, env: {}, command: [], healthcheck: [] };
  let entrypoint: string[] = [];
  let cmd: string[] = [];
  for (const line of lines) {
    const [, instruction = '', rest = ''] = /^(\w+)\s*(.*)$/.exec(line) ?? [];
    switch (instruction.toUpperCase()) {
      case 'ENV':
        for (const m of rest.matchAll(/([A-Za-z_]\w*)=("(?:[^"\\]|\\.)*"|\S*)/g)) spec.env[m[1]!] = m[2]!.startsWith('"') ? (JSON.parse(m[2]!) as string) : m[2]!;
        break;
      case 'ENTRYPOINT':
        entrypoint = execForm('ENTRYPOINT', rest);
        break;
      case 'CMD':
        cmd = execForm('CMD', rest);
        break;
      case 'HEALTHCHECK':
        spec.healthcheck = execForm('HEALTHCHECK CMD', rest.slice(rest.indexOf('CMD') + 3).trim());
        break;
      case 'USER':
        spec.user = rest;
        break;
      case 'STOPSIGNAL':
        spec.stopSignal = rest;
        break;
    }
  }
  spec.command = [...entrypoint, ...cmd];
  return spec;
}

/**
 * Follows a Dockerfile's stages on this machine, without a container engine: each stage is a
 * folder under `into` standing for its WORKDIR, COPY copies from `context` (or, with --from, from
 * an earlier stage's folder), RUN runs through sh there with the stage's ENV on top of `env`.
 * Enough for this repository's simple Dockerfiles; returns the last stage's folder.
 */
export async function followStages(text: string, context: string, into: string, env: NodeJS.ProcessEnv, workdir = '/app'): Promise<string> {
  const lines = instructions(text);
  const stages = new Map<string, string>();
  let dir = '';
  let stageEnv: Record<string, string> = {};
  const inStage = (path: string, stage: string) => join(stage, path.startsWith('/') ? relative(workdir, path) : path);
  for (const line of lines) {
    const [, instruction = '', rest = ''] = /^(\w+)\s*(.*)$/.exec(line) ?? [];
    switch (instruction.toUpperCase()) {
      case 'FROM': {
        const name = /\sAS\s+(\S+)/i.exec(rest)?.[1] ?? String(stages.size);
        dir = join(into, name);
        mkdirSync(dir, { recursive: true });
        stages.set(name, dir);
        stageEnv = {};
        break;
      }
      case 'ENV':
        for (const m of rest.matchAll(/([A-Za-z_]\w*)=(\S*)/g)) stageEnv[m[1]!] = m[2]!;
        break;
      case 'COPY': {
        const words = rest.split(/\s+/);
        const from = words[0]!.startsWith('--from=') ? stages.get(words.shift()!.slice('--from='.length)) : undefined;
        if (words.some((w) => w.startsWith('--'))) throw new Error(`unsupported COPY flag: ${line}`);
        const dest = inStage(words.pop()!, dir);
        for (const source of words) {
          const base = from ? inStage(source, from) : join(context, source);
          const pattern = new RegExp(
            `^${basename(base)
              .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
              .replace(/\*/g, '.*')}$`,
          );
          const matches = readdirSync(dirname(base)).filter((name) => pattern.test(name));
          if (matches.length === 0 && !source.includes('*')) throw new Error(`COPY source missing: ${source}`);
          for (const name of matches) {
            const target = dest.endsWith('/') || matches.length > 1 || source.includes('*') ? join(dest, name) : dest;
            cpSync(join(dirname(base), name), target, { recursive: true });
          }
        }
        break;
      }
      case 'RUN': {
        await new Promise<void>((resolve, reject) => {
          const child = spawn('sh', ['-c', rest], { cwd: dir, env: { ...env, ...stageEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
          let output = '';
          child.stdout.on('data', (c) => (output += c));
          child.stderr.on('data', (c) => (output += c));
          child.once('error', reject);
          child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`RUN ${rest} exited ${code}:\n${output}`))));
        });
        break;
      }
    }
  }
  return dir;
}
