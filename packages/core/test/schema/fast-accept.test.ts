import 'reflect-metadata';
import {
  Allow,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  Validate,
  ValidateIf,
  ValidatorConstraint,
  validate,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { Expose, Transform, plainToInstance } from 'class-transformer';
import { Field, classToJsonSchema, validateInput } from '../../src/schema';
import { acceptFast } from '../../src/schema/fast-accept';

@ValidatorConstraint({ name: 'even' })
class Even implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'number' && value % 2 === 0;
  }
}

@ValidatorConstraint({ name: 'slow', async: true })
class Slow implements ValidatorConstraintInterface {
  validate(value: unknown): Promise<boolean> {
    return Promise.resolve(value === 'ok');
  }
}

class Flat {
  @IsString() @MaxLength(5) text!: string;
  @IsOptional() @IsInt() @Min(1) @Max(10) limit?: number;
  @IsOptional() @IsBoolean() loud?: boolean;
  @IsOptional() @IsIn(['a', 'b']) mode?: string;
  @IsOptional() @Validate(Even) even?: number;
  @Field({ description: 'anything' }) @IsOptional() note?: unknown;
  @ValidateIf((o: Flat) => o.mode === 'a') @IsNumber() only?: number;
  @IsOptional() @Allow() free?: unknown;
}

class WithAsync {
  @Validate(Slow) word!: string;
}

class Renamed {
  @Expose({ name: 'n' }) @IsString() name!: string;
}

class Trimmed {
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value)) @IsString() @MaxLength(3) code!: string;
}

class WithGetter {
  @IsOptional() @IsString() text?: string;
  get shout(): string {
    return (this.text ?? '').toUpperCase();
  }
}

/**
 * What the general path says of the same input: class-transformer, then class-validator, then
 * mcpx's own rule that a property the schema requires must be there.
 */
async function generalVerdict<T extends object>(cls: new () => T, plain: Record<string, unknown>): Promise<{ ok: boolean; value: T }> {
  const value = plainToInstance(cls, plain);
  const errors = await validate(value, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true });
  const required = (classToJsonSchema(cls).required as string[] | undefined) ?? [];
  const present = required.every((name) => (value as Record<string, unknown>)[name] !== undefined);
  return { ok: errors.length === 0 && present, value };
}

const FLAT_INPUTS: Record<string, unknown>[] = [
  { text: 'hi' },
  { text: 'hi', limit: 3, loud: true, mode: 'b', even: 4, note: 'x', free: 1 },
  { text: 'hi', mode: 'a', only: 2 },
  { text: 'hi', mode: 'b', only: 2 },
  { text: 'hi', mode: 'a' }, // only applies and is missing
  { text: 'hi', mode: 'a', only: 'two' },
  { text: 'too long' },
  { text: 5 },
  { text: null },
  {}, // text required
  { text: 'hi', limit: 0 },
  { text: 'hi', limit: 2.5 },
  { text: 'hi', limit: null },
  { text: 'hi', even: 3 },
  { text: 'hi', mode: 'c' },
  { text: 'hi', note: { nested: true } }, // an object: the general path
  { text: 'hi', free: [1, 2] },
  { text: 'hi', loud: 'yes' },
];

describe('acceptFast (validating flat arguments without the general machinery)', () => {
  it.each(FLAT_INPUTS.map((input) => [JSON.stringify(input), input]))('agrees with class-transformer + class-validator on %s', async (_name, input) => {
    const fast = acceptFast(Flat, input, classToJsonSchema(Flat));
    const general = await generalVerdict(Flat, input);
    if (fast) {
      // Accepted fast only where the general path accepts, with the same instance.
      expect(general.ok).toBe(true);
      expect(fast).toBeInstanceOf(Flat);
      expect({ ...fast }).toEqual({ ...general.value });
    }
    // Valid primitives are the case it exists for: it takes every one of them.
    const primitives = Object.values(input).every((v) => v === null || typeof v !== 'object');
    if (general.ok && primitives) expect(fast).toBeInstanceOf(Flat);
    // And the public entry point gives the general path's verdict either way.
    const result = await validateInput(Flat, input);
    expect(result.ok).toBe(general.ok);
  });

  it('takes the common case: a flat class given valid primitives', () => {
    const accepted = acceptFast(Flat, { text: 'hi', limit: 3, mode: 'a', only: 1 }, classToJsonSchema(Flat));
    expect(accepted).toBeInstanceOf(Flat);
    expect(accepted).toMatchObject({ text: 'hi', limit: 3, mode: 'a', only: 1 });
  });

  it('leaves to the general path what it cannot judge exactly', () => {
    // An async rule answers with a promise; renamed and transformed properties are class-transformer's to map.
    expect(acceptFast(WithAsync, { word: 'ok' }, classToJsonSchema(WithAsync))).toBeUndefined();
    expect(acceptFast(Renamed, { n: 'x' }, classToJsonSchema(Renamed))).toBeUndefined();
    expect(acceptFast(Trimmed, { code: ' ab ' }, classToJsonSchema(Trimmed))).toBeUndefined();
    // A key the prototype has (an accessor without a setter, `constructor`, `__proto__`).
    expect(acceptFast(WithGetter, { shout: 'x' }, classToJsonSchema(WithGetter))).toBeUndefined();
    expect(acceptFast(Flat, JSON.parse('{"text":"hi","__proto__":"x"}'), classToJsonSchema(Flat))).toBeUndefined();
  });

  it('gives the general path the same verdicts on those classes', async () => {
    await expect(validateInput(WithAsync, { word: 'ok' })).resolves.toMatchObject({ ok: true });
    await expect(validateInput(WithAsync, { word: 'no' })).resolves.toMatchObject({ ok: false });
    await expect(validateInput(Trimmed, { code: ' ab ' })).resolves.toMatchObject({ ok: true, value: { code: 'ab' } });
  });
});
