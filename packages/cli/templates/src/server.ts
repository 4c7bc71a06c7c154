import 'reflect-metadata';
import { Field, Prompt, Resource, Server, Tool, userMessage, type RequestContext } from '@mcpx/core';
import { IsIn, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';

/** The greet tool's input: these class-validator rules become its JSON Schema and its validation. */
export class GreetInput {
  @Field({ description: 'Who to greet' })
  @IsString()
  @Length(1, 100)
  name!: string;

  @Field({ description: 'How many times to say hello (1 to 5)', default: 1 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(5)
  times?: number;
}

/** The explain prompt's arguments: each property is one argument. */
export class ExplainArgs {
  @Field({ description: 'What to explain' })
  @IsString()
  @Length(1, 200)
  topic!: string;

  @Field({ description: 'brief or detailed' })
  @IsOptional()
  @IsIn(['brief', 'detailed'])
  style?: string;
}

@Server({ name: '{{name}}', version: '0.1.0', description: 'An MCP server built with mcpx.' })
export class AppServer {
  @Tool({ title: 'Greet', description: 'Greets someone by name.', annotations: { readOnlyHint: true } })
  greet(input: GreetInput, ctx: RequestContext): string {
    ctx.log.info('greeting', { name: input.name });
    return Array(input.times ?? 1).fill(`Hello, ${input.name}!`).join('\n');
  }

  @Resource({ uri: 'app://about', name: 'about', title: 'About', description: 'What this server is', mimeType: 'text/plain' })
  about(): string {
    return '{{name}}: an MCP server built with mcpx.';
  }

  @Prompt({ title: 'Explain', description: 'Asks the model to explain a topic.' })
  explain(args: ExplainArgs) {
    const depth = args.style === 'detailed' ? 'in detail' : 'in two sentences';
    return [userMessage(`Explain ${args.topic} ${depth}.`)];
  }
}
