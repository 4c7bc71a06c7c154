/**
 * What every benchmarked server answers, byte for byte the same: the `echo` tool returns its
 * `text` argument, the `big` tool returns BIG_TEXT. Anchors (plain .mjs) import this compiled file.
 */

const LINE = 'mcpx benchmark payload: the quick brown fox jumps over the lazy dog 0123456789\n';

/** ≈1 MB of text (1,048,560 characters; 13,440 lines of 78 characters). */
export const BIG_TEXT = LINE.repeat(Math.floor((1024 * 1024) / LINE.length));

export const ECHO_DESCRIPTION = 'Returns the text it is given';
export const BIG_DESCRIPTION = 'Returns about 1 MB of text';

/** The tools/list answer of the servers with no MCP library (the raw route and the bare node:http floor). */
export const TOOLS = [
  {
    name: 'echo',
    description: ECHO_DESCRIPTION,
    inputSchema: { type: 'object', properties: { text: { type: 'string', description: 'The text to return' } }, required: ['text'] },
  },
  { name: 'big', description: BIG_DESCRIPTION, inputSchema: { type: 'object', properties: {} } },
];
