import 'reflect-metadata';
import { McpServer, Server, Tool } from '@mcpx/core';

// docs/examples/skills/
//   release-notes/
//     SKILL.md              ---\nname: release-notes\ndescription: ...\n---
//     templates/entry.md
@Server({
  name: 'releases',
  version: '1.0.0',
  skills: [
    // A folder of skills, resolved against this file (not the working directory).
    './skills',
    // A skill written in code: its SKILL.md is made from the name, the description and the instructions.
    {
      name: 'changelog-style',
      prefix: 'team',
      description: 'How this team words changelog entries. Use when writing release notes.',
      instructions: 'One line per change, imperative mood, the issue number last.',
      files: { 'examples/good.md': '- **search**: Match tags case-insensitively (#412)\n' },
    },
  ],
})
export class ReleaseServer extends McpServer {
  @Tool({ description: 'Lists the releases and their changes' })
  releases(_input: void) {
    return [{ version: '1.4.0', changes: ['search matches tags case-insensitively (#412)'] }];
  }
}
