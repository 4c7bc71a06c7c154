// The README's 15-line server, kept here so it is compiled and tested (apps/example/test/readme.test.ts).
import 'reflect-metadata';
import { Field, Server, Tool, type RequestContext } from '@mcpx/core';
import { serveStdio } from '@mcpx/stdio';
import { IsInt, IsString, Max, Min } from 'class-validator';

class GreetInput {
  @Field({ description: 'Who to greet' }) @IsString() name!: string;
  @Field({ description: 'How many times' }) @IsInt() @Min(1) @Max(5) times!: number;
}

@Server({ name: 'greeter', version: '1.0.0' })
class Greeter {
  @Tool({ description: 'Greets someone' })
  greet(input: GreetInput, ctx: RequestContext) {
    ctx.log.info('greeting', { name: input.name });
    return Array(input.times).fill(`Hello, ${input.name}!`).join('\n');
  }
}

serveStdio(new Greeter());
