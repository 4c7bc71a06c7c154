import 'reflect-metadata';
import { IsIn, IsOptional, IsString } from 'class-validator';
import pino from 'pino';
import { connect, type TestClient, rpcErrorOf } from '@mcpx/testing';
import { Complete, Field, McpServer, Prompt, Resource, ResourceTemplate, assistantMessage, embeddedResource, image, userMessage, type GetPromptResult, type RequestContext } from '../src';
import { type CompletionContext } from '../src/exports/registry';

const quiet = { logger: pino({ level: 'silent' }) };

class SummarizeArgs {
  @Field({ title: 'Note', description: 'The id of the note' }) @IsString() noteId!: string;
  @Field({ description: 'brief or detailed' }) @IsOptional() @IsIn(['brief', 'detailed']) style?: string;
}

class TranslateArgs {
  @IsString() text!: string;
  @IsString() language!: string;
}

const LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl'];
const MANY = Array.from({ length: 150 }, (_, i) => `item-${String(i).padStart(3, '0')}`);

class Prompts extends McpServer {
  received: unknown[] = [];
  completions: { value: string; context: CompletionContext }[] = [];
  readonly cities = ['Paris', 'Berlin', 'Prague'];

  @Prompt({ title: 'Summarise', description: 'Summarises a note' })
  summarize(args: SummarizeArgs, ctx: RequestContext) {
    this.received.push(args);
    return `Summarise note ${args.noteId} (${args.style ?? 'brief'}) via ${ctx.method}`;
  }

  @Prompt({
    description: 'Reviews code',
    arguments: [
      { name: 'code', description: 'The code', required: true },
      { name: 'focus', title: 'Focus', description: 'What to look at' },
    ],
  })
  review(args: Record<string, string>) {
    this.received.push(args);
    return [userMessage(`Review: ${args.code}`), assistantMessage(`Focusing on ${args.focus ?? 'everything'}`)];
  }

  @Prompt()
  translate(args: TranslateArgs) {
    return { description: `Translate to ${args.language}`, messages: [{ role: 'user', content: image('AAAA', 'image/png') }, args.text] };
  }

  @Prompt({ description: 'Listed description' })
  withDefaultDescription(_args: void) {
    return { messages: [userMessage(embeddedResource('mem://doc', 'the doc'))] };
  }

  @Prompt({ description: 'Listed description' })
  ownDescription(_args: void): GetPromptResult {
    return { description: 'Own description', messages: [assistantMessage('hi')], _meta: { k: 1 } };
  }

  @Prompt()
  noDescription(_args: void) {
    return 'plain';
  }

  @Complete({ prompt: 'summarize', argument: 'style' })
  completeStyle(value: string, context: CompletionContext) {
    this.completions.push({ value, context });
    return ['brief', 'detailed'].filter((s) => s.startsWith(value));
  }

  @Complete({ prompt: 'translate', argument: 'language' })
  completeLanguage(value: string, context: CompletionContext) {
    this.completions.push({ value, context });
    return LANGUAGES.filter((l) => l.startsWith(value));
  }

  @Complete({ prompt: 'translate', argument: 'text' })
  completeText(_value: string) {
    return MANY;
  }

  @Resource({ uri: 'mem://fixed' })
  fixed() {
    return 'fixed';
  }

  @ResourceTemplate({ uriTemplate: 'mem://repos/{owner}/{repo}' })
  repo({ owner, repo }: { owner: string; repo: string }) {
    return `${owner}/${repo}`;
  }

  @Complete({ template: 'mem://repos/{owner}/{repo}', argument: 'repo' })
  async completeRepo(value: string, context: CompletionContext) {
    this.completions.push({ value, context });
    const owner = context.arguments.owner ?? 'nobody';
    return { values: [`${owner}-app`, `${owner}-lib`].filter((r) => r.startsWith(value)), total: 2, hasMore: false };
  }

  @ResourceTemplate({
    uriTemplate: 'mem://cities/{city}',
    complete: {
      city: function (this: Prompts, value: string) {
        return this.cities.filter((c) => c.toLowerCase().startsWith(value.toLowerCase()));
      },
    },
  })
  city({ city }: { city: string }) {
    return city;
  }

  @ResourceTemplate({ uriTemplate: 'mem://big/{id}' })
  big({ id }: { id: string }) {
    return id;
  }

  @Complete({ template: 'mem://big/{id}', argument: 'id' })
  completeBig(_value: string) {
    return { values: MANY, total: 1000 };
  }
}

describe('prompts', () => {
  let server: Prompts;
  let client: TestClient;

  beforeEach(async () => {
    server = new Prompts();
    client = await connect(server, quiet);
  });

  describe('prompts/list', () => {
    it('lists arguments from the argument class, with required and description', async () => {
      const prompts = await client.listAll('prompts');
      expect(prompts.find((p) => p.name === 'summarize')).toEqual({
        name: 'summarize',
        title: 'Summarise',
        description: 'Summarises a note',
        arguments: [
          { name: 'noteId', title: 'Note', description: 'The id of the note', required: true },
          { name: 'style', description: 'brief or detailed', required: false },
        ],
      });
      expect(prompts.find((p) => p.name === 'translate').arguments).toEqual([
        { name: 'text', required: true },
        { name: 'language', required: true },
      ]);
    });

    it('lists arguments given as the arguments option', async () => {
      const prompts = await client.listAll('prompts');
      expect(prompts.find((p) => p.name === 'review')).toEqual({
        name: 'review',
        description: 'Reviews code',
        arguments: [
          { name: 'code', description: 'The code', required: true },
          { name: 'focus', title: 'Focus', description: 'What to look at' },
        ],
      });
    });

    it('lists no arguments for a prompt without any', async () => {
      const prompts = await client.listAll('prompts');
      expect(prompts.find((p) => p.name === 'noDescription')).toEqual({ name: 'noDescription' });
    });
  });

  describe('prompts/get', () => {
    it('passes validated arguments as an instance of the argument class', async () => {
      const result = await client.getPrompt('summarize', { noteId: 'n1', style: 'detailed' });
      expect(result).toEqual({
        description: 'Summarises a note',
        messages: [{ role: 'user', content: { type: 'text', text: 'Summarise note n1 (detailed) via prompts/get' } }],
      });
      expect(server.received[0]).toBeInstanceOf(SummarizeArgs);
    });

    it('answers a missing required argument with -32602', async () => {
      const error = await rpcErrorOf(client.getPrompt('summarize', { style: 'brief' }));
      expect(error.code).toBe(-32602);
      expect(error.message).toContain('noteId');
      expect((error.data as { issues: { path: string }[] }).issues.map((i) => i.path)).toContain('noteId');
      const none = await rpcErrorOf(client.getPrompt('summarize'));
      expect(none.code).toBe(-32602);
      expect(server.received).toHaveLength(0);
    });

    it('answers an invalid or unknown argument with -32602', async () => {
      expect((await rpcErrorOf(client.getPrompt('summarize', { noteId: 'n', style: 'epic' }))).code).toBe(-32602);
      const unknown = await rpcErrorOf(client.getPrompt('summarize', { noteId: 'n', mood: 'happy' }));
      expect(unknown.code).toBe(-32602);
      expect(unknown.message).toContain('mood');
    });

    it('checks arguments given as the arguments option', async () => {
      const result = await client.getPrompt('review', { code: 'x = 1' });
      expect(result.messages).toEqual([
        { role: 'user', content: { type: 'text', text: 'Review: x = 1' } },
        { role: 'assistant', content: { type: 'text', text: 'Focusing on everything' } },
      ]);
      expect(server.received[0]).toEqual({ code: 'x = 1' });
      const missing = await rpcErrorOf(client.getPrompt('review', { focus: 'naming' }));
      expect(missing.code).toBe(-32602);
      expect(missing.message).toContain('code');
      const unknown = await rpcErrorOf(client.getPrompt('review', { code: 'x', other: 'y' }));
      expect(unknown.code).toBe(-32602);
      expect(unknown.message).toContain('other');
      const notString = await rpcErrorOf(client.request('prompts/get', { name: 'review', arguments: { code: 5 } }));
      expect(notString.code).toBe(-32602);
    });

    it('answers an unknown prompt with -32602', async () => {
      const error = await rpcErrorOf(client.getPrompt('nope'));
      expect(error.code).toBe(-32602);
      expect(error.message).toContain('nope');
    });

    it('answers non-object arguments with -32602', async () => {
      expect((await rpcErrorOf(client.request('prompts/get', { name: 'review', arguments: ['x'] }))).code).toBe(-32602);
    });

    it('shapes message lists with mixed entries', async () => {
      expect(await client.getPrompt('translate', { text: 'hallo', language: 'en' })).toEqual({
        description: 'Translate to en',
        messages: [
          { role: 'user', content: { type: 'image', data: 'AAAA', mimeType: 'image/png' } },
          { role: 'user', content: { type: 'text', text: 'hallo' } },
        ],
      });
    });

    it('uses the listed description unless the result has its own', async () => {
      expect(await client.getPrompt('withDefaultDescription')).toEqual({
        description: 'Listed description',
        messages: [{ role: 'user', content: { type: 'resource', resource: { uri: 'mem://doc', text: 'the doc' } } }],
      });
      expect(await client.getPrompt('ownDescription')).toEqual({
        description: 'Own description',
        messages: [{ role: 'assistant', content: { type: 'text', text: 'hi' } }],
        _meta: { k: 1 },
      });
      expect(await client.getPrompt('noDescription')).toEqual({ messages: [{ role: 'user', content: { type: 'text', text: 'plain' } }] });
    });
  });
});

describe('completion/complete', () => {
  let server: Prompts;
  let client: TestClient;

  beforeEach(async () => {
    server = new Prompts();
    client = await connect(server, quiet);
  });

  it('completes a prompt argument with the value typed so far', async () => {
    const result = await client.complete({ type: 'ref/prompt', name: 'translate' }, { name: 'language', value: 'd' });
    expect(result).toEqual({ completion: { values: ['de'], total: 1, hasMore: false } });
    expect(server.completions).toEqual([{ value: 'd', context: { arguments: {} } }]);
  });

  it('passes context.arguments through to the completer', async () => {
    await client.complete({ type: 'ref/prompt', name: 'summarize' }, { name: 'style', value: 'b' }, { noteId: 'n7' });
    expect(server.completions).toEqual([{ value: 'b', context: { arguments: { noteId: 'n7' } } }]);
    const result = await client.complete({ type: 'ref/resource', uri: 'mem://repos/{owner}/{repo}' }, { name: 'repo', value: 'ada-a' }, { owner: 'ada' });
    expect(result).toEqual({ completion: { values: ['ada-app'], total: 2, hasMore: false } });
    expect(server.completions[1]).toEqual({ value: 'ada-a', context: { arguments: { owner: 'ada' } } });
  });

  it('completes a template variable given with the complete option, with this bound to the server', async () => {
    const result = await client.complete({ type: 'ref/resource', uri: 'mem://cities/{city}' }, { name: 'city', value: 'p' });
    expect(result.completion.values).toEqual(['Paris', 'Prague']);
  });

  it('truncates more than 100 values and says there are more', async () => {
    const result = await client.complete({ type: 'ref/prompt', name: 'translate' }, { name: 'text', value: '' });
    expect(result.completion.values).toHaveLength(100);
    expect(result.completion.values).toEqual(MANY.slice(0, 100));
    expect(result.completion.total).toBe(150);
    expect(result.completion.hasMore).toBe(true);
  });

  it('truncates an object result to 100 values, keeping its total', async () => {
    const result = await client.complete({ type: 'ref/resource', uri: 'mem://big/{id}' }, { name: 'id', value: '' });
    expect(result.completion.values).toHaveLength(100);
    expect(result.completion.total).toBe(1000);
    expect(result.completion.hasMore).toBe(true);
  });

  it('answers empty values when there is no completer', async () => {
    const empty = { completion: { values: [], total: 0, hasMore: false } };
    expect(await client.complete({ type: 'ref/prompt', name: 'summarize' }, { name: 'noteId', value: 'x' })).toEqual(empty);
    expect(await client.complete({ type: 'ref/resource', uri: 'mem://repos/{owner}/{repo}' }, { name: 'owner', value: 'a' })).toEqual(empty);
    expect(await client.complete({ type: 'ref/resource', uri: 'mem://fixed' }, { name: 'x', value: '' })).toEqual(empty);
  });

  it('answers an unknown prompt, template, argument or variable with -32602', async () => {
    const cases = [
      client.complete({ type: 'ref/prompt', name: 'nope' }, { name: 'x', value: '' }),
      client.complete({ type: 'ref/prompt', name: 'summarize' }, { name: 'nope', value: '' }),
      client.complete({ type: 'ref/resource', uri: 'mem://unknown/{x}' }, { name: 'x', value: '' }),
      client.complete({ type: 'ref/resource', uri: 'mem://repos/{owner}/{repo}' }, { name: 'branch', value: '' }),
    ];
    for (const pending of cases) expect((await rpcErrorOf(pending)).code).toBe(-32602);
  });

  it('answers malformed requests with -32602', async () => {
    const bad = [
      {},
      { ref: { type: 'ref/prompt', name: 'summarize' } },
      { ref: { type: 'ref/tool', name: 'x' }, argument: { name: 'a', value: '' } },
      { ref: { type: 'ref/prompt', name: 'summarize' }, argument: { name: 'style' } },
      { ref: 'summarize', argument: { name: 'style', value: '' } },
    ];
    for (const params of bad) expect((await rpcErrorOf(client.request('completion/complete', params))).code).toBe(-32602);
  });
});
