import { McpxError } from '../errors';

/**
 * Skills cannot be served as given: a folder that does not exist, a SKILL.md whose frontmatter is
 * missing or breaks the naming rules, a skill over the spec's limits, a symbolic link that leaves
 * the skill's folder. Thrown at startup (or by a reload, which then keeps the skills it had).
 */
export class SkillsError extends McpxError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('MCPX_SKILLS', message, options);
  }
}
