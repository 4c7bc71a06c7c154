import type { McpExtension } from '../context/extension';
import type { ServerOptions, SkillsEngineOptions } from '../metadata/options';
import { appsExtension } from '../apps/apps-extension';
import { tasksExtension } from '../eras/modern/handlers/tasks';
import { skillsExtensions } from '../skills/skills-extension';

/**
 * The protocol extensions one server serves: the built-in ones (tasks, MCP Apps, Skills when it
 * has skills), then those of the engine's options, then `@Server`'s.
 */
export function serverExtensions(options: { extensions?: readonly McpExtension[]; skills?: SkillsEngineOptions['skills'] }, info: ServerOptions): McpExtension[] {
  return [tasksExtension, appsExtension, ...(options.extensions ?? []), ...(info.extensions ?? []), ...skillsExtensions(info.skills, options.skills)];
}
