import 'reflect-metadata';
import { Field, Server, Tool } from '@mcpx/core';
import { IsBoolean, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';

export class SearchInput {
  @IsString() query!: string;

  // @IsOptional() keeps it out of "required"; the initializer is the value the method gets when
  // it is absent; @Field({ default }) tells the client (mcpx does not read initializers).
  @Field({ description: 'Most results to return', default: 10 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(50)
  limit: number = 10;

  @Field({ default: false })
  @IsOptional()
  @IsBoolean()
  exact: boolean = false;

  // Optional without a default: undefined when absent.
  @IsOptional() @IsString() language?: string;
}

@Server({ name: 'search', version: '1.0.0' })
export class SearchServer {
  @Tool({ description: 'Searches the notes' })
  search(input: SearchInput) {
    return `${input.query}: limit ${input.limit}, exact ${input.exact}, language ${input.language ?? 'any'}`;
  }
}
