import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { binName, packageJson, type TemplateName } from './init-package-json';
import { TEMPLATES, isTemplateName, renderTemplate } from './init-templates';
import { CliError } from './errors';

export const INIT_USAGE = `Usage: mcpx init <dir> [--name <package-name>] [--force] [--template default|app]

Creates a working mcpx server project in <dir>: a server class, HTTP and stdio entry points, a
test, a Dockerfile and a README.

Templates:
  default  a server class with a tool, a resource and a prompt
  app      a server class with a tool that has an MCP Apps view (an interactive HTML UI that hosts
           render for its results) and a tool only the view calls; the view's source is
           src/ui/view.html and view.ts, which esbuild bundles into one file, dist/ui/view.html

Options:
  --name <package-name>  the npm package name (default: derived from <dir>)
  --force                write into <dir> even if it is not empty (files with the same name are replaced)
  --template <template>  default or app (default: default)
  -h, --help             show this help
`;

export interface InitIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

interface InitArgs {
  dir: string;
  name?: string;
  force: boolean;
  template: TemplateName;
}

/** A bad `mcpx init` command line: told here, before anything is written. */
class UsageError extends CliError {}

/** npm's rules for a package name (lower case, URL-safe, optional scope, at most 214 characters). */
const PACKAGE_NAME = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

export function isValidPackageName(name: string): boolean {
  return name.length > 0 && name.length <= 214 && PACKAGE_NAME.test(name);
}

/** A package name from a folder name: `My Server` → `my-server`; empty when nothing usable is left. */
export function packageNameFromDir(dir: string): string {
  return basename(resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9-._~]+/g, '-')
    .replace(/^[._-]+/, '')
    .replace(/-+$/, '')
    .slice(0, 214);
}

function parseArgs(argv: string[]): InitArgs | 'help' {
  let dir: string | undefined;
  let name: string | undefined;
  let force = false;
  let template: TemplateName = 'default';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h' || arg === '--help') return 'help';
    if (arg === '--force' || arg === '-f') force = true;
    else if (arg === '--name' || arg.startsWith('--name=')) {
      const value = arg === '--name' ? argv[++i] : arg.slice('--name='.length);
      if (value === undefined || value === '' || (arg === '--name' && value.startsWith('-'))) throw new UsageError('--name needs a package name, e.g. --name my-server');
      name = value;
    } else if (arg === '--template' || arg.startsWith('--template=')) {
      const value = arg === '--template' ? argv[++i] : arg.slice('--template='.length);
      const known = Object.keys(TEMPLATES).join(', ');
      if (value === undefined || value === '' || (arg === '--template' && value.startsWith('-'))) throw new UsageError(`--template needs a template name: ${known}`);
      if (!isTemplateName(value)) throw new UsageError(`unknown template "${value}" (known: ${known})`);
      template = value;
    } else if (arg.startsWith('-') && arg !== '-') throw new UsageError(`unknown option ${arg} (see mcpx init --help)`, 2, { code: 'MCPX_CLI_OPTION_UNKNOWN' });
    else if (dir === undefined) dir = arg;
    else throw new UsageError(`init takes one directory, got "${dir}" and "${arg}"`);
  }
  if (dir === undefined || dir === '') throw new UsageError('init needs a directory: mcpx init <dir> [--name <package-name>] [--force] [--template default|app]');
  return { dir, name, force, template };
}

/**
 * `mcpx init <dir> [--name <package-name>] [--force] [--template default|app]`: scaffolds a
 * project. `argv` holds the arguments after `init`. Returns the exit code: 0 when done, 2 on bad
 * input (with one `mcpx: ...` line on stderr), 1 when a file cannot be written.
 */
export async function runInit(argv: string[], io: InitIo = process): Promise<number> {
  let args: InitArgs | 'help';
  try {
    args = parseArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr.write(`mcpx: ${err.message}\n`);
    return 2;
  }
  if (args === 'help') {
    io.stdout.write(INIT_USAGE);
    return 0;
  }

  const target = resolve(args.dir);
  const name = args.name ?? packageNameFromDir(target);
  if (!isValidPackageName(name)) {
    io.stderr.write(
      args.name === undefined
        ? `mcpx: cannot derive a package name from "${basename(target)}"; pass --name <package-name>\n`
        : `mcpx: "${name}" is not a valid npm package name (lower case letters, digits, - . _ ~, optional @scope/)\n`,
    );
    return 2;
  }
  if (existsSync(target)) {
    if (!statSync(target).isDirectory()) {
      io.stderr.write(`mcpx: ${args.dir} exists and is not a directory\n`);
      return 2;
    }
    if (!args.force && readdirSync(target).length > 0) {
      io.stderr.write(`mcpx: ${args.dir} is not empty; choose another directory or pass --force to write into it\n`);
      return 2;
    }
  }

  const imageName = name.replace(/^@/, '').replace(/\//g, '-');
  const files = [{ path: 'package.json', content: packageJson(name, undefined, args.template) }, ...renderTemplate(args.template, { name, imageName, binName: binName(name) })];
  try {
    for (const file of files) {
      const path = join(target, file.path);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, file.content);
    }
  } catch (err) {
    io.stderr.write(`mcpx: cannot write the project into ${args.dir}: ${(err as Error).message}\n`);
    return 1;
  }

  const shown = relative(process.cwd(), target) || '.';
  io.stdout.write(
    [
      `Created ${name} in ${shown}:`,
      ...files.map((f) => `  ${f.path}`),
      '',
      'Next:',
      ...(shown === '.' ? [] : [`  cd ${shown.includes(' ') ? JSON.stringify(shown) : shown}`]),
      '  npm install                    # install',
      '  npm test                       # run the tests',
      '  npm start                      # serve on http://127.0.0.1:3000/mcp',
      '  npm run --silent start:stdio   # serve over stdio',
      ...(args.template === 'app' ? ['', 'README.md says how to see the view in a host that renders MCP Apps.'] : []),
      '',
    ].join('\n'),
  );
  return 0;
}
