/**
 * What every benchmarked server answers, byte for byte the same: the `echo` tool returns its
 * `text` argument, the `big` tool returns BIG_TEXT. Anchors (plain .mjs) import this compiled file.
 */

const LINE = 'mcpx benchmark payload: the quick brown fox jumps over the lazy dog 0123456789\n';

/** ≈1 MB of text (1,048,560 characters; 13,440 lines of 78 characters). */
export const BIG_TEXT = LINE.repeat(Math.floor((1024 * 1024) / LINE.length));

export const ECHO_DESCRIPTION = 'Returns the text it is given';
export const BIG_DESCRIPTION = 'Returns about 1 MB of text';
