import { compileJsonSchema, type JsonSchema } from '../../src/schema';

const schema: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 1 },
    limit: { type: 'integer', minimum: 1 },
    owner: { $ref: '#/$defs/User' },
    tags: { type: 'array', items: { type: 'string' } },
    email: { type: 'string', format: 'email' },
  },
  required: ['title', 'owner'],
  additionalProperties: false,
  $defs: {
    User: {
      type: 'object',
      properties: { name: { type: 'string' }, manager: { $ref: '#/$defs/User' } },
      required: ['name'],
      additionalProperties: false,
    },
  },
};

describe('compileJsonSchema', () => {
  const validate = compileJsonSchema(schema);

  it('returns null for valid values (with $defs, $ref and recursion)', () => {
    expect(validate({ title: 'x', owner: { name: 'a', manager: { name: 'b' } }, tags: ['t'] })).toBeNull();
  });

  it('reports every problem with class-validation style paths', () => {
    const issues = validate({ limit: 0, owner: { manager: { name: 1, age: 3 } }, tags: ['ok', 2], extra: true });
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'title', message: 'title is required' },
        { path: 'extra', message: 'property extra should not exist' },
        { path: 'limit', message: 'limit must be >= 1' },
        { path: 'owner.name', message: 'name is required' },
        { path: 'owner.manager.name', message: 'owner.manager.name must be string' },
        { path: 'owner.manager.age', message: 'property age should not exist' },
        { path: 'tags[1]', message: 'tags[1] must be string' },
      ]),
    );
    expect(issues).toHaveLength(7);
  });

  it('reports a wrong root type at path ""', () => {
    expect(validate([1])).toEqual([{ path: '', message: 'value must be object' }]);
  });

  it('leaves `format` unchecked and does not warn about it', () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const v = compileJsonSchema({ type: 'string', format: 'email' });
    expect(v('not an email')).toBeNull();
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
  });

  it('caches validators per schema object', () => {
    expect(compileJsonSchema(schema)).toBe(validate);
    expect(compileJsonSchema({ ...schema })).not.toBe(validate);
  });

  it('accepts schemas that declare draft-07 and reads them as 2020-12', () => {
    const v = compileJsonSchema({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { n: { $ref: '#/definitions/Num' } },
      definitions: { Num: { type: 'number' } },
    });
    expect(v({ n: 1 })).toBeNull();
    expect(v({ n: 'x' })).toEqual([{ path: 'n', message: 'n must be number' }]);
  });

  it('compiles different schemas sharing an $id', () => {
    const a = compileJsonSchema({ $id: 'https://example.com/same.json', type: 'string' });
    const b = compileJsonSchema({ $id: 'https://example.com/same.json', type: 'number' });
    expect(a('x')).toBeNull();
    expect(b(1)).toBeNull();
    expect(b('x')).toEqual([{ path: '', message: 'value must be number' }]);
  });

  it('decodes JSON pointer escapes and keeps numeric object keys as properties', () => {
    const v = compileJsonSchema({ type: 'object', additionalProperties: { type: 'integer' } });
    expect(v({ 'a/b': 'x', '0': 'y' })).toEqual(
      expect.arrayContaining([
        { path: 'a/b', message: 'a/b must be integer' },
        { path: '0', message: '0 must be integer' },
      ]),
    );
  });

  it('throws on an invalid schema', () => {
    expect(() => compileJsonSchema({ type: 'nonsense' })).toThrow();
  });
});
