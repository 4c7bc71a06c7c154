import 'reflect-metadata';
import { IsInt, IsOptional, IsString, Min } from 'class-validator';
import pino from 'pino';
import { connect } from '@mcpx/testing';
import { Complete, DefinitionError, Field, Prompt, Resource, ResourceTemplate, Server, Tool, createEngine, type RequestContext } from '../src';
import { buildRegistry, scanObject } from '../src/transport';

const quiet = { logger: pino({ level: 'silent' }) };

/** Runs `fn`, expects a DefinitionError and returns its message. */
function definitionError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DefinitionError);
    return (err as Error).message;
  }
  throw new Error('expected a DefinitionError');
}

class EchoInput {
  @IsString() text!: string;
}

interface ShapeOnly {
  text: string;
}

describe('scanner: definition errors name the class and the method', () => {
  it('rejects two tools with the same name in one class', () => {
    class Dupes {
      @Tool({ name: 'echo' })
      first(_input: void) {
        return 'a';
      }
      @Tool({ name: 'echo' })
      second(_input: void) {
        return 'b';
      }
    }
    const message = definitionError(() => scanObject(new Dupes()));
    expect(message).toContain('Dupes.second');
    expect(message).toContain('Dupes.first');
    expect(message).toContain('"echo"');
  });

  it('rejects a method name that collides with another tool explicitly named like it', () => {
    class Clash {
      @Tool()
      search(_input: void) {
        return 'a';
      }
      @Tool({ name: 'search' })
      find(_input: void) {
        return 'b';
      }
    }
    const message = definitionError(() => scanObject(new Clash()));
    expect(message).toMatch(/Clash\.find.*Clash\.search|Clash\.search.*Clash\.find/);
  });

  it('rejects the same tool name across two composed classes', () => {
    class A {
      @Tool()
      lookup(_input: void) {
        return 'a';
      }
    }
    class B {
      @Tool({ name: 'lookup' })
      other(_input: void) {
        return 'b';
      }
    }
    const message = definitionError(() => createEngine([new A(), new B()]));
    expect(message).toContain('A.lookup');
    expect(message).toContain('B.other');
    expect(message).toContain('"lookup"');
  });

  it('composes classes with distinct names into one server', async () => {
    @Server({ name: 'composed', version: '1.0.0' })
    class A {
      @Tool()
      one(_input: void) {
        return 'one';
      }
    }
    class B {
      @Tool()
      two(_input: void) {
        return 'two';
      }
    }
    const client = await connect([new A(), new B()], quiet);
    expect(client.initializeResult?.serverInfo).toEqual({ name: 'composed', version: '1.0.0' });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['one', 'two']);
    expect(await client.callTool('two')).toEqual({ content: [{ type: 'text', text: 'two' }] });
  });

  it.each([
    ['a space', 'get user'],
    ['129 characters', 'a'.repeat(129)],
    ['a comma', 'get,user'],
    ['an empty name', ''],
    ['a slash', 'tools/get'],
  ])('rejects a tool name with %s', (_what, name) => {
    class BadName {
      @Tool({ name })
      handler(_input: void) {
        return 'x';
      }
    }
    const message = definitionError(() => scanObject(new BadName()));
    expect(message).toContain('BadName.handler');
    expect(message).toContain(JSON.stringify(name));
  });

  it.each(['a'.repeat(128), 'getUser', 'DATA_EXPORT_v2', 'admin.tools.list', 'x-y'])('accepts the tool name %s', (name) => {
    class GoodName {
      @Tool({ name })
      handler(_input: void) {
        return 'x';
      }
    }
    expect(scanObject(new GoodName()).tools.map((t) => t.definition.name)).toEqual([name]);
  });

  it('rejects an unparsable URI template', () => {
    class BadTemplate {
      @ResourceTemplate({ uriTemplate: 'files://{path' })
      file() {
        return 'x';
      }
    }
    const message = definitionError(() => scanObject(new BadTemplate()));
    expect(message).toContain('BadTemplate.file');
    expect(message).toContain('files://{path');
  });

  it.each([
    [
      'an interface',
      () => {
        class Opaque {
          @Tool()
          run(input: ShapeOnly) {
            return input.text;
          }
        }
        return new Opaque();
      },
      'Opaque.run',
    ],
    [
      'object',
      () => {
        class ObjectTyped {
          @Tool()
          run(input: object) {
            return String(input);
          }
        }
        return new ObjectTyped();
      },
      'ObjectTyped.run',
    ],
    [
      'string',
      () => {
        class StringTyped {
          @Tool()
          run(input: string) {
            return input;
          }
        }
        return new StringTyped();
      },
      'StringTyped.run',
    ],
  ])('rejects a tool whose input is typed as %s', (_what, make, where) => {
    const message = definitionError(() => scanObject(make()));
    expect(message).toContain(where);
    expect(message).toContain('cannot determine');
  });

  it('accepts an opaque parameter type when the input class is given as an option', async () => {
    class Explicit {
      @Tool({ input: EchoInput })
      run(input: ShapeOnly) {
        return input.text;
      }
    }
    const client = await connect(new Explicit(), quiet);
    const [tool] = (await client.listTools()).tools;
    expect(tool!.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
    expect(await client.callTool('run', { text: 'hi' })).toEqual({ content: [{ type: 'text', text: 'hi' }] });
  });

  it('rejects a prompt whose argument type is an interface', () => {
    class OpaquePrompt {
      @Prompt()
      ask(args: ShapeOnly) {
        return args.text;
      }
    }
    const message = definitionError(() => scanObject(new OpaquePrompt()));
    expect(message).toContain('OpaquePrompt.ask');
  });

  it('rejects duplicate resource URIs in one class', () => {
    class TwoUris {
      @Resource({ uri: 'mem://a' })
      first() {
        return 'a';
      }
      @Resource({ uri: 'mem://a' })
      second() {
        return 'b';
      }
    }
    const message = definitionError(() => scanObject(new TwoUris()));
    expect(message).toContain('TwoUris.second');
    expect(message).toContain('TwoUris.first');
    expect(message).toContain('mem://a');
  });

  it('rejects duplicate resource URIs across composed classes', () => {
    class A {
      @Resource({ uri: 'mem://shared' })
      a() {
        return 'a';
      }
    }
    class B {
      @Resource({ uri: 'mem://shared' })
      b() {
        return 'b';
      }
    }
    const message = definitionError(() => buildRegistry([new A(), new B()]));
    expect(message).toContain('A.a');
    expect(message).toContain('B.b');
    expect(message).toContain('mem://shared');
  });

  it('rejects a resource URI that is not absolute', () => {
    class Relative {
      @Resource({ uri: 'just-a-name' })
      r() {
        return 'a';
      }
    }
    expect(definitionError(() => scanObject(new Relative()))).toContain('Relative.r');
  });

  it('rejects @Complete naming an unknown prompt', () => {
    class NoSuchPrompt {
      @Complete({ prompt: 'missing', argument: 'x' })
      completeX(value: string) {
        return [value];
      }
    }
    const message = definitionError(() => scanObject(new NoSuchPrompt()));
    expect(message).toContain('NoSuchPrompt.completeX');
    expect(message).toContain('missing');
  });

  it('rejects @Complete naming an unknown prompt argument', () => {
    class GreetArgs {
      @IsString() name!: string;
    }
    class WrongArgument {
      @Prompt()
      greet(args: GreetArgs) {
        return `Hello ${args.name}`;
      }
      @Complete({ prompt: 'greet', argument: 'nickname' })
      completeNickname(value: string) {
        return [value];
      }
    }
    const message = definitionError(() => scanObject(new WrongArgument()));
    expect(message).toContain('WrongArgument.completeNickname');
    expect(message).toContain('nickname');
  });

  it('rejects @Complete naming an unknown template or template variable', () => {
    class NoSuchTemplate {
      @Complete({ template: 'x://{id}', argument: 'id' })
      completeId(value: string) {
        return [value];
      }
    }
    const unknownTemplate = definitionError(() => scanObject(new NoSuchTemplate()));
    expect(unknownTemplate).toContain('NoSuchTemplate.completeId');
    expect(unknownTemplate).toContain('x://{id}');

    class WrongVariable {
      @ResourceTemplate({ uriTemplate: 'x://{id}' })
      item({ id }: { id: string }) {
        return id;
      }
      @Complete({ template: 'x://{id}', argument: 'name' })
      completeName(value: string) {
        return [value];
      }
    }
    const unknownVariable = definitionError(() => scanObject(new WrongVariable()));
    expect(unknownVariable).toContain('WrongVariable.completeName');
    expect(unknownVariable).toContain('"name"');
  });

  it('rejects both input and inputSchema, and a non-object inputSchema', () => {
    class Both {
      @Tool({ input: EchoInput, inputSchema: { type: 'object' } })
      run(input: EchoInput) {
        return input.text;
      }
    }
    expect(definitionError(() => scanObject(new Both()))).toContain('Both.run');
    class NotObject {
      @Tool({ inputSchema: { type: 'string' } })
      run(input: unknown) {
        return String(input);
      }
    }
    expect(definitionError(() => scanObject(new NotObject()))).toContain('NotObject.run');
  });
});

describe('scanner: inheritance', () => {
  class BaseInput {
    @IsString() q!: string;
  }

  class Base {
    @Tool({ description: 'base one' })
    one(_input: void) {
      return 'base one';
    }
    @Tool({ description: 'base two' })
    two(_input: void) {
      return 'base two';
    }
    @Tool({ name: 'three', description: 'base three' })
    baseThree(_input: void) {
      return 'base three';
    }
    @Tool({ description: 'base search' })
    search(input: BaseInput) {
      return `base search ${input.q}`;
    }
  }

  class Child extends Base {
    // Redeclared with a decorator: subclass declaration and behaviour.
    @Tool({ description: 'child two' })
    override two(_input: void) {
      return 'child two';
    }
    // Same name from another method: the subclass entry wins.
    @Tool({ name: 'three', description: 'child three' })
    childThree(_input: void) {
      return 'child three';
    }
    // Overridden without a decorator: parent's declaration, child's behaviour.
    override search(input: BaseInput) {
      return `child search ${input.q}`;
    }
    @Tool({ description: 'child four' })
    four(_input: void) {
      return 'child four';
    }
  }

  it('inherits, overrides and adds tools', async () => {
    const client = await connect(new Child(), quiet);
    const tools = await client.listAll('tools');
    const byName = Object.fromEntries(tools.map((t) => [t.name, t.description]));
    expect(byName).toEqual({
      one: 'base one',
      two: 'child two',
      three: 'child three',
      search: 'base search',
      four: 'child four',
    });
    expect(tools).toHaveLength(5);
    const call = async (name: string, args?: Record<string, unknown>) => {
      const result = await client.callTool(name, args);
      return (result.content[0] as { text: string }).text;
    };
    expect(await call('one')).toBe('base one');
    expect(await call('two')).toBe('child two');
    expect(await call('three')).toBe('child three');
    expect(await call('four')).toBe('child four');
    expect(await call('search', { q: 'x' })).toBe('child search x');
    // the inherited declaration keeps validating with the parent's input class
    expect(await client.callTool('search', {})).toMatchObject({ isError: true });
  });

  it('leaves the parent class unchanged', async () => {
    const client = await connect(new Base(), quiet);
    const tools = await client.listAll('tools');
    expect(tools.map((t) => [t.name, t.description])).toEqual([
      ['one', 'base one'],
      ['two', 'base two'],
      ['three', 'base three'],
      ['search', 'base search'],
    ]);
    expect(await client.callTool('two')).toEqual({ content: [{ type: 'text', text: 'base two' }] });
  });

  it('reports the declaring class of an inherited entry as its source', () => {
    const scanned = scanObject(new Child());
    const source = Object.fromEntries(scanned.tools.map((t) => [t.definition.name, t.source]));
    expect(source).toEqual({
      one: 'Base.one',
      two: 'Child.two',
      three: 'Child.childThree',
      search: 'Base.search',
      four: 'Child.four',
    });
  });
});

describe('scanner: listed definitions', () => {
  const icons = [{ src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'], theme: 'light' as const }];

  class Limit {
    @Field({ description: 'how many' }) @IsOptional() @IsInt() @Min(1) limit?: number;
  }

  class Defs {
    @Tool()
    noParam() {
      return 'none';
    }
    @Tool()
    voidParam(_input: void, ctx: RequestContext) {
      return ctx.method;
    }
    @Tool({
      title: 'Full tool',
      description: 'Every field',
      icons,
      annotations: { title: 'Annotated', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      _meta: { 'example.com/owner': 'team-a' },
      taskSupport: 'optional',
    })
    full(input: Limit) {
      return String(input.limit ?? 'none');
    }
    @Tool({ taskSupport: 'required' })
    required(_input: void) {
      return 'r';
    }
    @Tool({ taskSupport: 'forbidden' })
    forbidden(_input: void) {
      return 'f';
    }
    @Resource({
      uri: 'mem://full',
      name: 'full-resource',
      title: 'Full resource',
      description: 'A resource with every field',
      mimeType: 'text/plain',
      size: 42,
      icons,
      annotations: { audience: ['user', 'assistant'], priority: 0.5, lastModified: '2025-01-01T00:00:00Z' },
      _meta: { k: 1 },
    })
    fullResource() {
      return 'x';
    }
    @Resource({ uri: 'mem://bare' })
    bare() {
      return 'x';
    }
    @ResourceTemplate({
      uriTemplate: 'mem://items/{id}',
      name: 'item',
      title: 'An item',
      description: 'One item',
      mimeType: 'application/json',
      icons,
      annotations: { priority: 1 },
      _meta: { t: true },
    })
    item({ id }: { id: string }) {
      return id;
    }
    @Prompt({ title: 'Full prompt', description: 'A prompt with every field', icons, _meta: { p: 'q' } })
    fullPrompt(_args: void) {
      return 'hi';
    }
  }

  it('gives tools without input an empty closed object schema', async () => {
    const client = await connect(new Defs(), quiet);
    const tools = await client.listAll('tools');
    const noParam = tools.find((t) => t.name === 'noParam');
    const voidParam = tools.find((t) => t.name === 'voidParam');
    expect(noParam).toEqual({ name: 'noParam', inputSchema: { type: 'object', additionalProperties: false } });
    expect(voidParam).toEqual({ name: 'voidParam', inputSchema: { type: 'object', additionalProperties: false } });
    expect(await client.callTool('voidParam')).toEqual({ content: [{ type: 'text', text: 'tools/call' }] });
    const extra = await client.callTool('noParam', { unexpected: 1 });
    expect(extra.isError).toBe(true);
    expect((extra.content[0] as { text: string }).text).toContain('unexpected');
  });

  it('passes every spec field of a tool through', async () => {
    const client = await connect(new Defs(), quiet);
    const tools = await client.listAll('tools');
    expect(tools.find((t) => t.name === 'full')).toEqual({
      name: 'full',
      title: 'Full tool',
      description: 'Every field',
      icons,
      inputSchema: {
        type: 'object',
        properties: { limit: { type: 'integer', description: 'how many', minimum: 1 } },
        additionalProperties: false,
      },
      annotations: { title: 'Annotated', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      execution: { taskSupport: 'optional' },
      _meta: { 'example.com/owner': 'team-a' },
    });
    expect(tools.find((t) => t.name === 'required')?.execution).toEqual({ taskSupport: 'required' });
    expect(tools.find((t) => t.name === 'forbidden')).not.toHaveProperty('execution');
    expect(tools.find((t) => t.name === 'noParam')).not.toHaveProperty('execution');
  });

  it('passes every spec field of resources, templates and prompts through', async () => {
    const client = await connect(new Defs(), quiet);
    const resources = await client.listAll('resources');
    expect(resources).toEqual([
      {
        uri: 'mem://full',
        name: 'full-resource',
        title: 'Full resource',
        description: 'A resource with every field',
        mimeType: 'text/plain',
        size: 42,
        icons,
        annotations: { audience: ['user', 'assistant'], priority: 0.5, lastModified: '2025-01-01T00:00:00Z' },
        _meta: { k: 1 },
      },
      { uri: 'mem://bare', name: 'bare' },
    ]);
    expect(await client.listAll('resourceTemplates')).toEqual([
      {
        uriTemplate: 'mem://items/{id}',
        name: 'item',
        title: 'An item',
        description: 'One item',
        mimeType: 'application/json',
        icons,
        annotations: { priority: 1 },
        _meta: { t: true },
      },
    ]);
    expect(await client.listAll('prompts')).toEqual([{ name: 'fullPrompt', title: 'Full prompt', description: 'A prompt with every field', icons, _meta: { p: 'q' } }]);
  });

  describe('raw inputSchema', () => {
    const rawSchema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        owner: { $ref: '#/$defs/Person' },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
      },
      required: ['owner'],
      additionalProperties: false,
      $defs: {
        Person: {
          type: 'object',
          properties: { name: { type: 'string', minLength: 1 } },
          required: ['name'],
          additionalProperties: false,
        },
      },
    };

    class Raw {
      @Tool({ inputSchema: rawSchema, description: 'raw' })
      raw(input: { owner: { name: string }; tags?: string[] }) {
        return `${input.owner.name}:${(input.tags ?? []).join(',')}`;
      }
    }

    it('is listed exactly as authored', async () => {
      const client = await connect(new Raw(), quiet);
      const [tool] = (await client.listTools()).tools;
      expect(tool).toEqual({ name: 'raw', description: 'raw', inputSchema: rawSchema });
    });

    it('validates arguments with it', async () => {
      const client = await connect(new Raw(), quiet);
      expect(await client.callTool('raw', { owner: { name: 'ada' }, tags: ['a', 'b'] })).toEqual({
        content: [{ type: 'text', text: 'ada:a,b' }],
      });
      const bad = await client.callTool('raw', { owner: { name: '' }, tags: ['a', 'b', 'c'], extra: true });
      expect(bad.isError).toBe(true);
      const message = (bad.content[0] as { text: string }).text;
      expect(message).toContain('owner.name');
      expect(message).toContain('tags');
      expect(message).toContain('extra');
      const missing = await client.callTool('raw', {});
      expect(missing.isError).toBe(true);
      expect((missing.content[0] as { text: string }).text).toContain('owner is required');
    });
  });
});

describe('scanner: inheritance across three levels', () => {
  class Root {
    @Tool({ name: 'x', description: 'root x' })
    foo(_input: void) {
      return 'root foo';
    }
  }
  class Middle extends Root {
    // takes over the name "x" from another method
    @Tool({ name: 'x', description: 'middle x' })
    bar(_input: void) {
      return 'middle bar';
    }
  }
  class Leaf extends Middle {
    // redeclares Root's method under a new name: Middle's "x" must stay
    @Tool({ name: 'y', description: 'leaf y' })
    override foo(_input: void) {
      return 'leaf foo';
    }
  }

  it('keeps an entry another class took over when the original method is redeclared', async () => {
    const client = await connect(new Leaf(), quiet);
    const tools = await client.listAll('tools');
    expect(tools.map((t) => [t.name, t.description])).toEqual([
      ['x', 'middle x'],
      ['y', 'leaf y'],
    ]);
    expect(await client.callTool('x')).toEqual({ content: [{ type: 'text', text: 'middle bar' }] });
    expect(await client.callTool('y')).toEqual({ content: [{ type: 'text', text: 'leaf foo' }] });
  });
});
