import 'reflect-metadata';
import { Field, Server, Tool } from '@mcpx/core';
import { IsIn, IsOptional, IsString, ValidateBy } from 'class-validator';

/** A rule for a union of types: class-validator has none built in. */
const IsStringOrNumber = () =>
  ValidateBy({
    name: 'isStringOrNumber',
    validator: {
      validate: (value: unknown) => typeof value === 'string' || typeof value === 'number',
      defaultMessage: () => '$property must be a string or a number',
    },
  });

export class LookupInput {
  // A union of literals: @IsIn lists them.
  @IsIn(['id', 'email']) by!: 'id' | 'email';

  // A union of types is reflected as Object: mcpx cannot derive its schema (it warns at startup).
  // Describe it with @Field({ schema }) and check it with a rule.
  @Field({ schema: { type: ['string', 'number'] } })
  @IsStringOrNumber()
  key!: string | number;

  // Nullable: "string | null" is reflected as String; say that null is allowed too
  // (@IsOptional() lets null and undefined through, @IsString() checks the rest).
  @Field({ schema: { type: ['string', 'null'] } })
  @IsOptional()
  @IsString()
  note?: string | null;
}

@Server({ name: 'directory', version: '1.0.0' })
export class DirectoryServer {
  @Tool({ description: 'Looks someone up' })
  lookup(input: LookupInput) {
    return `by ${input.by}: ${typeof input.key} ${input.key}`;
  }
}
