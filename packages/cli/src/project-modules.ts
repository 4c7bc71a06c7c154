import { existsSync, statSync } from 'node:fs';
import Module from 'node:module';
import { dirname, resolve, sep } from 'node:path';

/**
 * The libraries whose state a server's classes live in: the framework, and the decorator libraries
 * whose metadata stores hold what `@Type`, `@IsString`... recorded. The command must use the same
 * copies as the project it serves: run through npx, it has copies of its own, and a class decorated
 * into the project's class-transformer looks undecorated to the command's one.
 */
const SHARED = /^(?:@mcpx\/(?:core|http|stdio|redis|otel|openapi)|class-transformer|class-validator|reflect-metadata)(?:\/.*)?$/;

type Resolve = (request: string, parent: { filename?: string | null } | undefined, isMain: boolean, options?: { paths?: string[] }) => string;

let installed: string | undefined;

/**
 * From now on, the framework and decorator libraries are loaded from `projectDir`'s node_modules
 * when it has them, by every module outside the project too (the command's own, and the packages
 * it depends on); the command's own copies are the fallback for a project without them.
 */
export function useProjectModules(projectDir: string): void {
  if (installed !== undefined) return;
  installed = projectDir;
  const projectPrefix = `${resolve(projectDir)}${sep}`;
  const loader = Module as unknown as { _resolveFilename: Resolve };
  const original = loader._resolveFilename;
  loader._resolveFilename = function (request, parent, isMain, options) {
    const from = parent?.filename;
    // Modules of the project resolve as they always do; the command's are pointed at the project's copies.
    if (SHARED.test(request) && from && !from.startsWith(projectPrefix) && options?.paths === undefined) {
      try {
        return original.call(this, request, parent, isMain, { paths: [projectDir] });
      } catch {
        // Not in the project: the command's own copy.
      }
    }
    return original.call(this, request, parent, isMain, options);
  };
}

/** The folder of the entry file among a command's arguments (the first that names a file), else the working directory. */
export function projectDirOf(args: string[], cwd = process.cwd()): string {
  for (const arg of args) {
    if (arg.startsWith('-')) continue;
    const file = resolve(cwd, arg);
    if (existsSync(file) && statSync(file).isFile()) return dirname(file);
  }
  return cwd;
}
