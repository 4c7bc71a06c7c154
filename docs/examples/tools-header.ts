import 'reflect-metadata';
import { Field, Server, Tool } from '@mcpx/core';
import { Type } from 'class-transformer';
import { IsBoolean, IsOptional, IsString, ValidateNested } from 'class-validator';

export class Target {
  @Field({ description: 'Cloud region', header: 'Region' })
  @IsString()
  region!: string;
}

export class QueryInput {
  @Field({ description: 'SQL to run' })
  @IsString()
  sql!: string;

  // Nested as a single value: written out in place, so its header stays reachable through `properties`.
  @ValidateNested()
  @Type(() => Target)
  target!: Target;

  @Field({ description: 'Plan only', header: 'Dry-Run' })
  @IsOptional()
  @IsBoolean()
  dryRun?: boolean;
}

@Server({ name: 'warehouse', version: '1.0.0' })
export class WarehouseServer {
  // Over HTTP, a 2026-07-28 client sends Mcp-Param-Region (and Mcp-Param-Dry-Run when dryRun is set) with each call.
  @Tool({ description: 'Runs a query in a region' })
  query(input: QueryInput) {
    return `${input.dryRun ? 'Would run' : 'Ran'} in ${input.target.region}: ${input.sql}`;
  }
}
