/**
 * RFC 6570 URI Templates (levels 1–4) for MCP resource templates.
 *
 * - `expand` follows the RFC expansion algorithm (section 3.2).
 * - `match` is the (non-RFC) inverse used by resources/read: the template is
 *   compiled once, at parse time, to an anchored RegExp so matching a URI costs
 *   a single `exec` plus percent-decoding of the captured values.
 */
import { McpxError } from './errors';

/** Thrown by {@link UriTemplate.parse}; `offset` is the 0-based index into the template. */
export class UriTemplateError extends McpxError {
  constructor(
    readonly reason: string,
    readonly offset: number,
    readonly template: string,
  ) {
    super('MCPX_URI_TEMPLATE', `${reason} at offset ${offset} in URI template ${JSON.stringify(template)}`);
  }
}

export type UriTemplateValue = string | number | boolean | string[] | undefined;
export type UriTemplateVariables = Record<string, UriTemplateValue>;
export type UriTemplateMatch = Record<string, string | string[]>;

/** Expansion behaviour of each operator (RFC 6570, appendix A table). */
interface Operator {
  readonly char: string;
  readonly first: string;
  readonly sep: string;
  readonly named: boolean;
  readonly ifEmpty: string;
  readonly allowReserved: boolean;
}

const op = (char: string, first: string, sep: string, named: boolean, ifEmpty: string, allowReserved: boolean): Operator => ({
  char,
  first,
  sep,
  named,
  ifEmpty,
  allowReserved,
});

const OPERATORS: ReadonlyMap<string, Operator> = new Map([
  ['', op('', '', ',', false, '', false)],
  ['+', op('+', '', ',', false, '', true)],
  ['#', op('#', '#', ',', false, '', true)],
  ['.', op('.', '.', '.', false, '', false)],
  ['/', op('/', '/', '/', false, '', false)],
  [';', op(';', ';', ';', true, '', false)],
  ['?', op('?', '?', '&', true, '=', false)],
  ['&', op('&', '&', '&', true, '=', false)],
]);

/** Operators the RFC reserves for future extensions (op-reserved). */
const RESERVED_OPERATORS = '=,!@|';

interface VarSpec {
  readonly name: string;
  readonly prefix?: number;
  readonly explode: boolean;
}

interface Expression {
  readonly op: Operator;
  readonly vars: readonly VarSpec[];
}

type Part = string | Expression;

/** How to turn one RegExp capture group back into variable values. */
type Capture =
  | { readonly kind: 'var'; readonly group: number; readonly spec: VarSpec; readonly op: Operator }
  | { readonly kind: 'query'; readonly group: number; readonly vars: ReadonlyMap<string, VarSpec> };

export class UriTemplate {
  /** Variable names in order of first appearance, without duplicates. */
  readonly variableNames: readonly string[];
  private readonly parts: readonly Part[];
  private readonly regex: RegExp;
  private readonly captures: readonly Capture[];

  private constructor(readonly template: string) {
    this.parts = parseTemplate(template);
    const names = new Set<string>();
    for (const part of this.parts) {
      if (typeof part !== 'string') for (const v of part.vars) names.add(v.name);
    }
    this.variableNames = Object.freeze([...names]);
    ({ regex: this.regex, captures: this.captures } = compile(this.parts));
  }

  /** Parses (and compiles for matching) a template; throws {@link UriTemplateError} when malformed. */
  static parse(template: string): UriTemplate {
    return new UriTemplate(template);
  }

  expand(variables: UriTemplateVariables): string {
    let out = '';
    for (const part of this.parts) out += typeof part === 'string' ? part : expandExpression(part, variables);
    return out;
  }

  /**
   * Extracts the variables from a concrete URI, or returns null when it does not match.
   * Exploded variables yield string[]; everything else a string. Query variables
   * (`{?..}` / `{&..}`) are optional and order-insensitive: absent ones are left out.
   */
  match(uri: string): UriTemplateMatch | null {
    const m = this.regex.exec(uri);
    if (!m) return null;
    const result: UriTemplateMatch = {};
    for (const cap of this.captures) {
      const raw = m[cap.group];
      if (cap.kind === 'var') {
        const value = decodeCapture(raw, cap.spec, cap.op);
        if (value === null || !assign(result, cap.spec.name, value)) return null;
      } else if (raw !== undefined && !matchQuery(raw, cap.vars, result)) {
        return null;
      }
    }
    return result;
  }

  toString(): string {
    return this.template;
  }
}

// ---------------------------------------------------------------- parsing

function parseTemplate(t: string): Part[] {
  const parts: Part[] = [];
  let literalStart = 0;
  for (let i = 0; i < t.length; i++) {
    if (t[i] === '}') throw new UriTemplateError("stray '}'", i, t);
    if (t[i] !== '{') continue;
    const end = t.indexOf('}', i + 1);
    const nextOpen = t.indexOf('{', i + 1);
    // Expressions do not nest, so another '{' before the '}' means this one never closed.
    if (end === -1 || (nextOpen !== -1 && nextOpen < end)) throw new UriTemplateError("unclosed '{'", i, t);
    if (i > literalStart) parts.push(t.slice(literalStart, i));
    parts.push(parseExpression(t, i + 1, end));
    i = end;
    literalStart = end + 1;
  }
  if (literalStart < t.length) parts.push(t.slice(literalStart));
  return parts;
}

/** Parses the body t[start, end) of one `{...}` expression. */
function parseExpression(t: string, start: number, end: number): Expression {
  if (start === end) throw new UriTemplateError('empty expression', start - 1, t);
  const c = t[start];
  let pos = start;
  let operator = OPERATORS.get('')!;
  if (OPERATORS.has(c)) {
    operator = OPERATORS.get(c)!;
    pos++;
  } else if (RESERVED_OPERATORS.includes(c)) {
    throw new UriTemplateError(`reserved operator '${c}'`, start, t);
  } else if (!/[A-Za-z0-9_%]/.test(c)) {
    throw new UriTemplateError(`unknown operator '${c}'`, start, t);
  }
  const vars: VarSpec[] = [];
  for (;;) {
    const comma = t.indexOf(',', pos);
    const specEnd = comma === -1 || comma > end ? end : comma;
    vars.push(parseVarSpec(t, pos, specEnd));
    if (specEnd === end) return { op: operator, vars };
    pos = specEnd + 1;
  }
}

/** varspec = varname [ ":" max-length / "*" ]; varname = varchar *( ["."] varchar ). */
function parseVarSpec(t: string, s: number, e: number): VarSpec {
  let i = s;
  while (i < e) {
    const c = t[i];
    if (/[A-Za-z0-9_]/.test(c)) {
      i++;
    } else if (c === '%') {
      if (i + 3 > e || !/^[0-9A-Fa-f]{2}$/.test(t.slice(i + 1, i + 3))) {
        throw new UriTemplateError('invalid percent-encoding in variable name', i, t);
      }
      i += 3;
    } else if (c === '.' && i > s && t[i - 1] !== '.') {
      i++;
    } else {
      break;
    }
  }
  if (i === s) {
    throw new UriTemplateError(s === e ? 'missing variable name' : `invalid character '${t[s]}' in variable name`, s, t);
  }
  if (i < e && t[i] !== ':' && t[i] !== '*') throw new UriTemplateError(`invalid character '${t[i]}' in variable name`, i, t);
  if (t[i - 1] === '.') throw new UriTemplateError("variable name cannot end with '.'", i - 1, t);
  const name = t.slice(s, i);
  if (i === e) return { name, explode: false };

  if (t[i] === '*') {
    if (i + 1 === e) return { name, explode: true };
    if (t[i + 1] === ':') throw new UriTemplateError('prefix and explode modifiers cannot be combined', i, t);
    throw new UriTemplateError(`invalid character '${t[i + 1]}' after explode modifier`, i + 1, t);
  }
  // Otherwise t[i] is ':' followed by max-length.
  const digits = t.slice(i + 1, e);
  if (digits.endsWith('*')) throw new UriTemplateError('prefix and explode modifiers cannot be combined', i, t);
  if (!/^[1-9][0-9]{0,3}$/.test(digits)) {
    throw new UriTemplateError(`invalid prefix length '${digits}' (must be 1-9999)`, i + 1, t);
  }
  return { name, prefix: Number(digits), explode: false };
}

// ---------------------------------------------------------------- expansion

const UNRESERVED_ONLY = /^[A-Za-z0-9\-._~]*$/;
const UNRESERVED_CHAR = /[A-Za-z0-9\-._~]/;
const RESERVED_CHARS = ":/?#[]@!$&'()*+,;=";
const utf8 = new TextEncoder();

/** Percent-encodes everything outside unreserved (plus reserved and existing %XX when allowed). */
function encode(value: string, allowReserved: boolean): string {
  if (UNRESERVED_ONLY.test(value)) return value; // fast path for the common case
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (UNRESERVED_CHAR.test(c) || (allowReserved && (RESERVED_CHARS.includes(c) || (c === '%' && /^[0-9A-Fa-f]{2}$/.test(value.slice(i + 1, i + 3)))))) {
      out += c;
      continue;
    }
    // Encode the whole code point (surrogate pairs) as UTF-8 bytes.
    const ch = String.fromCodePoint(value.codePointAt(i)!);
    i += ch.length - 1;
    for (const byte of utf8.encode(ch)) out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

function expandExpression(expr: Expression, variables: UriTemplateVariables): string {
  const { op: o } = expr;
  const named = (name: string, encoded: string): string => (encoded === '' ? name + o.ifEmpty : `${name}=${encoded}`);
  const pieces: string[] = [];
  for (const spec of expr.vars) {
    // Own properties only, so names like "constructor" are not read off Object.prototype.
    const value: unknown = Object.hasOwn(variables, spec.name) ? variables[spec.name] : undefined;
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      if (value.length === 0) continue; // an empty list counts as undefined
      const items = value.map((item) => encode(String(item), o.allowReserved));
      if (spec.explode) pieces.push(items.map((item) => (o.named ? named(spec.name, item) : item)).join(o.sep));
      else pieces.push(o.named ? named(spec.name, items.join(',')) : items.join(','));
    } else {
      let s = String(value);
      // The prefix counts characters (code points), not UTF-16 units or bytes.
      if (spec.prefix !== undefined) s = Array.from(s).slice(0, spec.prefix).join('');
      const encoded = encode(s, o.allowReserved);
      pieces.push(o.named ? named(spec.name, encoded) : encoded);
    }
  }
  return pieces.length === 0 ? '' : o.first + pieces.join(o.sep);
}

// ---------------------------------------------------------------- matching

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const isQuery = (p: Part): boolean => typeof p !== 'string' && (p.op.char === '?' || p.op.char === '&');

function compile(parts: readonly Part[]): { regex: RegExp; captures: Capture[] } {
  const hasQuery = parts.some(isQuery);
  const hasFragment = parts.some((p) => typeof p !== 'string' && p.op.char === '#');
  const captures: Capture[] = [];
  let src = '^';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (typeof part === 'string') {
      src += escapeRegex(part);
      continue;
    }
    if (isQuery(part)) {
      // Adjacent query expressions share one optional capture of the raw query
      // string, which is then parsed by name so parameter order does not matter.
      const vars = new Map<string, VarSpec>();
      for (; i < parts.length && isQuery(parts[i]); i++) for (const v of (parts[i] as Expression).vars) vars.set(v.name, v);
      i--;
      src += `(${escapeRegex(part.op.first)}[^#]*)?`;
      captures.push({ kind: 'query', group: captures.length + 1, vars });
      continue;
    }
    const o = part.op;
    const sep = escapeRegex(o.sep);
    src += escapeRegex(o.first);
    part.vars.forEach((spec, k) => {
      if (k > 0) src += sep;
      // The separator must be excluded from values whenever we need to split on it.
      const value = `${valueClass(o, part.vars.length > 1 || spec.explode, hasQuery, hasFragment)}+`;
      const name = escapeRegex(spec.name);
      if (o.named) {
        // ';' style: "name", "name=value"; exploded lists repeat "name=value".
        src += spec.explode ? `(${name}(?:=${value})?(?:${sep}${name}(?:=${value})?)*)` : `${name}(?:=(${value}))?`;
      } else {
        src += spec.explode ? `(${value}(?:${sep}${value})*)` : `(${value})`;
      }
      captures.push({ kind: 'var', group: captures.length + 1, spec, op: o });
    });
  }
  return { regex: new RegExp(src + '$'), captures };
}

/** Character class for one value of a non-query expression. */
function valueClass(o: Operator, splitOnSep: boolean, hasQuery: boolean, hasFragment: boolean): string {
  let excluded: string;
  if (o.char === '#') excluded = '';
  // '+' may contain reserved chars, but must leave the template's own query/fragment alone.
  else if (o.char === '+') excluded = (hasQuery ? '?' : '') + (hasFragment ? '#' : '');
  else excluded = '/?#&' + (o.char === ';' ? ';' : ''); // one segment
  if (splitOnSep && !excluded.includes(o.sep)) excluded += o.sep;
  return excluded === '' ? '[\\s\\S]' : `[^${excluded}]`;
}

/** Percent-decodes, returning null for malformed input instead of throwing. */
function decode(s: string): string | null {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

function decodeCapture(raw: string | undefined, spec: VarSpec, o: Operator): string | string[] | null {
  // A named non-exploded value without "=" (e.g. ";empty") leaves its group undefined.
  if (!spec.explode) return decode(raw ?? '');
  const items: string[] = [];
  for (const item of (raw ?? '').split(o.sep)) {
    const decoded = decode(o.named ? item.slice(spec.name.length + 1) : item);
    if (decoded === null) return null;
    items.push(decoded);
  }
  return items;
}

/** Fills query variables from a raw "?a=1&b=2" string; unknown parameters are ignored. */
function matchQuery(raw: string, vars: ReadonlyMap<string, VarSpec>, result: UriTemplateMatch): boolean {
  const found = new Map<string, string | string[]>();
  for (const param of raw.slice(1).split('&')) {
    if (param === '') continue;
    const eq = param.indexOf('=');
    const spec = vars.get(eq === -1 ? param : param.slice(0, eq));
    if (!spec) continue;
    const value = decode(eq === -1 ? '' : param.slice(eq + 1));
    if (value === null) return false;
    const prev = found.get(spec.name);
    if (spec.explode) found.set(spec.name, [...((prev as string[] | undefined) ?? []), value]);
    else if (prev === undefined) found.set(spec.name, value); // a repeated plain parameter keeps its first value
  }
  for (const [name, value] of found) if (!assign(result, name, value)) return false;
  return true;
}

/** Sets result[name]; a variable used twice in the template must capture the same value both times. */
function assign(result: UriTemplateMatch, name: string, value: string | string[]): boolean {
  if (Object.hasOwn(result, name)) return JSON.stringify(result[name]) === JSON.stringify(value);
  // defineProperty so a variable called "__proto__" becomes an own property.
  Object.defineProperty(result, name, { value, enumerable: true, writable: true, configurable: true });
  return true;
}
