/** The Skills extension's identifier (SEP-2640): its key in `capabilities.extensions`. */
export const SKILLS_EXTENSION_ID = 'io.modelcontextprotocol/skills';
export const SKILLS_LIST_METHOD = 'skills/list';
export const SKILLS_GET_METHOD = 'skills/get';
/** Served (and `directoryRead: true` declared) unless `directoryRead: false`. */
export const RESOURCES_DIRECTORY_READ_METHOD = 'resources/directory/read';
/** The `mimeType` of a directory resource. */
export const DIRECTORY_MIME_TYPE = 'inode/directory';
/** The scheme every skill file is served under. */
export const SKILL_SCHEME = 'skill://';
/** The manifest every skill has at its root. */
export const SKILL_MANIFEST = 'SKILL.md';

/** The spec's per-skill limits, checked at load: files (SKILL.md included) and the sum of their sizes. */
export const SKILL_LIMITS: Readonly<{ files: number; bytes: number }> = Object.freeze({ files: 512, bytes: 16 * 1024 * 1024 });

/** Agent Skills: a name is 1-64 lowercase letters, digits and single hyphens. */
export const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SKILL_NAME_MAX = 64;
export const SKILL_DESCRIPTION_MAX = 1024;
export const SKILL_COMPATIBILITY_MAX = 500;
