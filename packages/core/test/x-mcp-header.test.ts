/**
 * Header parameters (2026-07-28 `x-mcp-header`): `@Field({ header })` marks a tool argument that
 * clients mirror into `Mcp-Param-{name}`. The annotation is checked when the tool is defined (from a
 * class or a raw JSON Schema), since clients drop a tool whose annotations break the spec's rules,
 * and each tool entry lists its header parameters once for the HTTP transport.
 */
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsBoolean, IsInt, IsNumber, IsOptional, IsString, ValidateNested } from 'class-validator';
import pino from 'pino';
import { connect } from '@mcpx/testing';
import { DefinitionError, Field, Registry, Tool, createEngine, type JsonSchema } from '../src';
import { classToJsonSchema } from '../src/exports/schema';
import { headerParameters, type JsonRpcResponse, type McpEngine } from '../src/transport';
import { definitionError } from './definition-error-of';

const silent = { logger: pino({ level: 'silent' }) };
const modernMeta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

async function modernTools(engine: McpEngine): Promise<Record<string, any>[]> {
  const response = (await engine.modern.handle({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: modernMeta } }, { send() {} })) as JsonRpcResponse;
  if ('error' in response) throw new Error(response.error.message);
  return (response.result as { tools: Record<string, any>[] }).tools;
}

class Target {
  @Field({ header: 'Region', description: 'Where the query runs' })
  @IsString()
  region!: string;

  @IsOptional()
  @IsString()
  zone?: string;
}

class Query {
  @Field({ header: 'Tenant' })
  @IsString()
  tenant!: string;

  @Field({ header: 'Priority' })
  @IsInt()
  priority!: number;

  @Field({ header: 'Dry-Run' })
  @IsBoolean()
  dryRun!: boolean;

  @ValidateNested()
  @Type(() => Target)
  target!: Target;

  @IsString()
  sql!: string;
}

class SqlServer {
  @Tool({ description: 'Runs SQL' })
  execute_sql(input: Query) {
    return `${input.tenant}/${input.target.region}: ${input.sql}`;
  }
}

describe('x-mcp-header from @Field({ header })', () => {
  it('is emitted on the property, and a class nested as a single value is written out in place', () => {
    const schema = classToJsonSchema(Query) as Record<string, any>;
    expect(schema.properties.tenant).toEqual({ type: 'string', 'x-mcp-header': 'Tenant' });
    expect(schema.properties.priority).toEqual({ type: 'integer', 'x-mcp-header': 'Priority' });
    expect(schema.properties.dryRun).toEqual({ type: 'boolean', 'x-mcp-header': 'Dry-Run' });
    // Statically reachable: properties → target → properties → region, no $ref on the way.
    expect(schema.properties.target).toEqual({
      type: 'object',
      properties: {
        region: { description: 'Where the query runs', type: 'string', 'x-mcp-header': 'Region' },
        zone: { type: 'string' },
      },
      required: ['region'],
      additionalProperties: false,
    });
    expect(schema.$defs).toBeUndefined();
  });

  it('leaves nested classes without header parameters as $ref', () => {
    class Plain {
      @IsString() name!: string;
    }
    class Outer {
      @ValidateNested() @Type(() => Plain) inner!: Plain;
    }
    const schema = classToJsonSchema(Outer) as Record<string, any>;
    expect(schema.properties.inner).toEqual({ $ref: '#/$defs/Plain' });
  });

  it('is listed in tools/list in both eras, and the tool entry lists the header parameters', async () => {
    const server = new SqlServer();
    const client = await connect(server, silent);
    const [legacy] = (await client.listTools()).tools;
    expect((legacy.inputSchema.properties as Record<string, unknown>).tenant).toMatchObject({ 'x-mcp-header': 'Tenant' });
    client.close();

    const engine = createEngine(new SqlServer(), silent);
    const [modern] = await modernTools(engine);
    expect(modern.inputSchema.properties.target.properties.region['x-mcp-header']).toBe('Region');

    expect(engine.registry.tools.get('execute_sql')!.headerParameters).toEqual([
      { header: 'Tenant', path: ['tenant'], type: 'string' },
      { header: 'Priority', path: ['priority'], type: 'integer' },
      { header: 'Dry-Run', path: ['dryRun'], type: 'boolean' },
      { header: 'Region', path: ['target', 'region'], type: 'string' },
    ]);
  });

  it('validates calls as before (the nested class written out in place still checks its rules)', async () => {
    const client = await connect(new SqlServer(), silent);
    const ok = await client.callTool('execute_sql', { tenant: 'acme', priority: 1, dryRun: false, target: { region: 'us-west1' }, sql: 'SELECT 1' });
    expect(ok).toEqual({ content: [{ type: 'text', text: 'acme/us-west1: SELECT 1' }] });
    const bad = await client.callTool('execute_sql', { tenant: 'acme', priority: 1, dryRun: false, target: { region: 3, extra: 1 }, sql: 'x' });
    expect(bad.isError).toBe(true);
    expect((bad.content[0] as { text: string }).text).toMatch(/target\.region/);
    expect((bad.content[0] as { text: string }).text).toMatch(/target\.extra/);
    client.close();
  });

  it('a tool without header parameters lists none', () => {
    class S {
      @Tool() ping(_input: void) {
        return 'pong';
      }
    }
    expect(createEngine(new S(), silent).registry.tools.get('ping')!.headerParameters).toEqual([]);
  });

  it('a recursive input class keeps one annotation, on the root (the recursion is a $ref to "#")', () => {
    class Node {
      @Field({ header: 'Name' }) @IsString() name!: string;
      @IsOptional() @ValidateNested() @Type(() => Node) child?: Node;
    }
    class S {
      @Tool() walk(_input: Node) {
        return 'ok';
      }
    }
    const entry = createEngine(new S(), silent).registry.tools.get('walk')!;
    expect(entry.headerParameters).toEqual([{ header: 'Name', path: ['name'], type: 'string' }]);
    expect((entry.definition.inputSchema.properties as Record<string, any>).child).toEqual({ $ref: '#' });
  });
});

describe('x-mcp-header rules, checked when a tool is defined from a class', () => {
  /** The DefinitionError of a server whose one tool takes `input`. */
  function errorFor(input: new () => object): string {
    class S {
      @Tool({ input }) lookup(_input: unknown) {
        return 'x';
      }
    }
    return definitionError(() => createEngine(new S(), silent)).message;
  }

  it('refuses an empty header name', () => {
    class In {
      @Field({ header: '' }) @IsString() region!: string;
    }
    expect(errorFor(In)).toBe('S.lookup (tool "lookup"): invalid x-mcp-header: input property "region": x-mcp-header must be a non-empty string, got ""');
  });

  it.each([['Re gion'], ['Region:'], ['Régión'], ['a\r\nb'], ['(x)'], ['a/b']])('refuses %j, which is not an HTTP token', (name) => {
    class In {
      @Field({ header: name }) @IsString() region!: string;
    }
    const message = errorFor(In);
    expect(message).toContain(`S.lookup (tool "lookup"): invalid x-mcp-header: input property "region": x-mcp-header ${JSON.stringify(name)} is not an HTTP header name token`);
    expect(message).toContain('RFC 9110');
  });

  it("accepts every tchar (RFC 9110): ! # $ % & ' * + - . ^ _ ` | ~ letters digits", () => {
    class In {
      @Field({ header: "!#$%&'*+-.^_`|~aZ09" }) @IsString() region!: string;
    }
    class S {
      @Tool({ input: In }) lookup(_input: unknown) {
        return 'x';
      }
    }
    expect(createEngine(new S(), silent).registry.tools.get('lookup')!.headerParameters[0].header).toBe("!#$%&'*+-.^_`|~aZ09");
  });

  it('refuses header names that are equal ignoring case, also across a nested class', () => {
    class In {
      @Field({ header: 'Region' }) @IsString() region!: string;
      @ValidateNested() @Type(() => Target) target!: Target;
    }
    expect(errorFor(In)).toBe(
      'S.lookup (tool "lookup"): invalid x-mcp-header: input property "target.region": x-mcp-header "Region" is also declared by input property "region"; ' +
        'header names must be unique within the input schema, ignoring case (both would be sent as Mcp-Param-Region)',
    );
    class Shouting {
      @Field({ header: 'region' }) @IsString() a!: string;
      @Field({ header: 'REGION' }) @IsString() b!: string;
    }
    expect(errorFor(Shouting)).toContain('input property "b": x-mcp-header "REGION" is also declared by input property "a"');
  });

  it('refuses a number property and says to use an integer', () => {
    class In {
      @Field({ header: 'Limit' }) @IsNumber() limit!: number;
    }
    expect(errorFor(In)).toBe(
      'S.lookup (tool "lookup"): invalid x-mcp-header: input property "limit": x-mcp-header "Limit" needs a property of type "string", "integer" or "boolean", ' +
        'declared in the property\'s own schema, got type "number" (numbers are not allowed: use an integer)',
    );
  });

  it('refuses an array or object property', () => {
    class Tags {
      @Field({ header: 'Tags' }) @IsString({ each: true }) tags!: string[];
    }
    expect(errorFor(Tags)).toContain(
      'input property "tags": x-mcp-header "Tags" needs a property of type "string", "integer" or "boolean", declared in the property\'s own schema, got type "array"',
    );
    class Whole {
      @Field({ header: 'Target' }) @ValidateNested() @Type(() => Target) target!: Target;
    }
    expect(errorFor(Whole)).toContain('input property "target": x-mcp-header "Target" needs a property of type');
  });

  it('refuses an integer whose declared bounds leave the safe integer range', () => {
    class In {
      @Field({ header: 'Big', schema: { maximum: 2 ** 60 } }) @IsInt() big!: number;
    }
    expect(errorFor(In)).toContain('input property "big": x-mcp-header "Big" is on an integer whose maximum 1152921504606847000 lies outside the safe integer range');
  });

  it('refuses a header parameter in a class nested in an array (not reachable through "properties" alone)', () => {
    class In {
      @ValidateNested({ each: true }) @Type(() => Target) targets!: Target[];
    }
    expect(errorFor(In)).toBe(
      'S.lookup (tool "lookup"): invalid x-mcp-header: the schema at #/$defs/Target/properties/region: x-mcp-header "Region" is only allowed on a property ' +
        'reached from the root through "properties" alone (not through "$defs"), so clients would drop the tool ' +
        '(a class with @Field({ header }) properties must be nested as a single value, with @ValidateNested() and @Type(() => ItsClass): ' +
        'not in an array, a Set or a Map, and not inside itself)',
    );
  });

  it('refuses a class with a header parameter that is also nested inside itself (its copy in $defs is not reachable)', () => {
    class Leaf {
      @Field({ header: 'Leaf' }) @IsString() name!: string;
      // typed loosely: Branch is declared below, and decorator metadata would read it too early
      @IsOptional() @ValidateNested() @Type(() => Branch) branch?: object;
    }
    class Branch {
      @ValidateNested() @Type(() => Leaf) leaf!: Leaf;
    }
    class In {
      @ValidateNested() @Type(() => Leaf) leaf!: Leaf;
    }
    const message = errorFor(In);
    expect(message).toContain('the schema at #/$defs/Leaf/properties/name: x-mcp-header "Leaf" is only allowed on a property reached from the root through "properties" alone');
  });

  it('is checked for tools added at run time too', () => {
    class In {
      @Field({ header: 'Bad Name' }) @IsString() region!: string;
    }
    const registry = new Registry();
    expect(() => registry.addTool({ name: 'late', input: In, handler: () => 'x' })).toThrow(DefinitionError);
    expect(() => registry.addTool({ name: 'late', input: In, handler: () => 'x' })).toThrow('tool "late": invalid x-mcp-header: input property "region": x-mcp-header "Bad Name"');
  });
});

describe('x-mcp-header in a raw inputSchema', () => {
  function entryFor(inputSchema: JsonSchema) {
    return new Registry().addTool({ name: 'raw', inputSchema, handler: () => 'x' });
  }
  function errorFor(inputSchema: JsonSchema): string {
    return definitionError(() => entryFor(inputSchema)).message;
  }

  it('accepts the spec example and lists its header parameter', () => {
    const entry = entryFor({
      type: 'object',
      properties: {
        region: { type: 'string', description: 'The region to execute the query in', 'x-mcp-header': 'Region' },
        query: { type: 'string', description: 'The SQL query to execute' },
      },
      required: ['region', 'query'],
    });
    expect(entry.headerParameters).toEqual([{ header: 'Region', path: ['region'], type: 'string' }]);
    expect((entry.definition.inputSchema.properties as Record<string, unknown>).region).toMatchObject({ 'x-mcp-header': 'Region' });
  });

  it('follows nested "properties" at any depth', () => {
    const entry = entryFor({
      type: 'object',
      properties: { a: { type: 'object', properties: { b: { type: 'object', properties: { c: { type: 'boolean', 'x-mcp-header': 'Deep' } } } } } },
    });
    expect(entry.headerParameters).toEqual([{ header: 'Deep', path: ['a', 'b', 'c'], type: 'boolean' }]);
  });

  it.each([
    ['items', { type: 'object', properties: { list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'X' } } } }, '#/properties/list/items', '"items"'],
    ['anyOf', { type: 'object', properties: { v: { anyOf: [{ type: 'string', 'x-mcp-header': 'X' }, { type: 'integer' }] } } }, '#/properties/v/anyOf/0', '"anyOf"'],
    ['oneOf', { type: 'object', oneOf: [{ properties: { v: { type: 'string', 'x-mcp-header': 'X' } } }] }, '#/oneOf/0/properties/v', '"oneOf"'],
    ['allOf', { type: 'object', allOf: [{ properties: { v: { type: 'string', 'x-mcp-header': 'X' } } }] }, '#/allOf/0/properties/v', '"allOf"'],
    ['if/then', { type: 'object', if: { properties: { v: { const: 1 } } }, then: { properties: { w: { type: 'string', 'x-mcp-header': 'X' } } } }, '#/then/properties/w', '"then"'],
    ['additionalProperties', { type: 'object', additionalProperties: { type: 'string', 'x-mcp-header': 'X' } }, '#/additionalProperties', '"additionalProperties"'],
    ['$defs', { type: 'object', properties: { v: { $ref: '#/$defs/V' } }, $defs: { V: { type: 'string', 'x-mcp-header': 'X' } } }, '#/$defs/V', '"$defs"'],
  ])('refuses an annotation under %s', (_what, schema, location, keyword) => {
    expect(errorFor(schema)).toBe(
      `tool "raw": invalid x-mcp-header: the schema at ${location}: x-mcp-header "X" is only allowed on a property reached from the root through ` +
        `"properties" alone (not through ${keyword}), so clients would drop the tool`,
    );
  });

  it('refuses an annotation on the root schema', () => {
    expect(errorFor({ type: 'object', 'x-mcp-header': 'Root' })).toContain(
      'x-mcp-header "Root" is only allowed on a property reached from the root through "properties" alone (not on the root schema itself)',
    );
  });

  it('refuses a property whose type comes from a $ref beside the annotation (the type must be its own)', () => {
    expect(errorFor({ type: 'object', properties: { v: { $ref: '#/$defs/V', 'x-mcp-header': 'V' } }, $defs: { V: { type: 'string' } } })).toContain(
      'input property "v": x-mcp-header "V" needs a property of type "string", "integer" or "boolean", declared in the property\'s own schema, got no type',
    );
  });

  it('refuses a type list, even of allowed types', () => {
    expect(errorFor({ type: 'object', properties: { v: { type: ['string', 'null'], 'x-mcp-header': 'V' } } })).toContain('got type ["string","null"]');
  });

  it('refuses a header name that is not a string', () => {
    expect(errorFor({ type: 'object', properties: { v: { type: 'string', 'x-mcp-header': 5 } } })).toContain('input property "v": x-mcp-header must be a non-empty string, got 5');
  });

  it('lists every broken rule at once', () => {
    const message = errorFor({
      type: 'object',
      properties: { a: { type: 'number', 'x-mcp-header': 'A' }, b: { type: 'string', 'x-mcp-header': 'a' }, c: { type: 'string', 'x-mcp-header': 'C C' } },
    });
    expect(message).toContain('input property "a": x-mcp-header "A" needs a property of type');
    expect(message).toContain('input property "c": x-mcp-header "C C" is not an HTTP header name token');
  });

  it('does not take a property named x-mcp-header, or the word inside a default value, for an annotation', () => {
    const entry = entryFor({
      type: 'object',
      properties: { 'x-mcp-header': { type: 'string' }, opts: { type: 'object', default: { 'x-mcp-header': 'not one' } } },
    });
    expect(entry.headerParameters).toEqual([]);
  });
});

describe('headerParameters() from @mcpx/core/transport', () => {
  it('lists the header parameters of an input schema in schema order', () => {
    expect(
      headerParameters({
        type: 'object',
        properties: {
          region: { type: 'string', 'x-mcp-header': 'Region' },
          nested: { type: 'object', properties: { count: { type: 'integer', 'x-mcp-header': 'Count' } } },
          plain: { type: 'string' },
        },
      }),
    ).toEqual([
      { header: 'Region', path: ['region'], type: 'string' },
      { header: 'Count', path: ['nested', 'count'], type: 'integer' },
    ]);
  });

  it('throws a TypeError naming what is wrong for an invalid schema', () => {
    expect(() => headerParameters({ type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } })).toThrow(TypeError);
    expect(() => headerParameters({ type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } })).toThrow(/input property "n".*"number"/);
  });
});
