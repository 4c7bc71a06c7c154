import { CliError, isDefinitionError, oneLine } from './errors';
import { MAIN_HELP, version } from './help';

// Commands load on demand: help, version and usage errors answer without loading the framework.

/** The commands that load a server's entry file. */
const ENTRY_COMMANDS = new Set(['serve', 'dev', 'list', 'call', 'read', 'prompt', 'manifest']);

/**
 * Runs the CLI. Resolves to an exit code, or 'serving' when a server is running (the process then
 * lives until a signal or the end of stdin). Errors are one line on stderr, never a stack trace.
 */
export async function main(argv: string[]): Promise<number | 'serving'> {
  const [command, ...rest] = argv;
  try {
    // Before a command loads the framework: it must be the project's own copy (project-modules.ts).
    if (command !== undefined && ENTRY_COMMANDS.has(command)) {
      const { projectDirOf, useProjectModules } = await import('./project-modules');
      useProjectModules(projectDirOf(rest));
    }
    switch (command) {
      case undefined:
        process.stderr.write(MAIN_HELP);
        return 2;
      case '-h':
      case '--help':
      case 'help':
        process.stdout.write(MAIN_HELP);
        return 0;
      case '-v':
      case '--version':
      case 'version':
        process.stdout.write(`${version()}\n`);
        return 0;
      case 'serve':
        return await (await import('./serve')).runServe(rest);
      case 'proxy':
        return await (await import('./serve')).runServe(rest, 'proxy');
      case 'dev':
        return await (await import('./dev')).runDev(rest);
      case 'list':
        return await (await import('./list')).runList(rest);
      case 'call':
        return await (await import('./call')).runCall(rest);
      case 'read':
        return await (await import('./call')).runRead(rest);
      case 'prompt':
        return await (await import('./call')).runPrompt(rest);
      case 'manifest':
        return await (await import('./manifest')).runManifest(rest);
      case 'init':
        return await (await import('./init')).runInit(rest);
      case 'install':
        return await (await import('./install')).runInstall(rest);
      case 'uninstall':
        return await (await import('./install')).runUninstall(rest);
      default:
        throw new CliError(
          command.startsWith('-')
            ? `unknown option ${command} (see mcpx --help)`
            : `unknown command ${command}: expected serve, proxy, dev, list, call, read, prompt, init or manifest, or install or uninstall to set up a client (see mcpx --help)`,
          2,
          { code: 'MCPX_CLI_OPTION_UNKNOWN' },
        );
    }
  } catch (err) {
    if (err instanceof CliError) {
      process.stderr.write(`mcpx: ${err.message}\n`);
      return err.exitCode;
    }
    if (isDefinitionError(err)) {
      process.stderr.write(`mcpx: invalid server definition: ${oneLine(err)}\n`);
      return 2;
    }
    process.stderr.write(`mcpx: ${oneLine(err)}\n`);
    return 1;
  }
}
