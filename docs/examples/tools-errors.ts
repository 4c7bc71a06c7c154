import 'reflect-metadata';
import { ErrorCode, Field, McpError, Server, Tool, text, toolError } from '@mcpx/core';
import { IsString } from 'class-validator';

export class PathInput {
  @Field({ description: 'A file path' })
  @IsString()
  path!: string;
}

const files = new Map([['notes.txt', 'hello']]);

@Server({ name: 'files', version: '1.0.0' })
export class FilesServer {
  /** Errors the model should see and may correct: an `isError: true` result. */
  @Tool({ description: 'Reads a file' })
  read(input: PathInput) {
    const body = files.get(input.path);
    if (body === undefined) return toolError(`No file named ${input.path}; try one of: ${[...files.keys()].join(', ')}`);
    return text(body);
  }

  /** A thrown Error is also reported to the model as an isError result, with its message. */
  @Tool({ description: 'Deletes a file' })
  remove(input: PathInput) {
    if (!files.delete(input.path)) throw new Error(`Cannot delete ${input.path}: no such file`);
    return `Deleted ${input.path}`;
  }

  /** A thrown McpError is a protocol error: the tools/call request itself fails with a JSON-RPC error. */
  @Tool({ description: 'Reads a file by URI' })
  fetch(input: PathInput) {
    if (!input.path.startsWith('file:')) throw new McpError(ErrorCode.InvalidParams, 'path must be a file: URI', { path: input.path });
    return files.get(input.path.slice(5)) ?? '';
  }
}
