import 'reflect-metadata';
import {
  Allow,
  ArrayMaxSize,
  ArrayMinSize,
  ArrayNotEmpty,
  ArrayUnique,
  Contains,
  Equals,
  IsArray,
  IsBoolean,
  IsDateString,
  IsDefined,
  IsDivisibleBy,
  IsEmail,
  IsEnum,
  IsFQDN,
  IsIn,
  IsInt,
  IsIP,
  IsISO8601,
  IsNegative,
  IsNotEmpty,
  IsNotEmptyObject,
  IsNotIn,
  IsNumber,
  IsObject,
  IsOptional,
  IsPositive,
  IsRFC3339,
  IsString,
  IsUrl,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  NotEquals,
  Validate,
  ValidateIf,
  ValidateNested,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { Type } from 'class-transformer';
import { classToJsonSchema, Field, getFieldOptions, type JsonSchema } from '../../src/schema';
import { expectValid2020Schema } from './helpers';

const props = (cls: Function) => classToJsonSchema(cls).properties as Record<string, JsonSchema>;

enum Color {
  Red = 'red',
  Blue = 'blue',
}
enum Level {
  Low,
  High = 5,
}

class TypeRules {
  @IsString() str!: string;
  @IsNumber() num!: number;
  @IsInt() int!: number;
  @IsBoolean() bool!: boolean;
  @IsObject() obj!: object;
  @IsNotEmptyObject() nonEmptyObj!: object;
  @IsArray() arr!: unknown[];
}

class ValueRules {
  @IsEnum(Color) color!: Color;
  @IsEnum(Level) level!: Level;
  @IsIn(['a', 'b']) inStr!: string;
  @IsIn(['a', 1]) inMixed!: string | number;
  @Equals('fixed') fixed!: string;
  @NotEquals('bad') notBad!: string;
  @IsNotIn(['x', 'y']) notXY!: string;
}

class NumberRules {
  @IsInt() @Min(1) @Max(100) ranged!: number;
  @Min(0) onlyMin!: number;
  @IsPositive() pos!: number;
  @IsNegative() neg!: number;
  @IsDivisibleBy(5) fives!: number;
  @IsInt() @Min(1) @Min(3) @Max(10) @Max(7) twice!: number;
}

class StringRules {
  @MinLength(2) min!: string;
  @MaxLength(5) max!: string;
  @Length(2, 8) len!: string;
  @Length(3) lenMinOnly!: string;
  @Matches(/^[a-z]+$/) re!: string;
  @Matches('^x-\\d+$') reString!: string;
  @Matches(/^abc$/i) reIgnoreCase!: string;
  @Matches(/^a$/) @Matches(/b/) twoPatterns!: string;
  // eslint-disable-next-line no-useless-escape -- the escape is the point: invalid in a Unicode-mode pattern
  @Matches(/\-a/) invalidUnicode!: string;
  @Contains('a.b') contains!: string;
  @IsEmail() email!: string;
  @IsUrl() url!: string;
  @IsUUID('4') uuid!: string;
  @IsDateString() dateString!: string;
  @IsISO8601() iso!: string;
  @IsRFC3339() rfc!: string;
  @IsFQDN() host!: string;
  @IsIP('4') ip4!: string;
  @IsIP('6') ip6!: string;
  @IsIP() ipAny!: string;
  @IsString() @IsNotEmpty() notEmpty!: string;
  @IsNotEmpty() notEmptyUntyped!: unknown;
}

class ArrayRules {
  @IsArray() @IsString({ each: true }) @ArrayMinSize(1) @ArrayMaxSize(3) tags!: string[];
  @ArrayNotEmpty() @ArrayUnique() @IsInt({ each: true }) @Min(0, { each: true }) ids!: number[];
  @IsString({ each: true }) @IsNotEmpty({ each: true }) @MaxLength(10, { each: true }) words!: string[];
  @IsEnum(Color, { each: true }) colors!: Color[];
}

@ValidatorConstraint({ name: 'somethingCustom' })
class CustomRule implements ValidatorConstraintInterface {
  validate(value: unknown) {
    return value === 'ok';
  }
}

class Misc {
  @IsOptional() @IsString() optional?: string;
  @ValidateIf((o: Misc) => o.optional !== undefined) @IsString() conditional?: string;
  @IsOptional() @IsDefined() @IsString() optionalWins?: string;
  @Validate(CustomRule) custom!: string;
  @IsDefined() anything!: unknown;
  @Allow() inferredString!: string;
  @Allow() inferredNumber!: number;
  @Allow() inferredBoolean!: boolean;
  @Allow() inferredNothing!: string | number;
}

describe('classToJsonSchema: rule mapping', () => {
  it('maps type rules', () => {
    expect(props(TypeRules)).toEqual({
      str: { type: 'string' },
      num: { type: 'number' },
      int: { type: 'integer' },
      bool: { type: 'boolean' },
      obj: { type: 'object' },
      nonEmptyObj: { type: 'object', minProperties: 1 },
      arr: { type: 'array' },
    });
  });

  it('maps value rules (string and numeric TS enums give member values only)', () => {
    expect(props(ValueRules)).toEqual({
      color: { type: 'string', enum: ['red', 'blue'] },
      level: { type: 'number', enum: [0, 5] },
      inStr: { type: 'string', enum: ['a', 'b'] },
      inMixed: { enum: ['a', 1] },
      fixed: { type: 'string', const: 'fixed' },
      notBad: { type: 'string', not: { enum: ['bad'] } },
      notXY: { type: 'string', not: { enum: ['x', 'y'] } },
    });
  });

  it('maps number rules, keeping the stricter bound when repeated', () => {
    expect(props(NumberRules)).toEqual({
      ranged: { type: 'integer', minimum: 1, maximum: 100 },
      onlyMin: { type: 'number', minimum: 0 },
      pos: { type: 'number', exclusiveMinimum: 0 },
      neg: { type: 'number', exclusiveMaximum: 0 },
      fives: { type: 'number', multipleOf: 5 },
      twice: { type: 'integer', minimum: 3, maximum: 7 },
    });
  });

  it('maps string rules and formats', () => {
    expect(props(StringRules)).toEqual({
      min: { type: 'string', minLength: 2 },
      max: { type: 'string', maxLength: 5 },
      len: { type: 'string', minLength: 2, maxLength: 8 },
      lenMinOnly: { type: 'string', minLength: 3 },
      re: { type: 'string', pattern: '^[a-z]+$' },
      reString: { type: 'string', pattern: '^x-\\d+$' },
      // JSON Schema patterns have no flags: a case-insensitive regex is left out
      reIgnoreCase: { type: 'string' },
      twoPatterns: expect.objectContaining({ type: 'string' }),
      // `\-` is not a valid escape in a unicode regex, which is how ajv reads patterns
      invalidUnicode: { type: 'string' },
      contains: { type: 'string', pattern: 'a\\.b' },
      email: { type: 'string', format: 'email' },
      url: { type: 'string', format: 'uri' },
      uuid: { type: 'string', format: 'uuid' },
      dateString: { type: 'string', format: 'date-time' },
      iso: { type: 'string', format: 'date-time' },
      rfc: { type: 'string', format: 'date-time' },
      host: { type: 'string', format: 'hostname' },
      ip4: { type: 'string', format: 'ipv4' },
      ip6: { type: 'string', format: 'ipv6' },
      ipAny: { type: 'string' },
      notEmpty: { type: 'string', minLength: 1 },
      notEmptyUntyped: {},
    });
    // Both patterns must hold: one as `pattern`, the other under allOf.
    const two = props(StringRules).twoPatterns;
    const patterns = [two.pattern, ...((two.allOf as JsonSchema[]) ?? []).map((s) => s.pattern)];
    expect(patterns.sort()).toEqual(['^a$', 'b']);
  });

  it('applies `each: true` rules to array items', () => {
    expect(props(ArrayRules)).toEqual({
      tags: { type: 'array', minItems: 1, maxItems: 3, items: { type: 'string' } },
      ids: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'integer', minimum: 0 } },
      words: { type: 'array', items: { type: 'string', maxLength: 10, minLength: 1 } },
      colors: { type: 'array', items: { type: 'string', enum: ['red', 'blue'] } },
    });
  });

  it('handles optional, conditional, custom rules and design-type inference', () => {
    const schema = classToJsonSchema(Misc);
    expect(schema.properties).toEqual({
      optional: { type: 'string' },
      conditional: { type: 'string' },
      optionalWins: { type: 'string' },
      custom: { type: 'string' }, // unknown validator: nothing emitted, type from design:type
      anything: {},
      inferredString: { type: 'string' },
      inferredNumber: { type: 'number' },
      inferredBoolean: { type: 'boolean' },
      inferredNothing: {},
    });
    expect(schema.required).toEqual(['custom', 'anything', 'inferredString', 'inferredNumber', 'inferredBoolean', 'inferredNothing']);
  });

  it('emits a closed object shape without `required` when nothing is required', () => {
    class AllOptional {
      @IsOptional() @IsString() a?: string;
    }
    expect(classToJsonSchema(AllOptional)).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
      additionalProperties: false,
    });
    class NoFields {}
    expect(classToJsonSchema(NoFields)).toEqual({ type: 'object', properties: {}, additionalProperties: false });
  });

  it.each([TypeRules, ValueRules, NumberRules, StringRules, ArrayRules, Misc])('generates a valid 2020-12 schema for %p', (cls) => expectValid2020Schema(classToJsonSchema(cls)));
});

describe('classToJsonSchema: nested classes', () => {
  class Address {
    @IsString() city!: string;
    @IsOptional() @IsString() zip?: string;
  }
  class Person {
    @IsString() name!: string;
    @ValidateNested() @Type(() => Address) address!: Address;
    @IsOptional() @ValidateNested({ each: true }) @Type(() => Address) @ArrayMaxSize(2) previous?: Address[];
  }

  it('puts nested classes in $defs and references them, arrays via items', () => {
    const schema = classToJsonSchema(Person);
    expect(schema).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string' },
        address: { $ref: '#/$defs/Address' },
        previous: { type: 'array', maxItems: 2, items: { $ref: '#/$defs/Address' } },
      },
      required: ['name', 'address'],
      additionalProperties: false,
      $defs: {
        Address: {
          type: 'object',
          properties: { city: { type: 'string' }, zip: { type: 'string' } },
          required: ['city'],
          additionalProperties: false,
        },
      },
    });
    expectValid2020Schema(schema);
  });

  it('falls back to design:type when @Type is missing', () => {
    class Holder {
      @ValidateNested() address!: Address;
      @ValidateNested() unknownShape!: object;
    }
    const schema = classToJsonSchema(Holder);
    expect(props(Holder)).toEqual({ address: { $ref: '#/$defs/Address' }, unknownShape: { type: 'object' } });
    expect(Object.keys(schema.$defs as object)).toEqual(['Address']);
    expectValid2020Schema(schema);
  });

  it('handles self-recursive classes with a reference to the root', () => {
    class TreeNode {
      @IsString() label!: string;
      @IsOptional() @ValidateNested({ each: true }) @Type(() => TreeNode) children?: TreeNode[];
    }
    const schema = classToJsonSchema(TreeNode);
    expect(props(TreeNode).children).toEqual({ type: 'array', items: { $ref: '#' } });
    expect(schema.$defs).toBeUndefined();
    expectValid2020Schema(schema);
  });

  it('handles mutually recursive classes below the root', () => {
    class Folder {
      @IsString() name!: string;
      @ValidateNested({ each: true }) @Type(() => File) files!: File[];
      @IsOptional() @ValidateNested() @Type(() => Folder) parent?: Folder;
    }
    class File {
      @IsString() name!: string;
      @ValidateNested() @Type(() => Folder) folder!: Folder;
    }
    class Workspace {
      @ValidateNested() @Type(() => Folder) root!: Folder;
    }
    const schema = classToJsonSchema(Workspace);
    const defs = schema.$defs as Record<string, JsonSchema>;
    expect(Object.keys(defs).sort()).toEqual(['File', 'Folder']);
    expect((defs.Folder.properties as Record<string, JsonSchema>).parent).toEqual({ $ref: '#/$defs/Folder' });
    expect((defs.File.properties as Record<string, JsonSchema>).folder).toEqual({ $ref: '#/$defs/Folder' });
    expectValid2020Schema(schema);
  });

  it('gives distinct classes with the same name distinct $defs entries', () => {
    const makeItem = (field: string) => {
      class Item {}
      IsString()(Item.prototype, field);
      return Item;
    };
    const ItemA = makeItem('a');
    const ItemB = makeItem('b');
    class Order {
      @ValidateNested() @Type(() => ItemA) first!: InstanceType<typeof ItemA>;
      @ValidateNested() @Type(() => ItemB) second!: InstanceType<typeof ItemB>;
      @ValidateNested() @Type(() => ItemA) third!: InstanceType<typeof ItemA>;
    }
    const schema = classToJsonSchema(Order);
    const defs = schema.$defs as Record<string, JsonSchema>;
    expect(Object.keys(defs)).toEqual(['Item', 'Item_2']);
    expect(props(Order)).toEqual({
      first: { $ref: '#/$defs/Item' },
      second: { $ref: '#/$defs/Item_2' },
      third: { $ref: '#/$defs/Item' },
    });
    expect(Object.keys(defs.Item.properties as object)).toEqual(['a']);
    expect(Object.keys(defs.Item_2.properties as object)).toEqual(['b']);
    expectValid2020Schema(schema);
  });
});

describe('classToJsonSchema: inheritance, @Field and caching', () => {
  class PageInput {
    @Field({ description: 'Max items to return', default: 20 })
    @IsOptional()
    @IsInt()
    @Min(1)
    @Max(100)
    limit?: number;

    @Field({ description: 'Opaque cursor' }) @IsOptional() @IsString() cursor?: string;
  }
  class SearchInput extends PageInput {
    @Field({ title: 'Query', description: 'Text to search for', examples: ['cats'] })
    @IsString()
    @MinLength(1)
    query!: string;
  }

  it('includes inherited fields (parent first) and adds the subclass fields', () => {
    const schema = classToJsonSchema(SearchInput);
    expect(Object.keys(schema.properties as object)).toEqual(['limit', 'cursor', 'query']);
    expect(schema.required).toEqual(['query']);
    expect(Object.keys(classToJsonSchema(PageInput).properties as object)).toEqual(['limit', 'cursor']);
    expectValid2020Schema(schema);
  });

  it('adds @Field annotations, including from parent classes', () => {
    expect(props(SearchInput)).toEqual({
      limit: { description: 'Max items to return', type: 'integer', minimum: 1, maximum: 100, default: 20 },
      cursor: { description: 'Opaque cursor', type: 'string' },
      query: { title: 'Query', description: 'Text to search for', type: 'string', minLength: 1, examples: ['cats'] },
    });
    expect(getFieldOptions(SearchInput, 'limit')).toEqual({ description: 'Max items to return', default: 20 });
    expect(getFieldOptions(SearchInput, 'nope')).toBeUndefined();
  });

  it('lets @Field override format, mark deprecated and merge extra keywords last', () => {
    class Annotated {
      @Field({ format: 'idn-email', deprecated: true }) @IsEmail() contact!: string;
      @Field({ schema: { maxLength: 3, 'x-ui': 'short' } }) @IsString() @MaxLength(10) code!: string;
      @Field({ description: 'only a field' }) note!: string;
    }
    expect(props(Annotated)).toEqual({
      contact: { type: 'string', format: 'idn-email', deprecated: true },
      code: { type: 'string', maxLength: 3, 'x-ui': 'short' },
      note: { description: 'only a field', type: 'string' },
    });
    expect(classToJsonSchema(Annotated).required).toEqual(['contact', 'code', 'note']);
  });

  it('caches per class and returns a frozen schema', () => {
    const a = classToJsonSchema(SearchInput);
    expect(classToJsonSchema(SearchInput)).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(Object.isFrozen(a.properties)).toBe(true);
  });

  it('does not freeze values owned by the decorator options', () => {
    const examples = ['x'];
    class WithExamples {
      @Field({ examples }) @IsString() s!: string;
    }
    classToJsonSchema(WithExamples);
    expect(Object.isFrozen(examples)).toBe(false);
  });
});
