/**
 * The constraint tables: which JSON Schema keywords each class-validator rule (by its metadata
 * `name`) stands for, and how several rules on one property combine (the stricter bound wins, two
 * value lists intersect, further patterns go to allOf). property-schema.ts applies them to a
 * property's rules; nothing here knows about classes.
 */
import type { JsonSchema } from './json-schema';

type RuleMapper = (schema: JsonSchema, constraints: unknown[]) => void;

function setType(s: JsonSchema, type: string): void {
  // integer refines number (IsInt + Min); otherwise the first type seen wins.
  if (s.type === undefined || (s.type === 'number' && type === 'integer')) s.type = type;
}

/** Applies a lower bound, keeping the stricter one if several rules set it. */
export function raise(s: JsonSchema, key: string, value: unknown): void {
  if (typeof value !== 'number') return;
  s[key] = typeof s[key] === 'number' ? Math.max(s[key] as number, value) : value;
}

/** Applies an upper bound, keeping the stricter one. */
function lower(s: JsonSchema, key: string, value: unknown): void {
  if (typeof value !== 'number') return;
  s[key] = typeof s[key] === 'number' ? Math.min(s[key] as number, value) : value;
}

function setEnum(s: JsonSchema, values: unknown[]): void {
  // Two value rules on one property must both hold: keep the intersection.
  const prev = s.enum as unknown[] | undefined;
  s.enum = prev ? prev.filter((v) => values.includes(v)) : [...values];
  typeOfValues(s, s.enum as unknown[]);
}

/** Adds `type` when all allowed values share one primitive type (clients and LLMs rely on it). */
function typeOfValues(s: JsonSchema, values: unknown[]): void {
  const kinds = new Set(values.map((v) => typeof v));
  if (kinds.size === 1) {
    const kind = [...kinds][0];
    if (kind === 'string' || kind === 'number' || kind === 'boolean') setType(s, kind);
  }
}

function notIn(s: JsonSchema, values: unknown[]): void {
  const not = (s.not ??= { enum: [] }) as { enum: unknown[] };
  not.enum.push(...values);
}

/** Values of a TS enum (or plain object); drops the reverse entries of numeric enums (E[0] === 'A'). */
function enumValues(e: unknown): unknown[] {
  if (!e || typeof e !== 'object') return [];
  const obj = e as Record<string, unknown>;
  const isReverse = (k: string) => {
    const member = obj[k];
    return typeof member === 'string' && typeof obj[member] === 'number' && String(obj[member]) === k;
  };
  return [
    ...new Set(
      Object.keys(obj)
        .filter((k) => !isReverse(k))
        .map((k) => obj[k]),
    ),
  ];
}

function addPattern(s: JsonSchema, source: string): void {
  // A schema holds a single `pattern`; further ones must all match, so they go to allOf.
  if (s.pattern === undefined) s.pattern = source;
  else ((s.allOf ??= []) as JsonSchema[]).push({ pattern: source });
}

/**
 * The `pattern` for a @Matches rule, or undefined when it cannot be expressed faithfully:
 * JSON Schema patterns have no flags, so i/m/s regexes are omitted (an approximation would
 * reject valid input); sources that are invalid as unicode regexes (ajv uses the u flag) too.
 */
function patternSource(pattern: unknown, modifiers: unknown): string | undefined {
  let re: RegExp;
  try {
    re = pattern instanceof RegExp ? pattern : new RegExp(String(pattern), typeof modifiers === 'string' ? modifiers : undefined);
    if (/[ims]/.test(re.flags)) return undefined;
    new RegExp(re.source, 'u');
  } catch {
    return undefined;
  }
  return re.source;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A rule that implies a JSON type (class-validator checks typeof / Array.isArray first) plus keywords. */
const typed =
  (type: string, apply?: RuleMapper): RuleMapper =>
  (s, c) => {
    setType(s, type);
    apply?.(s, c);
  };
const format = (name: string) => typed('string', (s) => (s.format = name));

export const RULES: Record<string, RuleMapper> = {
  isString: typed('string'),
  isNumber: typed('number'),
  isInt: typed('integer'),
  isBoolean: typed('boolean'),
  isObject: typed('object'),
  isNotEmptyObject: typed('object', (s) => raise(s, 'minProperties', 1)),
  isEnum: (s, [e]) => setEnum(s, enumValues(e)),
  isIn: (s, [values]) => Array.isArray(values) && setEnum(s, values),
  equals: (s, [value]) => {
    s.const = value;
    typeOfValues(s, [value]);
  },
  notEquals: (s, [value]) => notIn(s, [value]),
  isNotIn: (s, [values]) => Array.isArray(values) && notIn(s, values),

  min: typed('number', (s, [n]) => raise(s, 'minimum', n)),
  max: typed('number', (s, [n]) => lower(s, 'maximum', n)),
  isPositive: typed('number', (s) => raise(s, 'exclusiveMinimum', 0)),
  isNegative: typed('number', (s) => lower(s, 'exclusiveMaximum', 0)),
  isDivisibleBy: typed('number', (s, [n]) => typeof n === 'number' && n > 0 && (s.multipleOf = n)),

  minLength: typed('string', (s, [n]) => raise(s, 'minLength', n)),
  maxLength: typed('string', (s, [n]) => lower(s, 'maxLength', n)),
  isLength: typed('string', (s, [min, max]) => {
    raise(s, 'minLength', min);
    lower(s, 'maxLength', max);
  }),
  matches: typed('string', (s, [pattern, modifiers]) => {
    const source = patternSource(pattern, modifiers);
    if (source !== undefined) addPattern(s, source);
  }),
  contains: typed('string', (s, [seed]) => typeof seed === 'string' && addPattern(s, escapeRegExp(seed))),
  isEmail: format('email'),
  isUrl: format('uri'),
  isUuid: format('uuid'),
  isFqdn: format('hostname'),
  // ISO 8601 also admits date-only values; date-time is the closest standard format.
  isDateString: format('date-time'),
  isIso8601: format('date-time'),
  isRFC3339: format('date-time'),
  // A Date property: validation turns the ISO 8601 string into a Date before this rule runs.
  isDate: format('date-time'),
  isIp: typed('string', (s, [version]) => {
    const v = String(version ?? '');
    if (v === '4' || v === '6') s.format = `ipv${v}`;
  }),

  isArray: typed('array'),
  arrayMinSize: typed('array', (s, [n]) => raise(s, 'minItems', n)),
  arrayMaxSize: typed('array', (s, [n]) => lower(s, 'maxItems', n)),
  arrayNotEmpty: typed('array', (s) => raise(s, 'minItems', 1)),
  // uniqueItems compares deeply; a custom selector only makes the runtime rule stricter.
  arrayUnique: typed('array', (s) => (s.uniqueItems = true)),
};

/** Puts `type` first for readable output. */
export function typeFirst(s: JsonSchema): JsonSchema {
  if (!('type' in s)) return s;
  const { type, ...rest } = s;
  return { type, ...rest };
}
