import 'reflect-metadata';
import { ArrayMaxSize, IsDefined, IsEmail, IsInt, IsOptional, IsString, Max, Min, MinLength, ValidateNested } from 'class-validator';
import { Type } from 'class-transformer';
import { classToJsonSchema, Field, formatIssues, validateInput, validateOutput, type ValidationIssue } from '../../src/schema';

class Address {
  @IsString() city!: string;
  @IsOptional() @IsString() zip?: string;
}

class Contact {
  @IsString() @MinLength(1) name!: string;
  @IsOptional() @IsEmail() email?: string;
  @IsOptional() @IsInt() @Min(1) @Max(10) limit?: number;
  @ValidateNested() @Type(() => Address) address!: Address;
  @IsOptional() @ValidateNested({ each: true }) @Type(() => Address) @ArrayMaxSize(3) history?: Address[];
  @IsOptional() @IsString({ each: true }) tags?: string[];
  @Field({ description: 'free text' }) @IsOptional() note?: unknown;
}

const valid = { name: 'Ada', address: { city: 'London' } };

async function issuesOf(plain: unknown): Promise<ValidationIssue[]> {
  const result = await validateInput(Contact, plain);
  if (result.ok) throw new Error('expected validation to fail');
  return result.issues;
}

describe('validateInput', () => {
  it('returns a class instance with nested class instances for valid input', async () => {
    const result = await validateInput(Contact, {
      ...valid,
      limit: 3,
      history: [{ city: 'Paris' }, { city: 'Rome', zip: '00100' }],
      tags: ['a'],
      note: { any: 'thing' },
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value).toBeInstanceOf(Contact);
    expect(result.value.address).toBeInstanceOf(Address);
    expect(result.value.history?.[1]).toBeInstanceOf(Address);
    expect(result.value.history?.[1].zip).toBe('00100');
    expect(result.value.note).toEqual({ any: 'thing' });
  });

  it('reports a missing required property as missing, not with the messages of its rules', async () => {
    // class-validator alone says "name must be a string" and "name must be longer than or equal to 1 characters".
    expect(await issuesOf({ address: { city: 'x' } })).toEqual([{ path: 'name', message: 'name is required' }]);
  });

  it('reports wrong types', async () => {
    const issues = await issuesOf({ ...valid, name: 42, limit: 'ten' });
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'name', message: 'name must be a string' },
        { path: 'limit', message: 'limit must be an integer number' },
      ]),
    );
  });

  it('reports bounds', async () => {
    expect(await issuesOf({ ...valid, limit: 0 })).toEqual([{ path: 'limit', message: 'limit must not be less than 1' }]);
    expect(await issuesOf({ ...valid, limit: 11 })).toEqual([{ path: 'limit', message: 'limit must not be greater than 10' }]);
  });

  it('does not coerce values', async () => {
    expect(await issuesOf({ ...valid, limit: '5' })).toContainEqual({
      path: 'limit',
      message: 'limit must be an integer number',
    });
  });

  it('reports unknown properties, also inside nested objects', async () => {
    expect(await issuesOf({ ...valid, extra: 1 })).toEqual([{ path: 'extra', message: 'property extra should not exist' }]);
    expect(await issuesOf({ name: 'Ada', address: { city: 'x', planet: 'Mars' } })).toEqual([{ path: 'address.planet', message: 'property planet should not exist' }]);
  });

  it.each([
    [null, 'null'],
    [[1, 2], 'array'],
    ['text', 'string'],
    [5, 'number'],
  ])('reports a non-object root (%p) at path ""', async (plain, kind) => {
    expect(await issuesOf(plain)).toEqual([{ path: '', message: `arguments must be an object, got ${kind}` }]);
  });

  it('reports a missing nested object although a bare @ValidateNested accepts undefined', async () => {
    expect(await issuesOf({ name: 'Ada' })).toEqual([{ path: 'address', message: 'address is required' }]);
  });

  it('treats missing arguments (undefined) as an empty object', async () => {
    const issues = await issuesOf(undefined);
    expect(issues.map((i) => i.path)).toEqual(expect.arrayContaining(['name', 'address']));
  });

  it('reports nested paths with property names and array indexes', async () => {
    const issues = await issuesOf({
      name: 'Ada',
      address: { city: 7 },
      history: [{ city: 'ok' }, { city: null }],
      tags: ['a', 2],
    });
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'address.city', message: 'city must be a string' },
        { path: 'history[1].city', message: 'city must be a string' },
        { path: 'tags', message: 'each value in tags must be a string' },
      ]),
    );
    expect(issues).toHaveLength(3);
  });

  it('reports a nested value that is not an object', async () => {
    expect(await issuesOf({ name: 'Ada', address: 'London' })).toEqual([{ path: 'address', message: 'nested property address must be either object or array' }]);
  });

  it('accepts a class without properties only with no arguments', async () => {
    class NoArgs {}
    const ok = await validateInput(NoArgs, {});
    expect(ok).toEqual({ ok: true, value: expect.any(NoArgs) });
    expect(await validateInput(NoArgs, { x: 1 })).toEqual({
      ok: false,
      issues: [{ path: 'x', message: 'property x should not exist' }],
    });
  });

  it('whitelists a property that only has @Field', async () => {
    class OnlyFields {
      @Field({ description: 'anything' }) value!: unknown;
    }
    const result = await validateInput(OnlyFields, { value: [1, 'two'] });
    expect(result).toEqual({ ok: true, value: expect.any(OnlyFields) });
    expect(await validateInput(OnlyFields, { value: 1, other: 2 })).toEqual({
      ok: false,
      issues: [{ path: 'other', message: 'property other should not exist' }],
    });
    expect(await validateInput(OnlyFields, {})).toEqual({
      ok: false,
      issues: [{ path: 'value', message: 'value is required' }],
    });
  });

  it('counts class field initializers as provided values', async () => {
    class WithDefault {
      @IsInt() @Min(1) limit: number = 10;
    }
    expect(await validateInput(WithDefault, {})).toEqual({ ok: true, value: expect.objectContaining({ limit: 10 }) });
  });

  it('reports missing required properties inside arrays of nested objects', async () => {
    class Tag {
      @Field() label!: string;
    }
    class Tagged {
      @ValidateNested({ each: true }) @Type(() => Tag) tags!: Tag[];
    }
    expect(await validateInput(Tagged, { tags: [{ label: 'a' }, {}] })).toEqual({
      ok: false,
      issues: [{ path: 'tags[1].label', message: 'label is required' }],
    });
  });

  it('lets @IsOptional skip @IsDefined, as the schema says (class-validator 0.15)', async () => {
    class Both {
      @IsOptional() @IsDefined() @IsString() value?: string;
    }
    expect(await validateInput(Both, {})).toEqual({ ok: true, value: expect.any(Both) });
    expect(classToJsonSchema(Both).required).toBeUndefined();
  });

  it('validates inherited rules', async () => {
    class Base {
      @IsInt() @Min(1) page!: number;
    }
    class Derived extends Base {
      @IsString() q!: string;
    }
    expect(await validateInput(Derived, { page: 1, q: 'x' })).toMatchObject({ ok: true });
    const result = await validateInput(Derived, { page: 0, q: 'x' });
    expect(result).toEqual({ ok: false, issues: [{ path: 'page', message: 'page must not be less than 1' }] });
  });
});

describe('validateOutput', () => {
  class Result {
    @IsInt() count!: number;
    @ValidateNested() @Type(() => Address) where!: Address;
  }

  it('accepts plain objects and instances, returning a stripped copy', async () => {
    const plain = { count: 2, where: { city: 'Oslo', extra: true }, debug: 'x' };
    const result = await validateOutput(Result, plain);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value).toBeInstanceOf(Result);
    expect(result.value.where).toBeInstanceOf(Address);
    expect(result.value).toEqual(Object.assign(new Result(), { count: 2, where: Object.assign(new Address(), { city: 'Oslo' }) }));
    expect(plain.debug).toBe('x'); // the caller's object is untouched

    const instance = Object.assign(new Result(), { count: 1, where: Object.assign(new Address(), { city: 'Rome' }) });
    const again = await validateOutput(Result, instance);
    expect(again).toMatchObject({ ok: true, value: { count: 1, where: { city: 'Rome' } } });
  });

  it('reports invalid output', async () => {
    expect(await validateOutput(Result, { count: 'x', where: { city: 1 } })).toEqual({
      ok: false,
      issues: [
        { path: 'count', message: 'count must be an integer number' },
        { path: 'where.city', message: 'city must be a string' },
      ],
    });
    expect(await validateOutput(Result, 'nope')).toEqual({
      ok: false,
      issues: [{ path: '', message: 'result must be an object, got string' }],
    });
  });
});

describe('formatIssues', () => {
  it('formats one line per issue', async () => {
    const text = formatIssues(await issuesOf({ ...valid, limit: 0, address: { city: 1 } }));
    expect(text).toBe('Invalid arguments:\n- limit: limit must not be less than 1\n- address.city: city must be a string');
  });

  it('omits the path for root issues and accepts a heading', () => {
    expect(formatIssues([{ path: '', message: 'result must be an object, got null' }], 'Invalid result')).toBe('Invalid result:\n- result must be an object, got null');
  });
});
