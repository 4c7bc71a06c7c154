// '@mcpx/core/registry': Building a server at runtime: registry entries and their specs, the option key lists, definition warnings.

export type { Caller, ScopedEntry, VisibilityRule } from '../auth/principal';
export type { ModernOptions } from '../eras/modern/modern-requests';
export type { UnknownOption } from '../metadata/check-options';
export { getServerOptions } from '../metadata/decorators';
export { IMPLEMENTATION_KEYS, SERVER_OPTION_KEYS, implementationOf, type CompletionContext, type CompletionValues, type PromptArgumentOptions } from '../metadata/options';
export { buildPromptEntry, type PromptSpec } from '../registry/build-prompt-entry';
export { buildResourceEntry, buildTemplateEntry, type ResourceSpec, type TemplateSpec } from '../registry/build-resource-entries';
export { buildToolEntry, type ToolSpec } from '../registry/build-tool-entry';
export { EntryList, type ListKind, type Page } from '../registry/entry-list';
export { passesTags, type TagFilter } from '../registry/entry-visibility';
export type { InputClass, PromptEntry, PromptHandler, ResourceEntry, ResourceHandler, TemplateEntry, TemplateHandler, ToolEntry, ToolHandler, Validator } from '../registry/entry-types';
export type { DefinitionWarning } from '../scanner/scanner';
export { definitionWarnings } from '../server';
export type { TaskOptions } from '../tasks/task-runtime';
export { Namespace } from '../engine/mount';
export type { AbsenceExplainer, RegistryListener } from '../registry/registry';
// Skills (io.modelcontextprotocol/skills, docs/skills.md): the option's shapes, the extension, what an entry and a reload are.
export type { InlineSkill, SkillSource, SkillsOption, SkillsSettings } from '../metadata/options';
export { SkillsExtension } from '../skills/skills-extension';
export type { Skill, SkillResource, SkillChanges } from '../skills/skill-catalog';
export { SKILLS_EXTENSION_ID, SKILL_LIMITS, DIRECTORY_MIME_TYPE } from '../skills/skill-constants';
export { reloadSkills } from '../server';
export { SkillsError } from '../skills/skills-error';
