import { decodeHeaderValue, headerMatches, requestedParamHeaders, valueAt } from '../src/modern-headers';

/** The pieces the 2026-07-28 header checks are made of, on their own. */

describe('decodeHeaderValue', () => {
  it.each([
    ['a plain value', 'us-west1', 'us-west1'],
    ['a Base64 sentinel', '=?base64?SGVsbG8sIOS4lueVjA==?=', 'Hello, 世界'],
    ['a sentinel of spaces around a word', '=?base64?IHBhZGRlZCA=?=', ' padded '],
    ['a sentinel of the sentinel pattern itself', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=', '=?base64?literal?='],
    ['an empty sentinel', '=?base64??=', ''],
    ['a value with only the prefix (literal)', '=?base64?SGVsbG8=', '=?base64?SGVsbG8='],
    ['a value in upper case markers (literal: markers are case-sensitive)', '=?BASE64?SGVsbG8=?=', '=?BASE64?SGVsbG8=?='],
  ])('takes %s', (_what, raw, decoded) => {
    expect(decodeHeaderValue(raw)).toBe(decoded);
  });

  it.each([
    ['unpadded Base64', '=?base64?SGVsbG8?='],
    ['characters outside Base64', '=?base64?SGVs!!!bG8=?='],
    ['non-canonical padding bits', '=?base64?SGVsbG9=?='],
    ['bytes that are not UTF-8', '=?base64?//4=?='],
    ['a control character', 'a\u0001b'],
    ['a character beyond ASCII', 'café'],
  ])('refuses %s', (_what, raw) => {
    expect(decodeHeaderValue(raw)).toBeUndefined();
  });
});

describe('valueAt and headerMatches', () => {
  it('reads the value at a path, undefined where a step is missing', () => {
    expect(valueAt({ a: { b: 3 } }, ['a', 'b'])).toBe(3);
    expect(valueAt({ a: 'x' }, ['a', 'b'])).toBeUndefined();
    expect(valueAt(undefined, ['a'])).toBeUndefined();
  });

  it.each([
    ['42', 42, true],
    ['42.0', 42, true],
    ['-7', -7, true],
    ['4.2e1', 42, true],
    ['43', 42, false],
    ['', 0, false],
    ['0x2a', 42, false],
    ['true', true, true],
    ['false', false, true],
    ['True', true, false],
    ['1', true, false],
    ['eu', 'eu', true],
    ['EU', 'eu', false],
  ])('%j against %j: %s', (decoded, value, matches) => {
    expect(headerMatches(decoded, value)).toBe(matches);
  });
});

describe('requestedParamHeaders', () => {
  it('keeps the Mcp-Param-* names a preflight asks for, as asked', () => {
    expect(requestedParamHeaders('content-type, Mcp-Param-Region,mcp-param-count , mcp-method, mcp-param-')).toEqual(['Mcp-Param-Region', 'mcp-param-count']);
    expect(requestedParamHeaders(undefined)).toEqual([]);
  });
});
