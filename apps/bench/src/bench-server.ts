import 'reflect-metadata';
import { Field, Server, Tool } from '@mcpx/core';
import { IsString } from 'class-validator';
import { BIG_DESCRIPTION, BIG_TEXT, ECHO_DESCRIPTION } from './payload';

export class EchoInput {
  @Field({ description: 'The text to return' }) @IsString() text!: string;
}

/** The two benchmark tools, written as any mcpx user would write them. */
@Server({ name: 'mcpx-bench', version: '1.0.0' })
export class BenchServer {
  @Tool({ description: ECHO_DESCRIPTION })
  echo(input: EchoInput): string {
    return input.text;
  }

  @Tool({ description: BIG_DESCRIPTION })
  big(): string {
    return BIG_TEXT;
  }
}
