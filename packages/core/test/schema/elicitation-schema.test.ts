import 'reflect-metadata';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  Equals,
  IsArray,
  IsBoolean,
  IsDate,
  IsDateString,
  IsEmail,
  IsEnum,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNotIn,
  IsNumber,
  IsOptional,
  IsPositive,
  IsString,
  IsUrl,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { Type } from 'class-transformer';
import { ElicitRequestFormParamsSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  checkElicitationSchema,
  classToJsonSchema,
  ElicitationSchemaError,
  Field,
  toElicitationSchema,
  validateElicitedContent,
  type JsonSchema,
  type ValidationIssue,
} from '../../src/schema';

// ---- a mirror of what the official client accepts (FIXTURES §2.8) ----

const isStr = (v: unknown): v is string => typeof v === 'string';
const optStr = (v: unknown) => v === undefined || isStr(v);
const optNum = (v: unknown) => v === undefined || typeof v === 'number';
const strArr = (v: unknown) => Array.isArray(v) && v.every(isStr);
const titledOptions = (v: unknown) => Array.isArray(v) && v.every((o) => typeof o === 'object' && o !== null && isStr(o.const) && isStr(o.title));
const FORMATS = ['email', 'uri', 'date', 'date-time'];

/** Names of the primitive shapes a property matches (the client accepts it if there is one). */
function shapesOf(p: Record<string, unknown>): string[] {
  const labels = optStr(p.title) && optStr(p.description);
  const items = (p.items ?? {}) as Record<string, unknown>;
  const shapes: Record<string, boolean> = {
    string: p.type === 'string' && optNum(p.minLength) && optNum(p.maxLength) && (p.format === undefined || FORMATS.includes(p.format as string)) && optStr(p.default),
    number: (p.type === 'number' || p.type === 'integer') && optNum(p.minimum) && optNum(p.maximum) && optNum(p.default),
    boolean: p.type === 'boolean' && (p.default === undefined || typeof p.default === 'boolean'),
    untitledSingle: p.type === 'string' && strArr(p.enum) && optStr(p.default),
    titledSingle: p.type === 'string' && titledOptions(p.oneOf) && optStr(p.default),
    legacyEnum: p.type === 'string' && strArr(p.enum) && (p.enumNames === undefined || strArr(p.enumNames)) && optStr(p.default),
    untitledMulti: p.type === 'array' && optNum(p.minItems) && optNum(p.maxItems) && items.type === 'string' && strArr(items.enum) && (p.default === undefined || strArr(p.default)),
    titledMulti: p.type === 'array' && optNum(p.minItems) && optNum(p.maxItems) && titledOptions(items.anyOf) && (p.default === undefined || strArr(p.default)),
  };
  return labels ? Object.keys(shapes).filter((k) => shapes[k]) : [];
}

/** Problems the official client (and the conformance checks) would find in a requested schema. */
function clientProblems(schema: unknown): string[] {
  const s = schema as Record<string, unknown>;
  const problems: string[] = [];
  if (s.type !== 'object') problems.push('type');
  if (typeof s.properties !== 'object' || s.properties === null) return [...problems, 'properties'];
  if (s.required !== undefined && !strArr(s.required)) problems.push('required');
  for (const [name, raw] of Object.entries(s.properties as Record<string, unknown>)) {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      problems.push(name);
      continue;
    }
    const p = raw as Record<string, unknown>;
    if (shapesOf(p).length === 0) problems.push(name);
    // unambiguous: titled forms carry no enum, multi-selects one kind of list (FIXTURES §20)
    if ('oneOf' in p && 'enum' in p) problems.push(`${name}: enum+oneOf`);
    const items = p.items as Record<string, unknown> | undefined;
    if (items && 'anyOf' in items && 'enum' in items) problems.push(`${name}: items enum+anyOf`);
    if ('enumNames' in p && (p.enumNames as unknown[]).length !== (p.enum as unknown[] | undefined)?.length) problems.push(`${name}: enumNames`);
  }
  return problems;
}

/** The mirror, the SDK's own request schema and checkElicitationSchema all accept it. */
function expectClientAccepts(schema: unknown): void {
  expect(clientProblems(schema)).toEqual([]);
  const parsed = ElicitRequestFormParamsSchema.safeParse({ mode: 'form', message: 'm', requestedSchema: schema });
  expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  expect(checkElicitationSchema(schema)).toEqual([]);
}

const props = (cls: Function) => toElicitationSchema(cls).properties as Record<string, JsonSchema>;

function errorOf(cls: Function): ElicitationSchemaError {
  try {
    toElicitationSchema(cls);
  } catch (err) {
    expect(err).toBeInstanceOf(ElicitationSchemaError);
    return err as ElicitationSchemaError;
  }
  throw new Error(`expected ${cls.name} to be rejected`);
}

// ---- fixtures ----

enum Plan {
  Free = 'free',
  Pro = 'pro',
  Team = 'team',
}
enum Level {
  Low = 1,
  High = 2,
}

class Strings {
  @Field({ title: 'Display Name', description: 'Your name' }) @IsString() @MinLength(3) @MaxLength(50) name!: string;
  @IsEmail() email!: string;
  @IsOptional() @IsUrl() website?: string;
  @IsOptional() @IsDateString() @Field({ format: 'date' }) birthday?: string;
  @IsOptional() @IsDateString() meetingAt?: string;
  @IsOptional() @IsString() @IsNotEmpty() @Field({ default: 'hello' }) greeting?: string;
}

class Numbers {
  @IsInt() @Min(0) @Max(150) age!: number;
  @IsOptional() @IsNumber() @Min(0) @Max(100) @Field({ default: 50 }) score?: number;
  @IsOptional() @IsInt() @IsPositive() count?: number;
  @IsOptional() @IsNumber() @IsPositive() ratio?: number;
  @IsOptional() @Field({ description: 'inferred from the TS type' }) plain?: number;
}

class Booleans {
  @IsBoolean() @Field({ default: false, title: 'Subscribe' }) subscribe!: boolean;
  @IsOptional() @IsBoolean() extra?: boolean;
}

class SingleSelects {
  @IsIn(['Red', 'Green', 'Blue']) @Field({ default: 'Red' }) color!: string;
  @IsEnum(Plan) plan!: Plan;
  @IsIn(['#FF0000', '#00FF00', '#0000FF'])
  @Field({ enumTitles: { '#FF0000': 'Red', '#00FF00': 'Green', '#0000FF': 'Blue' }, default: '#FF0000' })
  hex!: string;
  @IsOptional() @IsEnum(Plan) @Field({ enumTitles: { free: 'Free tier', pro: 'Professional' } }) titledPlan?: Plan;
  @IsOptional() @IsString() @Equals('yes') confirm?: string;
}

class MultiSelects {
  @IsArray()
  @IsIn(['Red', 'Green', 'Blue'], { each: true })
  @ArrayMinSize(1)
  @ArrayMaxSize(2)
  @Field({ default: ['Red', 'Green'] })
  colors!: string[];
  @IsOptional() @IsArray() @IsEnum(Plan, { each: true }) @ArrayUnique() plans?: Plan[];
  @IsOptional()
  @IsArray()
  @IsIn(['#FF0000', '#00FF00', '#0000FF'], { each: true })
  @ArrayMaxSize(2)
  @Field({ enumTitles: { '#FF0000': 'Red', '#00FF00': 'Green', '#0000FF': 'Blue' }, default: ['#FF0000'] })
  hexes?: string[];
}

class Relaxed {
  @IsString() @Matches(/^[a-z]+$/) handle!: string;
  @IsUUID('4') id!: string;
  @IsString() @IsNotIn(['root']) user!: string;
}

// The conformance fixtures, written as classes.
class Sep1034Defaults {
  @IsOptional() @IsString() @Field({ default: 'John Doe' }) name?: string;
  @IsOptional() @IsInt() @Field({ default: 30 }) age?: number;
  @IsOptional() @IsNumber() @Field({ default: 95.5 }) score?: number;
  @IsOptional() @IsIn(['active', 'inactive', 'pending']) @Field({ default: 'active' }) status?: string;
  @IsOptional() @IsBoolean() @Field({ default: true }) verified?: boolean;
}

const firstSecondThird = (word: string) => ({ value1: `First ${word}`, value2: `Second ${word}`, value3: `Third ${word}` });

class Sep1330Enums {
  @IsIn(['option1', 'option2', 'option3']) untitledSingle!: string;
  @IsIn(['value1', 'value2', 'value3']) @Field({ enumTitles: firstSecondThird('Option') }) titledSingle!: string;
  @IsIn(['opt1', 'opt2', 'opt3']) @Field({ schema: { enumNames: ['Option One', 'Option Two', 'Option Three'] } }) legacyEnum!: string;
  @IsArray() @IsIn(['option1', 'option2', 'option3'], { each: true }) @ArrayMinSize(1) @ArrayMaxSize(3) untitledMulti!: string[];
  @IsArray()
  @IsIn(['value1', 'value2', 'value3'], { each: true })
  @ArrayMinSize(1)
  @ArrayMaxSize(3)
  @Field({ enumTitles: firstSecondThird('Choice') })
  titledMulti!: string[];
}

const ALL_FIXTURES: Function[] = [Strings, Numbers, Booleans, SingleSelects, MultiSelects, Relaxed, Sep1034Defaults, Sep1330Enums];

// ---- toElicitationSchema ----

describe('toElicitationSchema: primitive shapes from class rules', () => {
  it.each(ALL_FIXTURES.map((cls) => [cls.name, cls] as const))('%s gives a schema the official client accepts', (_name, cls) => {
    const schema = toElicitationSchema(cls);
    expect(Object.keys(schema).sort()).toEqual(['properties', 'required', 'type'].filter((k) => k !== 'required' || schema.required));
    expectClientAccepts(schema);
  });

  it('maps strings: lengths, labels, defaults and every allowed format', () => {
    expect(props(Strings)).toEqual({
      name: { type: 'string', title: 'Display Name', description: 'Your name', minLength: 3, maxLength: 50 },
      email: { type: 'string', format: 'email' },
      website: { type: 'string', format: 'uri' },
      birthday: { type: 'string', format: 'date' },
      meetingAt: { type: 'string', format: 'date-time' },
      greeting: { type: 'string', minLength: 1, default: 'hello' },
    });
  });

  it('maps numbers and integers with bounds; exclusive bounds become inclusive ones', () => {
    expect(props(Numbers)).toEqual({
      age: { type: 'integer', minimum: 0, maximum: 150 },
      score: { type: 'number', minimum: 0, maximum: 100, default: 50 },
      count: { type: 'integer', minimum: 1 },
      ratio: { type: 'number', minimum: 0 },
      plain: { type: 'number', description: 'inferred from the TS type' },
    });
  });

  it('maps booleans with defaults', () => {
    expect(props(Booleans)).toEqual({
      subscribe: { type: 'boolean', title: 'Subscribe', default: false },
      extra: { type: 'boolean' },
    });
  });

  it('maps single selects: plain enum from IsIn / IsEnum, oneOf with enumTitles', () => {
    const p = props(SingleSelects);
    expect(p.color).toEqual({ type: 'string', enum: ['Red', 'Green', 'Blue'], default: 'Red' });
    expect(p.plan).toEqual({ type: 'string', enum: ['free', 'pro', 'team'] });
    expect(p.hex).toEqual({
      type: 'string',
      oneOf: [
        { const: '#FF0000', title: 'Red' },
        { const: '#00FF00', title: 'Green' },
        { const: '#0000FF', title: 'Blue' },
      ],
      default: '#FF0000',
    });
    // values without a title are shown as themselves
    expect(p.titledPlan).toEqual({
      type: 'string',
      oneOf: [
        { const: 'free', title: 'Free tier' },
        { const: 'pro', title: 'Professional' },
        { const: 'team', title: 'team' },
      ],
    });
    expect(p.confirm).toEqual({ type: 'string', enum: ['yes'] });
  });

  it('maps multi-selects: items.enum or items.anyOf, with minItems / maxItems and a default', () => {
    const p = props(MultiSelects);
    expect(p.colors).toEqual({
      type: 'array',
      minItems: 1,
      maxItems: 2,
      items: { type: 'string', enum: ['Red', 'Green', 'Blue'] },
      default: ['Red', 'Green'],
    });
    expect(p.plans).toEqual({ type: 'array', items: { type: 'string', enum: ['free', 'pro', 'team'] } });
    expect(p.hexes).toEqual({
      type: 'array',
      maxItems: 2,
      items: {
        anyOf: [
          { const: '#FF0000', title: 'Red' },
          { const: '#00FF00', title: 'Green' },
          { const: '#0000FF', title: 'Blue' },
        ],
      },
      default: ['#FF0000'],
    });
  });

  it('leaves out rules the form cannot carry (the server still checks them)', () => {
    expect(props(Relaxed)).toEqual({ handle: { type: 'string' }, id: { type: 'string' }, user: { type: 'string' } });
  });

  it('lists required properties and leaves optional ones out', () => {
    expect(toElicitationSchema(Strings).required).toEqual(['name', 'email']);
    expect(toElicitationSchema(Numbers).required).toEqual(['age']);
    expect(toElicitationSchema(Sep1034Defaults).required).toBeUndefined();
  });

  it('reproduces the SEP-1034 defaults fixture (FIXTURES §17)', () => {
    expect(toElicitationSchema(Sep1034Defaults)).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', default: 'John Doe' },
        age: { type: 'integer', default: 30 },
        score: { type: 'number', default: 95.5 },
        status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
        verified: { type: 'boolean', default: true },
      },
    });
  });

  it('reproduces the SEP-1330 enums fixture (FIXTURES §20)', () => {
    const options = (word: string) => Object.entries(firstSecondThird(word)).map(([value, title]) => ({ const: value, title }));
    const p = props(Sep1330Enums);
    expect(p).toEqual({
      untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
      titledSingle: { type: 'string', oneOf: options('Option') },
      legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
      untitledMulti: { type: 'array', minItems: 1, maxItems: 3, items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
      titledMulti: { type: 'array', minItems: 1, maxItems: 3, items: { anyOf: options('Choice') } },
    });
    expect(p.untitledSingle).not.toHaveProperty('oneOf');
    expect(p.titledSingle).not.toHaveProperty('enum');
    expect(p.titledMulti.items).not.toHaveProperty('enum');
    expect(toElicitationSchema(Sep1330Enums).required).toEqual(Object.keys(p));
  });

  it('includes inherited properties', () => {
    class Base {
      @IsString() id!: string;
    }
    class Child extends Base {
      @IsOptional() @IsBoolean() flag?: boolean;
    }
    expect(toElicitationSchema(Child)).toEqual({
      type: 'object',
      properties: { id: { type: 'string' }, flag: { type: 'boolean' } },
      required: ['id'],
    });
  });

  it('gives an empty form for a class without rules', () => {
    class Nothing {}
    expect(toElicitationSchema(Nothing)).toEqual({ type: 'object', properties: {} });
    expectClientAccepts(toElicitationSchema(Nothing));
  });

  it('caches per class and freezes the result', () => {
    const schema = toElicitationSchema(Strings);
    expect(toElicitationSchema(Strings)).toBe(schema);
    expect(Object.isFrozen(schema)).toBe(true);
    expect(Object.isFrozen(schema.properties.name)).toBe(true);
  });

  it('leaves tool input schemas alone: enumTitles only shapes the form', () => {
    // classToJsonSchema is unchanged; the titled property is still a plain enum there.
    const hex = (classToJsonSchema(SingleSelects).properties as Record<string, JsonSchema>).hex;
    expect(hex.enum).toEqual(['#FF0000', '#00FF00', '#0000FF']);
    expect(hex).not.toHaveProperty('oneOf');
  });
});

describe('toElicitationSchema: properties a form cannot show', () => {
  class Address {
    @IsString() city!: string;
  }

  it('rejects a nested object, naming the class and the property', () => {
    class Signup {
      @IsString() name!: string;
      @ValidateNested() @Type(() => Address) address!: Address;
    }
    const err = errorOf(Signup);
    expect(err.name).toBe('ElicitationSchemaError');
    expect(err.className).toBe('Signup');
    expect(err.problems).toEqual([{ property: 'address', reason: expect.stringContaining('nested object (Address)') }]);
    expect(err.message).toMatch(/^Class Signup cannot be used as an elicitation form:\n- address: is a nested object/);
  });

  class ArrayOfObjects {
    @ValidateNested({ each: true }) @Type(() => Address) addresses!: Address[];
  }
  class FreeStrings {
    @IsArray() @IsString({ each: true }) tags!: string[];
  }
  class BareArray {
    @IsArray() things!: unknown[];
  }
  class NumericIn {
    @IsIn([1, 2, 3]) size!: number;
  }
  class NumericEnum {
    @IsEnum(Level) level!: Level;
  }
  class NumericMulti {
    @IsArray() @IsIn([1, 2], { each: true }) sizes!: number[];
  }
  class Mixed {
    @IsIn(['a', 1]) value!: string | number;
  }
  class NumberWithPattern {
    @IsNumber() @Matches(/^\d+$/) amount!: number;
  }
  class StringWithMin {
    @IsString() @Min(3) code!: string;
  }
  class PatternField {
    @IsNumber() @Field({ schema: { pattern: '^1' } }) amount!: number;
  }
  class EachConflict {
    @IsArray() @IsString({ each: true }) @IsInt({ each: true }) picks!: string[];
  }
  class IntChoices {
    @IsArray() @IsIn(['a'], { each: true }) @IsInt({ each: true }) picks!: string[];
  }
  class WithDate {
    @IsDate() when!: Date;
  }
  class Untyped {
    @Field() anything!: unknown;
  }
  class Obj {
    @Field({ schema: { type: 'object' } }) bag!: object;
  }
  class Nullable {
    @Field({ schema: { type: ['string', 'null'] } }) maybe!: string | null;
  }
  class BadDefault {
    @IsIn(['a', 'b']) @Field({ default: 'c' }) pick!: string;
  }
  class WrongDefault {
    @IsInt() @Field({ default: '3' }) n!: number;
  }
  class OutOfRange {
    @IsInt() @Min(1) @Max(5) @Field({ default: 9 }) n!: number;
  }
  class TypoTitles {
    @IsIn(['a', 'b']) @Field({ enumTitles: { a: 'A', c: 'C' } }) pick!: string;
  }
  class TitlesNoEnum {
    @IsString() @Field({ enumTitles: { a: 'A' } }) text!: string;
  }
  class ShortNames {
    @IsIn(['a', 'b', 'c']) @Field({ schema: { enumNames: ['A'] } }) pick!: string;
  }
  class MultiNames {
    @IsArray() @IsIn(['a'], { each: true }) @Field({ schema: { enumNames: ['A'] } }) picks!: string[];
  }
  class TooMany {
    @IsArray() @IsIn(['a', 'b'], { each: true }) @ArrayMinSize(3) picks!: string[];
  }

  it.each<[string, Function, RegExp]>([
    ['an array of objects', ArrayOfObjects, /is an array of objects \(Address\)/],
    ['an array of free strings', FreeStrings, /is an array of free strings; .*@IsIn\(\[\.\.\.\], \{ each: true \}\)/],
    ['an array without element rules', BareArray, /array without a rule for its elements/],
    ['a numeric enum (IsIn)', NumericIn, /allows only listed numbers; elicitation choices are strings/],
    ['a numeric TS enum (IsEnum)', NumericEnum, /allows only listed numbers/],
    ['a multi-select of numbers', NumericMulti, /is an array of "number" values; multi-select choices are strings only/],
    ['mixed enum values', Mixed, /not all strings \("a", 1\)/],
    ['a number with a pattern', NumberWithPattern, /rules for different types: (matches \(string\) vs isNumber \(number\)|isNumber \(number\) vs matches \(string\))/],
    ['a string with a numeric bound', StringWithMin, /rules for different types: .*min \(number\)/],
    ['a number with a pattern given through @Field', PatternField, /is a number but also has pattern, which belong to another type/],
    ['an element rule of another type', EachConflict, /rules for different types on its elements/],
    ['string choices for integer elements', IntChoices, /is an array of "integer" values; multi-select choices are strings only/],
    ['a Date', WithDate, /is a Date, which a form answer cannot be .*@IsDateString\(\)/],
    ['an untyped value', Untyped, /has no primitive type/],
    ['an object type', Obj, /nested object/],
    ['a nullable type', Nullable, /allows several types \(string, null\)/],
    ['a default that is not a choice', BadDefault, /default "c" is not one of the choices \("a", "b"\)/],
    ['a default of the wrong type', WrongDefault, /default must be a number/],
    ['a default outside the bounds', OutOfRange, /default 9 is greater than maximum 5/],
    ['enumTitles naming a value that is not allowed', TypoTitles, /enumTitles for values it does not allow: "c"/],
    ['enumTitles without an enum', TitlesNoEnum, /enumTitles but no list of allowed values/],
    ['enumNames of the wrong length', ShortNames, /enumNames has 1 entries but enum has 3/],
    ['enumNames on a multi-select', MultiNames, /enumNames, which only single selects may carry/],
    ['more required selections than choices', TooMany, /minItems 3 is more than the 2 choices/],
  ])('rejects %s', (_what, cls, reason) => {
    const err = errorOf(cls);
    expect(err.className).toBe(cls.name);
    expect(err.problems).toHaveLength(1);
    expect(err.problems[0].reason).toMatch(reason);
    expect(err.message).toContain(`Class ${cls.name} `);
    expect(err.message).toContain(`- ${err.problems[0].property}: `);
  });

  it('lists every bad property at once and keeps failing (errors are not cached)', () => {
    class Several {
      @IsString() ok!: string;
      @ValidateNested() @Type(() => Address) home!: Address;
      @IsArray() @IsString({ each: true }) tags!: string[];
    }
    const err = errorOf(Several);
    expect(err.problems.map((p) => p.property)).toEqual(['home', 'tags']);
    expect(() => toElicitationSchema(Several)).toThrow(ElicitationSchemaError);
  });

  it('rejects a self-referencing class', () => {
    class Node {
      @IsOptional() @ValidateNested() @Type(() => Node) next?: Node;
    }
    expect(errorOf(Node).problems[0].reason).toMatch(/nested object \(the class itself\)/);
  });
});

// ---- checkElicitationSchema ----

const GOOD_SCHEMAS: [string, unknown][] = [
  ['the simple text example', { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }],
  [
    'the conformance test_elicitation schema (FIXTURES §3)',
    {
      type: 'object',
      properties: {
        username: { type: 'string', description: "User's response" },
        email: { type: 'string', description: "User's email address" },
      },
      required: ['username', 'email'],
    },
  ],
  [
    'every shape of the spec',
    {
      type: 'object',
      properties: {
        text: { type: 'string', title: 'Display Name', description: 'd', minLength: 3, maxLength: 50, format: 'email', default: 'user@example.com' },
        when: { type: 'string', format: 'date' },
        at: { type: 'string', format: 'date-time' },
        link: { type: 'string', format: 'uri' },
        number: { type: 'number', title: 'N', minimum: 0, maximum: 100, default: 50 },
        integer: { type: 'integer', minimum: -5, default: 0 },
        flag: { type: 'boolean', default: false },
        color: { type: 'string', enum: ['Red', 'Green', 'Blue'], default: 'Red' },
        hex: {
          type: 'string',
          oneOf: [
            { const: '#FF0000', title: 'Red' },
            { const: '#00FF00', title: 'Green' },
          ],
          default: '#FF0000',
        },
        legacy: { type: 'string', enum: ['a', 'b'], enumNames: ['A', 'B'] },
        colors: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string', enum: ['Red', 'Green', 'Blue'] }, default: ['Red', 'Green'] },
        hexes: { type: 'array', items: { anyOf: [{ const: '#FF0000', title: 'Red' }] }, default: ['#FF0000'] },
      },
    },
  ],
  ['an empty form with $schema', { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {}, required: [] }],
];

// [what, schema, expected problem, does the official client reject it too?]
const BAD_SCHEMAS: [string, unknown, RegExp, boolean][] = [
  ['not an object', 'nope', /the schema must be an object, got string/, true],
  ['the wrong root type', { type: 'array', properties: {} }, /type must be "object" \(got "array"\)/, true],
  ['no properties', { type: 'object' }, /properties must be an object/, true],
  ['a nested object', { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'string' } } } } }, /properties\.a: is a nested object/, true],
  ['a $ref', { type: 'object', properties: { a: { $ref: '#/$defs/A' } } }, /properties\.a: is a reference/, true],
  ['a boolean property schema', { type: 'object', properties: { a: true } }, /properties\.a: must be a field schema object \(got boolean\)/, true],
  ['an unknown format', { type: 'object', properties: { id: { type: 'string', format: 'uuid' } } }, /properties\.id: format must be one of email, uri, date, date-time \(got "uuid"\)/, true],
  ['a non-string enum', { type: 'object', properties: { n: { type: 'string', enum: [1, 2] } } }, /properties\.n: enum must be an array of strings/, false],
  ['an option without a title', { type: 'object', properties: { c: { type: 'string', oneOf: [{ const: 'a' }] } } }, /oneOf\[0\] must be \{ const: string, title: string \}/, false],
  ['a string default on a number', { type: 'object', properties: { n: { type: 'number', default: '5' } } }, /properties\.n: default must be a number/, true],
  ['a non-boolean default', { type: 'object', properties: { f: { type: 'boolean', default: 'yes' } } }, /default must be a boolean/, true],
  ['a title that is not a string', { type: 'object', properties: { f: { type: 'boolean', title: 3 } } }, /title must be a string/, true],
  ['an array of free strings', { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } } }, /arrays of free values are not allowed/, true],
  ['an array without items', { type: 'object', properties: { tags: { type: 'array' } } }, /items must be an object listing the choices/, true],
  ['a required list that is not strings', { type: 'object', properties: {}, required: [1] }, /required must be an array of property names/, true],
  ['a numeric enum on a number', { type: 'object', properties: { n: { type: 'number', enum: [1, 2] } } }, /choices \(enum \/ oneOf\) are only allowed on strings/, false],
  ['a default that is not a choice', { type: 'object', properties: { s: { type: 'string', enum: ['a'], default: 'b' } } }, /default "b" is not one of the choices/, false],
  [
    'a multi default that is not a choice',
    { type: 'object', properties: { m: { type: 'array', items: { type: 'string', enum: ['a'] }, default: ['x'] } } },
    /default has values that are not choices: "x"/,
    false,
  ],
  ['enumNames of another length', { type: 'object', properties: { s: { type: 'string', enum: ['a', 'b'], enumNames: ['A'] } } }, /enumNames has 1 entries but enum has 2/, false],
  ['enum and oneOf together', { type: 'object', properties: { s: { type: 'string', enum: ['a'], oneOf: [{ const: 'a', title: 'A' }] } } }, /has both enum and oneOf/, false],
  ['minimum above maximum', { type: 'object', properties: { n: { type: 'integer', minimum: 5, maximum: 1 } } }, /minimum 5 is greater than maximum 1/, false],
  ['a negative minLength', { type: 'object', properties: { s: { type: 'string', minLength: -1 } } }, /minLength must be a non-negative integer \(got -1\)/, false],
  ['a non-integer default for an integer', { type: 'object', properties: { n: { type: 'integer', default: 1.5 } } }, /default 1\.5 is not an integer/, false],
  ['a required name not in properties', { type: 'object', properties: { a: { type: 'string' } }, required: ['a', 'b'] }, /required lists "b", which is not in properties/, false],
  ['an empty enum', { type: 'object', properties: { s: { type: 'string', enum: [] } } }, /properties\.s: enum is empty/, false],
];

describe('checkElicitationSchema', () => {
  it.each(GOOD_SCHEMAS)('accepts %s', (_what, schema) => {
    expectClientAccepts(schema);
  });

  it.each(BAD_SCHEMAS)('reports %s', (_what, schema, problem, clientRejects) => {
    const problems = checkElicitationSchema(schema);
    expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(problem)]));
    const parsed = ElicitRequestFormParamsSchema.safeParse({ message: 'm', requestedSchema: schema });
    if (clientRejects) expect(parsed.success).toBe(false);
  });

  it('ignores keywords clients ignore', () => {
    expect(
      checkElicitationSchema({
        type: 'object',
        additionalProperties: false,
        properties: { s: { type: 'string', pattern: '^a', 'x-extra': 1 } },
      }),
    ).toEqual([]);
  });

  it('agrees with the mirror of the client rules on every schema above', () => {
    for (const [, schema] of GOOD_SCHEMAS) expect(clientProblems(schema)).toEqual([]);
    for (const [what, schema, , clientRejects] of BAD_SCHEMAS) {
      if (clientRejects && typeof schema === 'object') expect([what, clientProblems(schema)]).not.toEqual([what, []]);
    }
  });
});

// ---- validateElicitedContent ----

class Profile {
  @IsString() @MinLength(2) name!: string;
  @IsEmail() email!: string;
  @IsOptional() @IsInt() @Min(18) @Max(120) age?: number;
  @IsOptional() @IsIn(['free', 'pro']) @Field({ enumTitles: { free: 'Free', pro: 'Pro' } }) plan?: string;
  @IsOptional() @IsArray() @IsIn(['a', 'b', 'c'], { each: true }) @ArrayMaxSize(2) topics?: string[];
  @IsOptional() @IsBoolean() newsletter?: boolean;
  @IsOptional() @IsString() @Matches(/^[a-z]+$/) handle?: string;
}

async function issuesOf(content: unknown, cls: new () => object = Profile): Promise<ValidationIssue[]> {
  const result = await validateElicitedContent(cls, content);
  if (result.ok) throw new Error('expected the content to be rejected');
  return result.issues;
}

describe('validateElicitedContent', () => {
  it('the form for the class is itself acceptable', () => {
    expectClientAccepts(toElicitationSchema(Profile));
  });

  it('returns a class instance for valid content', async () => {
    const result = await validateElicitedContent(Profile, {
      name: 'Ada',
      email: 'ada@example.com',
      age: 36,
      plan: 'pro',
      topics: ['a', 'c'],
      newsletter: false,
      handle: 'ada',
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value).toBeInstanceOf(Profile);
    expect(result.value).toEqual(Object.assign(new Profile(), { name: 'Ada', email: 'ada@example.com', age: 36, plan: 'pro', topics: ['a', 'c'], newsletter: false, handle: 'ada' }));
  });

  it('accepts content that leaves out optional fields', async () => {
    const result = await validateElicitedContent(Profile, { name: 'Ada', email: 'ada@example.com' });
    expect(result.ok && result.value).toBeInstanceOf(Profile);
  });

  it('drops properties the form did not ask for', async () => {
    const result = await validateElicitedContent(Profile, { name: 'Ada', email: 'ada@example.com', admin: true });
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.value).not.toHaveProperty('admin');
  });

  it('reports an invalid email', async () => {
    expect(await issuesOf({ name: 'Ada', email: 'not-an-email' })).toEqual([{ path: 'email', message: 'email must be an email' }]);
  });

  it('reports a number out of range and a wrong type', async () => {
    expect(await issuesOf({ name: 'Ada', email: 'ada@example.com', age: 12 })).toEqual([{ path: 'age', message: 'age must not be less than 18' }]);
    expect(await issuesOf({ name: 'Ada', email: 'ada@example.com', age: '30' })).toEqual(expect.arrayContaining([{ path: 'age', message: 'age must be an integer number' }]));
  });

  it('reports a value that is not a choice, single and multi', async () => {
    const issues = await issuesOf({ name: 'Ada', email: 'ada@example.com', plan: 'gold', topics: ['a', 'z', 'b'] });
    expect(issues.map((i) => i.path).sort()).toEqual(['plan', 'topics', 'topics']);
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'plan', message: 'plan must be one of the following values: free, pro' },
        { path: 'topics', message: 'topics must contain no more than 2 elements' },
        { path: 'topics', message: 'each value in topics must be one of the following values: a, b, c' },
      ]),
    );
  });

  it('enforces rules the form could not carry', async () => {
    expect(await issuesOf({ name: 'Ada', email: 'ada@example.com', handle: 'Ada!' })).toEqual([{ path: 'handle', message: 'handle must match /^[a-z]+$/ regular expression' }]);
  });

  it('reports missing required fields once each', async () => {
    const issues = await issuesOf({});
    expect(issues.map((i) => i.path)).toEqual(expect.arrayContaining(['name', 'email']));
    expect(issues.every((i) => i.path === 'name' || i.path === 'email')).toBe(true);
  });

  it('reports content that is not an object; undefined counts as {}', async () => {
    expect(await issuesOf(['x'])).toEqual([{ path: '', message: 'content must be an object, got an array' }]);
    expect(await issuesOf(null)).toEqual([{ path: '', message: 'content must be an object, got null' }]);
    class AllOptional {
      @IsOptional() @IsBoolean() ok?: boolean;
    }
    const result = await validateElicitedContent(AllOptional, undefined);
    expect(result.ok && result.value).toBeInstanceOf(AllOptional);
  });

  it('checks keywords given only through @Field against the form schema', async () => {
    class FieldOnly {
      @Field({ schema: { minLength: 3 } }) code!: string;
    }
    expect(toElicitationSchema(FieldOnly).properties.code).toEqual({ type: 'string', minLength: 3 });
    expect(await issuesOf({ code: 'ab' }, FieldOnly)).toEqual([{ path: 'code', message: 'code must NOT have fewer than 3 characters' }]);
    expect((await validateElicitedContent(FieldOnly, { code: 'abc' })).ok).toBe(true);
  });

  it('handles a class without fields', async () => {
    class Empty {}
    const result = await validateElicitedContent(Empty, { anything: 1 });
    expect(result.ok && result.value).toBeInstanceOf(Empty);
  });

  it('accepts the answers of the conformance client (FIXTURES §17 and §20)', async () => {
    const defaults = await validateElicitedContent(Sep1034Defaults, { name: 'Jane Smith', age: 25, score: 88, status: 'inactive', verified: false });
    expect(defaults.ok).toBe(true);
    const enums = await validateElicitedContent(Sep1330Enums, {
      untitledSingle: 'option1',
      titledSingle: 'value1',
      legacyEnum: 'opt1',
      untitledMulti: ['option1', 'option2'],
      titledMulti: ['value1', 'value2'],
    });
    expect(enums.ok && enums.value).toBeInstanceOf(Sep1330Enums);
  });

  it('rejects a class that cannot be a form', async () => {
    class Bad {
      @IsArray() @IsString({ each: true }) tags!: string[];
    }
    await expect(validateElicitedContent(Bad, { tags: [] })).rejects.toThrow(ElicitationSchemaError);
  });
});
