/**
 * What a tool returns, written as JSON: a Map, a Set, a Date and a safe BigInt in their obvious JSON
 * form (as text, as structuredContent of an output class and of a raw outputSchema); what has none
 * (a Promise, binary data, a cycle, a BigInt past 2^53, a Map with object keys) is a tool error that
 * names it and where, never a protocol error; resources and prompts get the same conversion.
 */
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsDate, IsOptional, IsString } from 'class-validator';
import { connect, memoryLogger, quietOptions } from '@mcpx/testing';
import { Field, Resource, Server, Tool, toolError } from '../src';

class Summary {
  @Field() @IsDate() when!: Date;
  @Field() @IsOptional() @IsString() name?: string;
}

class DateAsString {
  @Field() @IsDate() @Type(() => Date) when!: Date;
}

const DAY = new Date(Date.UTC(2026, 11, 5, 12, 0, 0));
const ISO = '2026-12-05T12:00:00.000Z';

@Server({ name: 'returns', version: '1.0.0' })
class Returns {
  @Tool() map(_i: void) {
    return {
      counts: new Map<string | number, number>([
        ['a', 1],
        [2, 3],
      ]),
      tags: new Set(['x', 'y']),
      when: DAY,
      big: 12n,
    };
  }
  @Tool() date(_i: void) {
    return DAY;
  }
  @Tool() huge_top(_i: void) {
    return 2n ** 64n;
  }
  @Tool() huge_nested(_i: void) {
    return { id: 2n ** 64n };
  }
  @Tool() promise(_i: void) {
    return { pending: Promise.resolve(1) };
  }
  @Tool() binary(_i: void) {
    return { data: [new Uint8Array([1, 2])] };
  }
  @Tool() buffer(_i: void) {
    return { data: Buffer.from('hi') };
  }
  @Tool() cycle(_i: void) {
    const node: Record<string, unknown> = { name: 'a' };
    node.self = node;
    return node;
  }
  @Tool() object_keys(_i: void) {
    return new Map([[{ id: 1 }, 'one']]);
  }
  @Tool() fn(_i: void) {
    return () => 'source code stays here';
  }
  @Tool() proto_key(_i: void) {
    return JSON.parse('{"__proto__": {"polluted": true}, "when": "x"}') as object;
  }
  @Tool() proto_map(_i: void) {
    return new Map([['__proto__', { polluted: true }]]);
  }
  @Tool() plain(_i: void) {
    return { a: [1, 'two', { b: null }] };
  }
  @Tool() blocks(_i: void) {
    return [DAY, 7n, { type: 'text', text: 'kept' }];
  }
  @Tool() full(_i: void) {
    return { content: [{ type: 'text', text: 'see structured' }], structuredContent: { seen: new Set([1]) } };
  }
  @Tool() failed(_i: void) {
    return toolError('left as it is');
  }
  @Tool({ output: Summary }) class_out(_i: void) {
    return { when: DAY, name: 'n' };
  }
  @Tool({ output: DateAsString }) class_typed(_i: void) {
    return { when: DAY };
  }
  @Tool({ outputSchema: { type: 'object', properties: { when: { type: 'string', format: 'date-time' }, ids: { type: 'array', items: { type: 'integer' } } }, required: ['when', 'ids'] } })
  raw_out(_i: void) {
    return { when: DAY, ids: new Set([1, 2]) };
  }
  @Resource({ uri: 'data://stats' }) stats() {
    return { counts: new Map([['a', 1]]), at: DAY };
  }
}

const textOf = (result: { content: unknown[] }, i = 0) => (result.content[i] as { text: string }).text;

describe('tool return values', () => {
  it('are written in their obvious JSON form', async () => {
    const client = await connect(new Returns(), quietOptions());
    expect(JSON.parse(textOf(await client.callTool('map')))).toEqual({ counts: { a: 1, '2': 3 }, tags: ['x', 'y'], when: ISO, big: 12 });
    expect(await client.callTool('date')).toEqual({ content: [{ type: 'text', text: ISO }] });
    expect(await client.callTool('huge_top')).toEqual({ content: [{ type: 'text', text: '18446744073709551616' }] });
    expect(await client.callTool('blocks')).toEqual({
      content: [
        { type: 'text', text: ISO },
        { type: 'text', text: '7' },
        { type: 'text', text: 'kept' },
      ],
    });
    expect(await client.callTool('full')).toEqual({ content: [{ type: 'text', text: 'see structured' }], structuredContent: { seen: [1] } });
    expect(await client.callTool('failed')).toEqual({ isError: true, content: [{ type: 'text', text: 'left as it is' }] });
    expect(JSON.parse(textOf(await client.callTool('plain')))).toEqual({ a: [1, 'two', { b: null }] });
    client.close();
  });

  it('keep a "__proto__" key a property, never a prototype', async () => {
    const client = await connect(new Returns(), quietOptions());
    expect(JSON.parse(textOf(await client.callTool('proto_map')))).toEqual(JSON.parse('{"__proto__": {"polluted": true}}'));
    expect(JSON.parse(textOf(await client.callTool('proto_key')))).toEqual(JSON.parse('{"__proto__": {"polluted": true}, "when": "x"}'));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    client.close();
  });

  it('with an output class: checked as returned (a Date is a Date), sent as JSON', async () => {
    const client = await connect(new Returns(), quietOptions());
    const out = await client.callTool('class_out');
    expect(out.structuredContent).toEqual({ when: ISO, name: 'n' });
    expect(JSON.parse(textOf(out))).toEqual({ when: ISO, name: 'n' });
    expect((await client.callTool('class_typed')).structuredContent).toEqual({ when: ISO });
    client.close();
  });

  it('with a raw outputSchema: made JSON before the schema checks it', async () => {
    const client = await connect(new Returns(), quietOptions());
    const out = await client.callTool('raw_out');
    expect(out.isError).toBeUndefined();
    expect(out.structuredContent).toEqual({ when: ISO, ids: [1, 2] });
    client.close();
  });

  it.each([
    ['huge_nested', 'result.id is a BigInt (18446744073709551616) beyond the safe integer range of a JSON number: return it as a string'],
    ['promise', 'result.pending is a Promise: await it before returning'],
    ['binary', 'result.data[0] is binary data (Uint8Array): return image(…) or audio(…) content, an embedded resource with a blob, or a base64 string'],
    ['buffer', 'result.data is binary data (Buffer): return image(…) or audio(…) content, an embedded resource with a blob, or a base64 string'],
    ['object_keys', 'result is a Map with a key of type object, which a JSON object cannot have: return an array of entries'],
    ['fn', 'result is a function, which has no JSON form'],
  ])('%s: a tool error naming the type and where it is', async (tool, reason) => {
    const log = memoryLogger('warn');
    const client = await connect(new Returns(), { logger: log.logger, maskErrors: true });
    expect(await client.callTool(tool)).toEqual({ isError: true, content: [{ type: 'text', text: `Tool "${tool}" returned a value with no JSON form: ${reason}` }] });
    expect(log.lines.find((l) => l.msg === `tool "${tool}" returned a value with no JSON form`)).toMatchObject({ level: 50, tool, reason });
    client.close();
  });

  it('a cycle is a tool error, not a stack overflow or a protocol error', async () => {
    const client = await connect(new Returns(), quietOptions());
    const result = await client.callTool('cycle');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Tool "cycle" returned a value with no JSON form: result(\.self)+ refers back to an object that contains it \(a cycle\)$/);
    client.close();
  });

  it('the same conversion serves a resource read as JSON', async () => {
    const client = await connect(new Returns(), quietOptions());
    const read = await client.readResource('data://stats');
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual({ counts: { a: 1 }, at: ISO });
    client.close();
  });
});

describe('declared return types with no JSON form', () => {
  it('are definition warnings naming the tool and what to return instead; strictDefinitions makes them errors', async () => {
    @Server({ name: 'typed', version: '1.0.0' })
    class Typed {
      @Tool() bytes(_i: void): Buffer {
        return Buffer.from('x');
      }
      @Tool() more_bytes(_i: void): Uint8Array {
        return new Uint8Array(1);
      }
      @Tool() weak(_i: void): WeakMap<object, string> {
        return new WeakMap();
      }
      @Tool() fine(_i: void): Map<string, number> {
        return new Map([['a', 1]]);
      }
      @Tool() when(_i: void): Date {
        return DAY;
      }
    }
    const log = memoryLogger('warn');
    const client = await connect(new Typed(), { logger: log.logger });
    expect(log.lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([
      'Typed.bytes: returns Buffer, which has no JSON form, so every call would answer a tool error; return image(…) or audio(…) content, an embedded resource with a blob, or a base64 string',
      'Typed.more_bytes: returns Uint8Array, which has no JSON form, so every call would answer a tool error; return image(…) or audio(…) content, an embedded resource with a blob, or a base64 string',
      'Typed.weak: returns WeakMap, which has no JSON form, so every call would answer a tool error; return a Map, an array or an object',
    ]);
    expect(JSON.parse(textOf(await client.callTool('fine')))).toEqual({ a: 1 });
    client.close();
    await expect(connect(new Typed(), { ...quietOptions(), strictDefinitions: true })).rejects.toThrow(/strictDefinitions makes these 3 warnings errors: Typed\.bytes: returns Buffer/);
  });
});
