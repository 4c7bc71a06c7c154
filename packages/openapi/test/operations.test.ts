import { operationsOf, toJsonSchema, toolNameOf, openApiTools } from '@mcpx/openapi';

describe('toJsonSchema', () => {
  it("reads 3.0's nullable and boolean exclusive bounds as JSON Schema, and drops OpenAPI-only keywords", () => {
    expect(toJsonSchema({ type: 'string', nullable: true, example: 'x', xml: { name: 'n' }, 'x-internal': 1 }, 'request')).toEqual({ type: ['string', 'null'] });
    expect(toJsonSchema({ type: 'integer', minimum: 1, exclusiveMinimum: true, maximum: 9, exclusiveMaximum: false }, 'request')).toEqual({
      type: 'integer',
      exclusiveMinimum: 1,
      maximum: 9,
    });
    expect(toJsonSchema({ type: 'number', exclusiveMinimum: 0 }, 'request')).toEqual({ type: 'number', exclusiveMinimum: 0 });
    expect(toJsonSchema({ oneOf: [{ type: 'string' }, { type: 'integer' }], nullable: true }, 'request')).toEqual({
      anyOf: [{ oneOf: [{ type: 'string' }, { type: 'integer' }] }, { type: 'null' }],
    });
  });

  it('leaves readOnly properties out of what is sent and writeOnly ones out of what is received', () => {
    const pet = {
      type: 'object',
      properties: { id: { type: 'integer', readOnly: true }, password: { type: 'string', writeOnly: true }, name: { type: 'string' } },
      required: ['id', 'password', 'name'],
    };
    expect(toJsonSchema(pet, 'request')).toEqual({ type: 'object', properties: { password: { type: 'string', writeOnly: true }, name: { type: 'string' } }, required: ['password', 'name'] });
    expect(toJsonSchema(pet, 'response')).toEqual({ type: 'object', properties: { id: { type: 'integer', readOnly: true }, name: { type: 'string' } }, required: ['id', 'name'] });
  });

  it('cuts a cycle and a reference left unresolved to "anything"', () => {
    const node: Record<string, unknown> = { type: 'object', properties: {} };
    (node.properties as Record<string, unknown>).next = node;
    expect(toJsonSchema(node, 'response')).toEqual({ type: 'object', properties: { next: {} } });
    expect(toJsonSchema({ type: 'array', items: { $ref: '#/components/schemas/Node' } }, 'response')).toEqual({ type: 'array', items: {} });
  });
});

const doc = (paths: Record<string, unknown>) => ({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths });

describe('operationsOf', () => {
  const paths = {
    '/items/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      get: { operationId: 'getItem', tags: ['items'], parameters: [{ name: 'id', in: 'query', schema: { type: 'string' } }] },
      delete: { tags: ['admin'] },
    },
    '/reports/{year}/summary': { get: { summary: 'Yearly summary', tags: ['reports'] } },
  };

  it('names tools by operationId, else by method and path, within the naming rules', () => {
    expect(operationsOf(doc(paths)).map((o) => o.toolName)).toEqual(['getItem', 'delete_items_id', 'get_reports_year_summary']);
    expect(toolNameOf('get', '/a b/{c}', 'list items (v2)!')).toBe('list_items_v2');
  });

  it('keeps parameters of two locations with one name apart, path-level ones included', () => {
    const [get] = operationsOf(doc(paths));
    expect(get!.parameters.map((p) => [p.argument, p.in])).toEqual([
      ['path_id', 'path'],
      ['query_id', 'query'],
    ]);
    expect(get!.inputSchema).toEqual({ type: 'object', properties: { path_id: { type: 'string' }, query_id: { type: 'string' } }, required: ['path_id'] });
  });

  it('includes and excludes by tag or operation, exclusion first', () => {
    const names = (filter: Parameters<typeof operationsOf>[1]) => operationsOf(doc(paths), filter).map((o) => o.toolName);
    expect(names({ excludeTags: ['admin'] })).toEqual(['getItem', 'get_reports_year_summary']);
    expect(names({ includeTags: ['items', 'reports'], excludeOperations: ['getItem'] })).toEqual(['get_reports_year_summary']);
    expect(names({ includeOperations: ['delete_items_id'] })).toEqual(['delete_items_id']);
  });

  it('refuses two operations that would be one tool, naming both', () => {
    expect(() => operationsOf(doc({ '/a': { get: { operationId: 'same' } }, '/b': { get: { operationId: 'same' } } }))).toThrow(/GET \/b and GET \/a would both be the tool "same"/);
  });
});

describe('openApiTools', () => {
  it('refuses a base URL that is not http(s)', () => {
    expect(() => openApiTools(doc({}), { baseUrl: 'file:///etc' })).toThrow(/must be http\(s\)/);
    expect(() => openApiTools(doc({}), { baseUrl: 'not a url' })).toThrow(/is not a URL/);
  });

  it('calls under the base URL with its path, and answers a redirect as it is instead of following it', async () => {
    const calls: string[] = [];
    const fake: typeof fetch = async (url) => {
      calls.push(String(url));
      return new Response(null, { status: 302, headers: { location: 'https://elsewhere.example/' } });
    };
    const [tool] = openApiTools(doc({ '/items/{id}': { get: { operationId: 'getItem', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }] } } }), {
      baseUrl: 'https://api.example/v2/',
      fetch: fake,
    });
    const result = (await tool!.handler({ id: 'a/b' }, { signal: undefined } as never)) as { isError: boolean; content: { text: string }[] };
    expect(calls).toEqual(['https://api.example/v2/items/a%2Fb']);
    expect(result).toMatchObject({ isError: true, content: [{ text: 'HTTP 302 (a redirect to https://elsewhere.example/, not followed: calls stay under the base URL)' }] });
  });
});
