import 'reflect-metadata';
import { AppResource, Field, Server, Tool, type RequestContext } from '@mcpx/core';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** The view's URI: the tools below name it, and a host reads it as a resource to render it. */
export const COUNTER_VIEW = 'ui://{{binName}}/counter';

/** What both tools return: listed as their outputSchema, sent as structuredContent (the view reads it). */
export class Count {
  @Field({ description: 'The current value of the counter' })
  @IsInt()
  count!: number;
}

/** The add tool's input: these class-validator rules become its JSON Schema and its validation. */
export class AddInput {
  @Field({ description: 'How much to add (1 to 100)', default: 1 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  by?: number;
}

// The view: one self-contained HTML file (its script bundled and inlined) that `npm run build:ui`
// writes from src/ui/. `file` is relative to this module, so '../dist/ui/view.html' is the same
// file from src/server.ts (the tests, mcpx dev) and from dist/server.js (npm start). It is read
// when the server starts.
@AppResource({ uri: COUNTER_VIEW, name: 'counter', title: 'Counter', description: 'The counter, with a button that adds one', file: '../dist/ui/view.html', prefersBorder: true })
@Server({ name: '{{name}}', version: '0.1.0', description: 'An MCP server with an MCP Apps view, built with mcpx.' })
export class AppServer {
  private count = 0;

  // A host that renders MCP Apps shows the view with this tool's result; any other client gets the result alone.
  @Tool({ title: 'Counter', description: 'Shows the counter, in an interactive view where the host renders one.', output: Count, ui: COUNTER_VIEW, annotations: { readOnlyHint: true } })
  counter(): Count {
    return { count: this.count };
  }

  // visibility ['app']: the model never sees this tool; the view calls it through the host (its button).
  @Tool({ title: 'Add to the counter', description: 'Adds to the counter.', output: Count, ui: { resourceUri: COUNTER_VIEW, visibility: ['app'] } })
  add(input: AddInput, ctx: RequestContext): Count {
    this.count += input.by ?? 1;
    ctx.log.info('counter changed', { count: this.count });
    return { count: this.count };
  }
}
