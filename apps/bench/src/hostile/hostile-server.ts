import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsInt, IsString, Length, Min, ValidateNested } from 'class-validator';
import { Field, Server, Tool } from '@mcpx/core';

export class Row {
  @Field({ description: 'Stock keeping unit' })
  @IsString()
  @Length(1, 64)
  sku!: string;

  @Field({ description: 'How many' })
  @IsInt()
  @Min(0)
  qty!: number;
}

export class ImportInput {
  @Field({ description: 'The rows to import' })
  @ValidateNested({ each: true })
  @Type(() => Row)
  rows!: Row[];
}

/**
 * The target of `npm run bench:hostile`: one flat tool and one whose input nests a class per array
 * item, the shape that makes class-transformer and class-validator do the most work per key.
 * Served with the default limits.
 */
@Server({ name: 'mcpx-hostile-target', version: '1.0.0' })
export class HostileTarget {
  @Tool({ description: 'Checks one row' })
  check(input: Row) {
    return `${input.sku} × ${input.qty}`;
  }

  @Tool({ description: 'Imports rows' })
  import(input: ImportInput) {
    return `Imported ${input.rows.length} rows`;
  }
}
