import 'reflect-metadata';
import { transformSync } from 'esbuild';
import ts from 'typescript';
import { Type } from 'class-transformer';
import { Allow, IsDate, IsInt, IsOptional, IsString, Max, Min, ValidateNested } from 'class-validator';
import { createEngine, DefinitionError, Field, Tool, Prompt } from '@mcpx/core';
import { definitionWarnings } from '@mcpx/core/registry';
import { connect, memoryLogger, quietOptions } from '@mcpx/testing';
import { definitionError } from './definition-error-of';

// What an input class's schema cannot express is said at startup: an error where no call can
// succeed as intended, a warning (logged once, or an error with strictDefinitions) where the
// schema only loses checking.

function textOf(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

describe('startup errors: definitions no call can satisfy', () => {
  it('an input class with properties but no rule and no @Field', () => {
    class NoRules {
      name = '';
      limit = 10;
    }
    class S {
      @Tool() search(_input: NoRules) {
        return 'x';
      }
    }
    expect(definitionError(() => createEngine(new S(), quietOptions())).message).toBe(
      'S.search: input class NoRules has no class-validator rule and no @Field on any property (name, limit), so its schema lists no properties: ' +
        'every call that passes them is refused, and the method only ever gets {}. Mark each property with a rule such as @IsString() or @IsInt(), or with @Field()',
    );
  });

  it('but an empty class is a tool without input', async () => {
    class NoArgs {}
    class S {
      @Tool() ping(_input: NoArgs) {
        return 'pong';
      }
    }
    const client = await connect(new S(), quietOptions());
    expect(textOf(await client.callTool('ping', {}))).toBe('pong');
    client.close();
  });

  it('the same for a prompt argument class', () => {
    class Args {
      topic = '';
    }
    class S {
      @Prompt() brief(_args: Args) {
        return 'x';
      }
    }
    expect(definitionError(() => createEngine(new S(), quietOptions())).message).toMatch(/^S\.brief: input class Args has no class-validator rule and no @Field/);
  });

  it('@ValidateNested on an array without @Type, and on an interface', () => {
    class Item {
      @IsString() name!: string;
    }
    interface Shape {
      side: number;
    }
    class Order {
      @ValidateNested({ each: true }) items!: Item[];
      @ValidateNested() shape!: Shape;
    }
    class S {
      @Tool() order(_input: Order) {
        return 'x';
      }
    }
    const message = definitionError(() => createEngine(new S(), quietOptions())).message;
    expect(message).toBe(
      'S.order: Order.items: @ValidateNested() cannot tell the class of its elements (the element type of an array is not reflected), ' +
        'so class-validator refuses every value as "an unknown value": add @Type(() => ItemClass) from class-transformer; ' +
        'Order.shape: @ValidateNested() cannot tell the class of its value (its type is reflected as Object), ' +
        'so class-validator refuses every value as "an unknown value": add @Type(() => ValueClass) from class-transformer',
    );
  });

  it('a Set or Map without @Type, and a function', () => {
    class Bag {
      @IsString({ each: true }) tags!: Set<string>;
      @Allow() counts!: Map<string, number>;
      @Allow() callback!: () => void;
    }
    class S {
      @Tool() put(_input: Bag) {
        return 'x';
      }
    }
    const message = definitionError(() => createEngine(new S(), quietOptions())).message;
    expect(message).toContain(
      'Bag.tags: a Set cannot travel as JSON, and without @Type(() => Set) the method would get a plain array, not a Set: add @Type(() => Set) from class-transformer, or type it as an array',
    );
    expect(message).toContain('Bag.counts: a Map cannot travel as JSON, and without @Type(() => Map) the method would get a plain object, not a Map');
    expect(message).toContain('Bag.callback: its type is a function, which JSON arguments cannot carry, so no call can give it: remove it from the input class');
  });

  it('a property without a rule beside ones with: the instance always has it, so the whitelist refuses every call', () => {
    class Half {
      @IsString() id!: string;
      note!: string;
      limit = 10;
    }
    class S {
      @Tool() half(_input: Half) {
        return 'x';
      }
    }
    expect(definitionError(() => createEngine(new S(), quietOptions())).message).toBe(
      'S.half: Half.note has no class-validator rule and no @Field, so every call is refused with "property note should not exist" (the instance always has it): ' +
        'mark it with a rule or @Field(), or move it out of the input class; ' +
        'Half.limit has no class-validator rule and no @Field, so every call is refused with "property limit should not exist" (the instance always has it): ' +
        'mark it with a rule or @Field(), or move it out of the input class',
    );
  });

  it('errors in a nested class name that class', () => {
    class Inner {
      size = 0;
    }
    class Outer {
      @ValidateNested() @Type(() => Inner) inner!: Inner;
    }
    class S {
      @Tool() nest(_input: Outer) {
        return 'x';
      }
    }
    expect(definitionError(() => createEngine(new S(), quietOptions())).message).toMatch(/^S\.nest: class Inner has no class-validator rule and no @Field on any property \(size\)/);
  });
});

describe('startup warnings: what a schema only cannot check', () => {
  interface Options {
    verbose: boolean;
  }
  class Child {
    @IsString() name!: string;
  }
  class Loose {
    @IsString() id!: string;
    @Field() either!: string | number;
    @IsOptional() anything?: unknown;
    @Allow() options!: Options;
    @Allow() child!: Child;
    @Field({ schema: {} }) free!: unknown;
  }
  class LooseServer {
    @Tool() first(input: Loose) {
      return JSON.stringify(input);
    }
    @Tool() second(input: Loose) {
      return JSON.stringify(input);
    }
  }

  const expected = [
    'LooseServer.first: Loose.either: the schema accepts any JSON value here: its TypeScript type is reflected as Object (a union of different types, unknown, any, an interface or an object type): ' +
      'add a rule that says what it holds (@IsString(), @IsIn([...]), @IsObject(), @ValidateNested() with @Type(() => SomeClass)), or describe it with @Field({ schema: {...} }) (@Field({ schema: {} }) accepts any JSON value on purpose)',
    expect.stringMatching(/^LooseServer\.first: Loose\.anything: the schema accepts any JSON value here: its TypeScript type is reflected as Object/),
    expect.stringMatching(/^LooseServer\.first: Loose\.options: the schema accepts any JSON value here: its TypeScript type is reflected as Object/),
    'LooseServer.first: Loose.child: the schema accepts any JSON value here: it is typed as class Child without @ValidateNested(), so its properties are not checked and the method gets a plain object: ' +
      'add @ValidateNested() and @Type(() => Child), or describe it with @Field({ schema: {...} })',
  ];

  it('are logged once through the server logger (a class behind two tools is one warning), and the server still runs', async () => {
    const { logger, lines } = memoryLogger('warn');
    const server = new LooseServer();
    const engine = createEngine(server, { logger });
    expect(definitionWarnings(engine).map((w) => w.message)).toEqual(expected);
    expect(lines.map((l) => ({ level: l.level, definition: l.definition, msg: l.msg }))).toEqual(expected.map((msg) => ({ level: 40, definition: 'LooseServer.first', msg })));
    // Built once per server: asking again logs nothing more.
    createEngine(server, { logger });
    expect(lines).toHaveLength(expected.length);
    const client = await connect(engine, quietOptions());
    expect(JSON.parse(textOf(await client.callTool('second', { id: 'a', either: 3, options: { verbose: true }, child: { n: 1 }, free: [1] })))).toMatchObject({ either: 3, free: [1] });
    client.close();
  });

  it('strictDefinitions makes them one DefinitionError', () => {
    const message = definitionError(() => createEngine(new LooseServer(), { ...quietOptions(), strictDefinitions: true })).message;
    expect(message).toMatch(/^strictDefinitions makes these 4 warnings errors: LooseServer\.first: Loose\.either: the schema accepts any JSON value here/);
    expect(message).toContain('; LooseServer.first: Loose.child: the schema accepts any JSON value here');
  });

  it('MCPX_STRICT_DEFINITIONS=1 does the same when the option is not given; the option wins', () => {
    const saved = process.env.MCPX_STRICT_DEFINITIONS;
    process.env.MCPX_STRICT_DEFINITIONS = '1';
    try {
      expect(() => createEngine(new LooseServer(), quietOptions())).toThrow(/^strictDefinitions makes these 4 warnings errors/);
      expect(definitionWarnings(createEngine(new LooseServer(), { ...quietOptions(), strictDefinitions: false }))).toHaveLength(4);
    } finally {
      if (saved === undefined) delete process.env.MCPX_STRICT_DEFINITIONS;
      else process.env.MCPX_STRICT_DEFINITIONS = saved;
    }
  });

  it('a fully described class has none', () => {
    class Tidy {
      @IsString() name!: string;
      @Field({ schema: { type: ['string', 'number'] } }) id!: string | number;
    }
    class S {
      @Tool() tidy(_input: Tidy) {
        return 'x';
      }
    }
    expect(definitionWarnings(createEngine(new S(), { ...quietOptions(), strictDefinitions: true }))).toEqual([]);
  });
});

describe('Set and Map with @Type', () => {
  class Bag {
    @Type(() => Set) @IsString({ each: true }) tags!: Set<string>;
    @Type(() => Map) @IsInt({ each: true }) counts!: Map<string, number>;
  }
  class S {
    @Tool() put(input: Bag) {
      return `${input.tags instanceof Set} ${[...input.tags].join(',')} ${input.counts instanceof Map} ${input.counts.get('a')}`;
    }
  }

  it('list as an array and an object, and reach the method as a Set and a Map', async () => {
    const client = await connect(new S(), quietOptions());
    const [tool] = (await client.listTools()).tools;
    expect(tool!.inputSchema.properties).toEqual({
      tags: { type: 'array', items: { type: 'string' } },
      counts: { type: 'object', additionalProperties: { type: 'integer' } },
    });
    expect(textOf(await client.callTool('put', { tags: ['a', 'b', 'a'], counts: { a: 2 } }))).toBe('true a,b true 2');
    expect(await client.callTool('put', { tags: 'ab', counts: [1] })).toEqual({
      content: [{ type: 'text', text: 'Invalid arguments:\n- tags: tags must be an array\n- counts: counts must be an object' }],
      isError: true,
    });
    client.close();
  });
});

describe('Date properties', () => {
  class Slot {
    @IsDate() start!: Date;
  }
  class Booking {
    @Field({ description: 'When it begins' }) @IsDate() at!: Date;
    @Field() until!: Date;
    @IsOptional() @IsDate() reminder?: Date;
    @IsOptional() @Type(() => Date) @IsDate({ each: true }) extra?: Date[];
    @IsOptional() @ValidateNested({ each: true }) @Type(() => Slot) slots?: Slot[];
  }
  class Calendar {
    @Tool() book(input: Booking) {
      const dates = [input.at, input.until, input.reminder, ...(input.extra ?? []), ...(input.slots ?? []).map((s) => s.start)];
      return dates.map((d) => (d instanceof Date ? d.toISOString() : String(d))).join(' ');
    }
  }

  it('list as ISO 8601 date-time strings', async () => {
    const client = await connect(new Calendar(), quietOptions());
    const [tool] = (await client.listTools()).tools;
    expect(tool!.inputSchema).toEqual({
      type: 'object',
      properties: {
        at: { description: 'When it begins', type: 'string', format: 'date-time' },
        until: { type: 'string', format: 'date-time' },
        reminder: { type: 'string', format: 'date-time' },
        extra: { type: 'array', items: { type: 'string', format: 'date-time' } },
        slots: { type: 'array', items: { $ref: '#/$defs/Slot' } },
      },
      required: ['at', 'until'],
      additionalProperties: false,
      $defs: { Slot: { type: 'object', properties: { start: { type: 'string', format: 'date-time' } }, required: ['start'], additionalProperties: false } },
    });
    client.close();
  });

  it('reach the method as Dates, nested and in arrays too', async () => {
    const client = await connect(new Calendar(), quietOptions());
    const result = await client.callTool('book', {
      at: '2024-05-01T09:30:00Z',
      until: '2024-05-01T11:30:00.250+02:00',
      extra: ['2024-02-29T23:59:59z'],
      slots: [{ start: '2024-12-31T00:00:00-05:30' }],
    });
    expect(textOf(result)).toBe('2024-05-01T09:30:00.000Z 2024-05-01T09:30:00.250Z undefined 2024-02-29T23:59:59.000Z 2024-12-31T05:30:00.000Z');
    client.close();
  });

  it('refuse what is not a date-time, naming the field, with one message each', async () => {
    const client = await connect(new Calendar(), quietOptions());
    const result = await client.callTool('book', {
      at: 'tomorrow',
      until: '2023-02-29T10:00:00Z',
      reminder: 1714555800000,
      extra: ['2024-05-01T09:30:00Z', '2024-05-01'],
      slots: [{ start: '2024-05-01T25:00:00Z' }],
    });
    expect(result).toEqual({
      content: [
        {
          type: 'text',
          text: [
            'Invalid arguments:',
            '- at: at must be an ISO 8601 date-time string with a time zone, such as 2024-05-01T09:30:00Z',
            '- until: until must be an ISO 8601 date-time string with a time zone, such as 2024-05-01T09:30:00Z',
            '- reminder: reminder must be an ISO 8601 date-time string with a time zone, such as 2024-05-01T09:30:00Z',
            '- extra[1]: extra[1] must be an ISO 8601 date-time string with a time zone, such as 2024-05-01T09:30:00Z',
            '- slots[0].start: start must be an ISO 8601 date-time string with a time zone, such as 2024-05-01T09:30:00Z',
          ].join('\n'),
        },
      ],
      isError: true,
    });
    // Missing is missing, not "must be a Date instance".
    expect(textOf(await client.callTool('book', { until: '2024-05-01T09:30:00Z' }))).toBe('Invalid arguments:\n- at: at is required');
    client.close();
  });

  it('in an output class, list as the strings they are sent as', async () => {
    class Stamp {
      @IsDate() at!: Date;
    }
    class Clock {
      @Tool({ output: Stamp }) now() {
        return { at: new Date('2024-05-01T09:30:00Z') };
      }
    }
    const client = await connect(new Clock(), quietOptions());
    const [tool] = (await client.listTools()).tools;
    expect(tool!.outputSchema).toEqual({ type: 'object', properties: { at: { type: 'string', format: 'date-time' } }, required: ['at'], additionalProperties: false });
    expect((await client.callTool('now')).structuredContent).toEqual({ at: '2024-05-01T09:30:00.000Z' });
    client.close();
  });

  it('leave the arguments the client sent untouched', async () => {
    const { validateInput } = await import('@mcpx/core/schema');
    const args = { at: '2024-05-01T09:30:00Z', until: '2024-05-01T09:30:00Z' };
    const result = await validateInput(Booking, args);
    expect(result.ok && result.value.at).toEqual(new Date('2024-05-01T09:30:00Z'));
    expect(args.at).toBe('2024-05-01T09:30:00Z');
  });
});

describe('a missing property is reported as missing, before any rule on it', () => {
  class Limits {
    @IsInt() @Min(1) @Max(5) count!: number;
  }
  class Wrapper {
    @ValidateNested() @Type(() => Limits) limits!: Limits;
  }
  class S {
    @Tool() limited(input: Limits) {
      return String(input.count);
    }
    @Tool() wrapped(input: Wrapper) {
      return String(input.limits.count);
    }
  }

  it('at the top level and nested; a present value still gets its rule messages', async () => {
    const client = await connect(new S(), quietOptions());
    expect(textOf(await client.callTool('limited', {}))).toBe('Invalid arguments:\n- count: count is required');
    expect(textOf(await client.callTool('wrapped', { limits: {} }))).toBe('Invalid arguments:\n- limits.count: count is required');
    expect(textOf(await client.callTool('wrapped', {}))).toBe('Invalid arguments:\n- limits: limits is required');
    expect(textOf(await client.callTool('limited', { count: 9 }))).toBe('Invalid arguments:\n- count: count must not be greater than 5');
    client.close();
  });
});

describe('code compiled without decorator metadata', () => {
  const source = `
    import 'reflect-metadata';
    import { Server, Tool } from '@mcpx/core';
    import { IsString } from 'class-validator';
    export class EchoInput {
      @IsString() text!: string;
    }
    @Server({ name: 'echo', version: '1.0.0' })
    export class EchoServer {
      @Tool() echo(input: EchoInput) {
        return input.text;
      }
    }
    @Server({ name: 'echo', version: '1.0.0' })
    export class ExplicitServer {
      @Tool({ input: EchoInput }) echo(input: EchoInput) {
        return input.text;
      }
    }
  `;

  /** Runs CommonJS output in this module's registry (so '@mcpx/core' is the same module). */
  function load(code: string): Record<string, new () => object> {
    const module = { exports: {} as Record<string, new () => object> };
    new Function('require', 'module', 'exports', code)(require, module, module.exports);
    return module.exports;
  }

  it('esbuild (as tsx and vitest 3 use it) drops design:paramtypes even when tsconfig asks for it: the error names the cause and both ways out', async () => {
    const { code } = transformSync(source, {
      loader: 'ts',
      format: 'cjs',
      tsconfigRaw: { compilerOptions: { experimentalDecorators: true, emitDecoratorMetadata: true } },
    });
    const { EchoServer, ExplicitServer } = load(code);
    expect(definitionError(() => createEngine(new EchoServer!(), quietOptions())).message).toBe(
      "EchoServer.echo: cannot tell the tool's input class, because this code was compiled without decorator metadata (the method takes a parameter but has no design:paramtypes). " +
        'tsx and esbuild never emit it, nor does vitest 3 or older (esbuild), even when tsconfig.json sets emitDecoratorMetadata. ' +
        'Either compile with tsc, ts-node, swc (jsc.transform.decoratorMetadata: true) or vitest 4 with emitDecoratorMetadata on, or name the class: @Tool({ input: InputClass }) (docs/toolchains.md)',
    );
    // The second way out works under the same compiler.
    const client = await connect(new ExplicitServer!(), quietOptions());
    expect(textOf(await client.callTool('echo', { text: 'hi' }))).toBe('hi');
    client.close();
  });

  it('a nested property without @Type says that the metadata is missing', () => {
    const { code } = transformSync(
      `
      import { Tool } from '@mcpx/core';
      import { IsString, ValidateNested } from 'class-validator';
      export class Inner { @IsString() name!: string; }
      export class Outer { @ValidateNested() inner!: Inner; }
      export class NestServer { @Tool({ input: Outer }) nest(input: Outer) { return input.inner.name; } }
      `,
      { loader: 'ts', format: 'cjs', tsconfigRaw: { compilerOptions: { experimentalDecorators: true } } },
    );
    const { NestServer } = load(code);
    expect(definitionError(() => createEngine(new NestServer!(), quietOptions())).message).toBe(
      'NestServer.nest: Outer.inner: @ValidateNested() cannot tell the class of its value (no design type was emitted: this code was compiled without decorator metadata), ' +
        'so class-validator refuses every value as "an unknown value": add @Type(() => ValueClass) from class-transformer',
    );
  });

  it('decorators applied by hand (plain JavaScript) get the same message', () => {
    class Plain {
      greet(input: { name: string }) {
        return input.name;
      }
    }
    Tool()(Plain.prototype, 'greet', Object.getOwnPropertyDescriptor(Plain.prototype, 'greet')!);
    expect(definitionError(() => createEngine(new Plain(), quietOptions())).message).toMatch(
      /^Plain\.greet: cannot tell the tool's input class, because this code was compiled without decorator metadata/,
    );
  });
});

describe('standard (TC39) decorators, as TypeScript compiles them without experimentalDecorators', () => {
  const compile = (source: string) =>
    ts.transpileModule(source, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, experimentalDecorators: false } }).outputText;
  const run = (code: string) => new Function('require', 'module', 'exports', code)(require, { exports: {} }, {});

  it('a method decorator names the method and the experimentalDecorators flag', () => {
    const code = compile(`
      import { Tool } from '@mcpx/core';
      export class Pinger {
        @Tool() ping() { return 'pong'; }
      }
    `);
    expect(code).toContain('__esDecorate');
    expect(() => run(code)).toThrow(
      new DefinitionError(
        '@Tool on method ping was applied as a standard (TC39) decorator, which mcpx does not support: ' +
          'set "experimentalDecorators": true and "emitDecoratorMetadata": true in the compilerOptions of tsconfig.json ' +
          "(without them TypeScript, tsx and esbuild compile standard decorators; tsc reports TS1240, TS1241 or TS1270 at mcpx's and class-validator's decorators)",
      ),
    );
  });

  it('@Server and @Field too', () => {
    expect(() => run(compile(`import { Server } from '@mcpx/core'; @Server({ name: 'a', version: '1' }) export class A {}`))).toThrow(
      /^@Server on class A was applied as a standard \(TC39\) decorator/,
    );
    expect(() => run(compile(`import { Field } from '@mcpx/core'; export class In { @Field() text!: string; }`))).toThrow(
      /^@Field on field text was applied as a standard \(TC39\) decorator/,
    );
  });
});
