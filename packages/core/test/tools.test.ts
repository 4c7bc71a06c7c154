import 'reflect-metadata';
import { ArrayMinSize, IsIn, IsInt, IsOptional, IsString, Max, Min, MinLength, ValidateNested } from 'class-validator';
import { Type } from 'class-transformer';
import { connect, type TestClient, rpcErrorOf, memoryLogger } from '@mcpx/testing';
import { Field, McpError, Tool, audio, embeddedResource, image, resourceLink, text, toolError, type CallToolResult, type RequestContext } from '../src';

const textOf = (result: CallToolResult) => result.content.map((c) => (c as { text: string }).text).join('\n');

class SearchInput {
  @Field({ description: 'What to look for' }) @IsString() @MinLength(1) query!: string;
  @IsOptional() @IsInt() @Min(1) @Max(50) limit?: number;
  @IsOptional() @IsIn(['asc', 'desc']) order?: 'asc' | 'desc';
}

class OptionalOnly {
  @IsOptional() @IsString() filter?: string;
}

class Address {
  @IsString() city!: string;
  @IsOptional() @IsString() zip?: string;
}

class LineItem {
  @IsString() sku!: string;
  @IsInt() @Min(1) qty!: number;
}

class OrderInput {
  @IsString() customer!: string;
  @ValidateNested() @Type(() => Address) address!: Address;
  @ValidateNested({ each: true }) @Type(() => LineItem) @ArrayMinSize(1) items!: LineItem[];
}

class Hit {
  @IsString() id!: string;
  @IsInt() score!: number;
}

class SearchOutput {
  @ValidateNested({ each: true }) @Type(() => Hit) hits!: Hit[];
  @IsInt() total!: number;
}

/** Returned as an instance: getters and methods are not part of the structured content. */
class SearchOutputWithMethods extends SearchOutput {
  describe(): string {
    return `${this.total} hits`;
  }
}

class Tools {
  seen: unknown[] = [];

  @Tool({ description: 'Searches' })
  search(input: SearchInput, ctx: RequestContext) {
    this.seen.push(input);
    return `${input.query}:${input.limit ?? 'none'}:${input.order ?? 'none'}:${ctx.method}`;
  }

  @Tool()
  optional(input: OptionalOnly) {
    this.seen.push(input);
    return `filter=${input.filter ?? '(none)'}`;
  }

  @Tool()
  order(input: OrderInput) {
    this.seen.push(input);
    return `${input.customer} in ${input.address.city}: ${input.items.map((i) => `${i.qty}x${i.sku}`).join(', ')}`;
  }

  @Tool({ output: SearchOutput })
  structured(input: SearchInput): SearchOutput {
    return { hits: [{ id: input.query, score: 3 }], total: 1 };
  }

  @Tool({ output: SearchOutput })
  structuredInstance(_input: void): SearchOutput {
    const out = new SearchOutputWithMethods();
    const hit = new Hit();
    hit.id = 'h';
    hit.score = 1;
    out.hits = [hit];
    out.total = 1;
    return out;
  }

  @Tool({ output: SearchOutput })
  structuredWithContent(_input: void): CallToolResult {
    return { content: [text('one hit')], structuredContent: { hits: [{ id: 'x', score: 1 }], total: 1 } };
  }

  @Tool({ output: SearchOutput })
  structuredError(_input: void): CallToolResult {
    return toolError('no index');
  }

  @Tool({ output: SearchOutput })
  extraOutput(_input: void) {
    return { hits: [{ id: 'a', score: 2, internalRank: 0.3 }], total: 1, secretToken: 'abc' };
  }

  @Tool({ output: SearchOutput })
  badOutput(_input: void) {
    return { hits: [{ id: 7, score: 'high' }] };
  }

  @Tool({ output: SearchOutput })
  arrayOutput(_input: void) {
    return [{ hits: [], total: 0 }];
  }

  @Tool({
    outputSchema: {
      type: 'object',
      properties: { sum: { type: 'number' } },
      required: ['sum'],
      additionalProperties: false,
    },
  })
  rawOutput(_input: void) {
    return { sum: 3 };
  }

  @Tool({ outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] } })
  rawOutputBad(_input: void) {
    return { total: 3 };
  }

  @Tool()
  fails(_input: void): string {
    throw new Error('the disk is full');
  }

  @Tool()
  failsWithString(_input: void): string {
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- what the test is about
    throw 'plain string thrown';
  }

  @Tool()
  protocolError(_input: void): string {
    throw McpError.invalidParams('bad combination', { field: 'x' });
  }

  @Tool()
  returnsString(_input: void) {
    return 'hello';
  }
  @Tool()
  returnsBlock(_input: void) {
    return image(Buffer.from([1, 2, 3]), 'image/png');
  }
  @Tool()
  returnsBlocks(_input: void) {
    return [text('a'), audio('AAAA', 'audio/wav'), 'b', resourceLink({ uri: 'mem://x', name: 'x' }), embeddedResource('mem://y', 'inline', { mimeType: 'text/plain' })];
  }
  @Tool()
  returnsResult(_input: void): CallToolResult {
    return { content: [text('partial')], isError: true, _meta: { retry: true } };
  }
  @Tool()
  returnsObject(_input: void) {
    return { answer: 42, nested: { ok: true } };
  }
  @Tool()
  returnsNumber(_input: void) {
    return 7;
  }
  @Tool()
  returnsNothing(_input: void) {}
}

describe('tools/call', () => {
  let server: Tools;
  let client: TestClient;
  let lines: Record<string, any>[];

  beforeEach(async () => {
    server = new Tools();
    const memory = memoryLogger();
    lines = memory.lines;
    client = await connect(server, { logger: memory.logger });
  });

  describe('arguments', () => {
    it('treats a call without arguments as a call with {}', async () => {
      const raw = await client.request<CallToolResult>('tools/call', { name: 'optional' });
      expect(raw).toEqual({ content: [{ type: 'text', text: 'filter=(none)' }] });
      const missing = await client.request<CallToolResult>('tools/call', { name: 'search' });
      expect(missing.isError).toBe(true);
      expect(textOf(missing)).toContain('query');
    });

    it.each([
      ['an array', [1, 2]],
      ['a string', 'query=x'],
      ['a number', 5],
      ['null', null],
    ])('answers arguments that are %s with -32602', async (_what, args) => {
      const error = await rpcErrorOf(client.request('tools/call', { name: 'search', arguments: args }));
      expect(error.code).toBe(-32602);
      expect(error.message).toContain('arguments');
      expect(server.seen).toHaveLength(0);
    });

    it('answers an unknown tool with -32602', async () => {
      const error = await rpcErrorOf(client.callTool('nope', {}));
      expect(error.code).toBe(-32602);
      expect(error.message).toContain('nope');
    });

    it('answers a missing or non-string name with -32602', async () => {
      expect((await rpcErrorOf(client.request('tools/call', { arguments: {} }))).code).toBe(-32602);
      expect((await rpcErrorOf(client.request('tools/call', { name: 3 }))).code).toBe(-32602);
    });

    it('passes valid arguments as an instance of the input class', async () => {
      const result = await client.callTool('search', { query: 'cats', limit: 5, order: 'asc' });
      expect(result).toEqual({ content: [{ type: 'text', text: 'cats:5:asc:tools/call' }] });
      expect(server.seen[0]).toBeInstanceOf(SearchInput);
    });

    it('reports every invalid field as a tool execution error', async () => {
      const result = await client.callTool('search', { query: '', limit: 100, order: 'sideways', extra: 1 });
      expect(result.isError).toBe(true);
      expect(result).not.toHaveProperty('structuredContent');
      const message = textOf(result);
      expect(message).toMatch(/^Invalid arguments:/);
      for (const field of ['query', 'limit', 'order', 'extra']) expect(message).toContain(`- ${field}: `);
      expect(server.seen).toHaveLength(0);
    });

    it('reports wrong types', async () => {
      const result = await client.callTool('search', { query: 42, limit: '5' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('query');
      expect(textOf(result)).toContain('limit');
    });

    it('reports errors in nested classes with their paths', async () => {
      const result = await client.callTool('order', {
        customer: 'ada',
        address: { zip: 1 },
        items: [{ sku: 'a', qty: 1 }, { sku: 'b', qty: 0 }, { qty: 2 }],
      });
      expect(result.isError).toBe(true);
      const message = textOf(result);
      expect(message).toContain('- address.city: ');
      expect(message).toContain('- address.zip: ');
      expect(message).toContain('- items[1].qty: ');
      expect(message).toContain('- items[2].sku: ');
      expect(message).not.toContain('items[0]');
    });

    it('builds nested class instances for valid nested input', async () => {
      const result = await client.callTool('order', { customer: 'ada', address: { city: 'Paris' }, items: [{ sku: 'a', qty: 2 }] });
      expect(textOf(result)).toBe('ada in Paris: 2xa');
      const input = server.seen[0] as OrderInput;
      expect(input.address).toBeInstanceOf(Address);
      expect(input.items[0]).toBeInstanceOf(LineItem);
    });
  });

  describe('output schema', () => {
    it('lists the output class as outputSchema', async () => {
      const tools = await client.listAll('tools');
      const structured = tools.find((t) => t.name === 'structured');
      expect(structured.outputSchema).toMatchObject({
        type: 'object',
        properties: { hits: { type: 'array', items: { $ref: '#/$defs/Hit' } }, total: { type: 'integer' } },
        required: ['hits', 'total'],
        $defs: { Hit: { type: 'object', required: ['id', 'score'] } },
      });
      expect(tools.find((t) => t.name === 'search')).not.toHaveProperty('outputSchema');
      expect(tools.find((t) => t.name === 'rawOutput').outputSchema).toEqual({
        type: 'object',
        properties: { sum: { type: 'number' } },
        required: ['sum'],
        additionalProperties: false,
      });
    });

    it('returns structuredContent and a text copy of it', async () => {
      const result = await client.callTool('structured', { query: 'q' });
      const structured = { hits: [{ id: 'q', score: 3 }], total: 1 };
      expect(result.structuredContent).toEqual(structured);
      expect(result.content).toHaveLength(1);
      expect(JSON.parse(textOf(result))).toEqual(structured);
      expect(result.isError).toBeUndefined();
    });

    it('turns a returned class instance into plain structured content', async () => {
      const result = await client.callTool('structuredInstance');
      expect(result.structuredContent).toEqual({ hits: [{ id: 'h', score: 1 }], total: 1 });
    });

    it('keeps content the tool wrote itself next to structuredContent', async () => {
      const result = await client.callTool('structuredWithContent');
      expect(result).toEqual({
        content: [{ type: 'text', text: 'one hit' }],
        structuredContent: { hits: [{ id: 'x', score: 1 }], total: 1 },
      });
    });

    it('leaves properties the output class does not declare out of structuredContent and its text copy', async () => {
      const result = await client.callTool('extraOutput');
      expect(result.structuredContent).toEqual({ hits: [{ id: 'a', score: 2 }], total: 1 });
      expect(textOf(result)).not.toContain('secretToken');
      expect(JSON.parse(textOf(result))).toEqual({ hits: [{ id: 'a', score: 2 }], total: 1 });
    });

    it('passes an error result through without structured content', async () => {
      const result = await client.callTool('structuredError');
      expect(result).toEqual({ content: [{ type: 'text', text: 'no index' }], isError: true });
    });

    it('validates a raw outputSchema', async () => {
      expect((await client.callTool('rawOutput')).structuredContent).toEqual({ sum: 3 });
      const error = await rpcErrorOf(client.callTool('rawOutputBad'));
      expect(error.code).toBe(-32603);
    });

    it.each(['badOutput', 'arrayOutput'])('answers %s, a result that breaks the output schema, with -32603 and logs the tool', async (name) => {
      const error = await rpcErrorOf(client.callTool(name));
      expect(error.code).toBe(-32603);
      expect(error.message).toContain(name);
      const logged = lines.find((l) => l.level === 50 && l.tool === name);
      expect(logged).toBeDefined();
      expect(logged!.msg).toContain(name);
      expect(logged!.source).toBe(`Tools.${name}`);
      expect(logged!.issues.length).toBeGreaterThan(0);
    });
  });

  describe('failures inside the tool', () => {
    it('turns a thrown Error into an isError result with its message, and logs it', async () => {
      const result = await client.callTool('fails');
      expect(result).toEqual({ content: [{ type: 'text', text: 'the disk is full' }], isError: true });
      const logged = lines.find((l) => l.msg === 'tool failed');
      expect(logged).toMatchObject({ tool: 'fails', level: 40 });
      expect(logged!.err.message).toBe('the disk is full');
    });

    it('turns a thrown non-Error into an isError result', async () => {
      const result = await client.callTool('failsWithString');
      expect(result).toEqual({ content: [{ type: 'text', text: 'plain string thrown' }], isError: true });
    });

    it('answers a thrown McpError with that protocol error', async () => {
      const error = await rpcErrorOf(client.callTool('protocolError'));
      expect(error).toMatchObject({ code: -32602, message: 'bad combination', data: { field: 'x' } });
    });
  });

  describe('result shapes', () => {
    it('wraps a string in a text block', async () => {
      expect(await client.callTool('returnsString')).toEqual({ content: [{ type: 'text', text: 'hello' }] });
    });

    it('wraps one content block', async () => {
      expect(await client.callTool('returnsBlock')).toEqual({
        content: [{ type: 'image', data: Buffer.from([1, 2, 3]).toString('base64'), mimeType: 'image/png' }],
      });
    });

    it('keeps an array of blocks, turning strings into text', async () => {
      expect(await client.callTool('returnsBlocks')).toEqual({
        content: [
          { type: 'text', text: 'a' },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
          { type: 'text', text: 'b' },
          { type: 'resource_link', uri: 'mem://x', name: 'x' },
          { type: 'resource', resource: { uri: 'mem://y', mimeType: 'text/plain', text: 'inline' } },
        ],
      });
    });

    it('passes a CallToolResult through', async () => {
      expect(await client.callTool('returnsResult')).toEqual({
        content: [{ type: 'text', text: 'partial' }],
        isError: true,
        _meta: { retry: true },
      });
    });

    it('serialises a plain object or number as JSON text', async () => {
      const object = await client.callTool('returnsObject');
      expect(object.content).toHaveLength(1);
      expect(JSON.parse(textOf(object))).toEqual({ answer: 42, nested: { ok: true } });
      expect(object).not.toHaveProperty('structuredContent');
      expect(await client.callTool('returnsNumber')).toEqual({ content: [{ type: 'text', text: '7' }] });
    });

    it('answers undefined with empty content', async () => {
      expect(await client.callTool('returnsNothing')).toEqual({ content: [] });
    });
  });
});
