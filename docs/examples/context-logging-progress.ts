import 'reflect-metadata';
import { Field, Server, Tool, type RequestContext } from '@mcpx/core';
import { IsInt, Max, Min } from 'class-validator';

export class ImportInput {
  @Field({ description: 'How many rows to import' })
  @IsInt()
  @Min(1)
  @Max(10_000)
  rows!: number;
}

@Server({ name: 'importer', version: '1.0.0' })
export class ImportServer {
  @Tool({ description: 'Imports rows, reporting progress; stops when cancelled' })
  async import_rows(input: ImportInput, ctx: RequestContext) {
    ctx.log.info('import started', { rows: input.rows }); // pino, and notifications/message at or above the session's level
    let done = 0;
    for (; done < input.rows; done += 100) {
      // notifications/cancelled (or a closed session) aborts ctx.signal.
      if (ctx.signal.aborted) {
        ctx.log.warning('import cancelled', { done });
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
      ctx.progress(Math.min(done + 100, input.rows), input.rows, 'importing'); // sent only if the client gave a progressToken
    }
    ctx.log.debug('who asked', { session: ctx.sessionId, request: ctx.requestId, client: ctx.clientInfo?.name });
    return `imported ${Math.min(done, input.rows)} rows`;
  }

  // Pass the signal on to anything that takes one.
  @Tool({ description: 'Fetches a URL' })
  async fetch_status(_input: void, ctx: RequestContext) {
    const response = await fetch('https://example.com', { signal: ctx.signal });
    return `status ${response.status}`;
  }
}
