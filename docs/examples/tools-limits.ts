import 'reflect-metadata';
import { Server, Tool, type ArgumentLimits } from '@mcpx/core';
import { Type } from 'class-transformer';
import { IsInt, IsString, ValidateNested } from 'class-validator';

export class Row {
  @IsString() sku!: string;
  @IsInt() qty!: number;
}

export class ImportInput {
  @ValidateNested({ each: true })
  @Type(() => Row)
  rows!: Row[];
}

/** The server-wide limits, for listen(), serveStdio(), createEngine() or connect(). */
export const serverLimits: ArgumentLimits = { maxStringLength: 64 * 1024 };

@Server({ name: 'inventory', version: '1.0.0' })
export class InventoryServer {
  /** One tool may carry more, starting from the server's limits; what Row does not declare is dropped. */
  @Tool({ description: 'Imports rows', limits: { maxKeys: 30_000, maxArrayLength: 10_000, unknownProperties: 'drop' } })
  import(input: ImportInput) {
    return `Imported ${input.rows.length} rows`;
  }

  /** The defaults apply: 5,000 keys and items, and undeclared properties are refused. */
  @Tool({ description: 'Checks one row' })
  check(input: Row) {
    return `${input.sku} × ${input.qty}`;
  }
}
