import 'reflect-metadata';
import { IsString } from 'class-validator';
import pino from 'pino';
import { TestClient, connect, rpcErrorOf } from '@mcpx/testing';
import { McpServer, Prompt, Resource, ResourceTemplate, Server, Tool, createEngine } from '../src';

const quiet = { logger: pino({ level: 'silent' }) };

class TopicArgs {
  @IsString() topic!: string;
}

/** Five of each kind: the first two declared, the rest added at startup through the registry. */
@Server({ name: 'paged', version: '1.0.0' })
class Paged extends McpServer {
  @Tool()
  t1(_input: void) {
    return 't1';
  }
  @Tool()
  t2(_input: void) {
    return 't2';
  }
  @Resource({ uri: 'mem://r1' })
  r1() {
    return 'r1';
  }
  @Resource({ uri: 'mem://r2' })
  r2() {
    return 'r2';
  }
  @ResourceTemplate({ uriTemplate: 'mem://x1/{id}' })
  x1({ id }: { id: string }) {
    return id;
  }
  @ResourceTemplate({ uriTemplate: 'mem://x2/{id}' })
  x2({ id }: { id: string }) {
    return id;
  }
  @Prompt()
  p1(args: TopicArgs) {
    return args.topic;
  }
  @Prompt()
  p2(args: TopicArgs) {
    return args.topic;
  }

  override onServerInit(): void {
    for (const n of [3, 4, 5]) {
      this.registry.addTool({ name: `t${n}`, handler: () => `t${n}` });
      this.registry.addResource({ uri: `mem://r${n}`, name: `r${n}`, handler: () => `r${n}` });
      this.registry.addResourceTemplate({ uriTemplate: `mem://x${n}/{id}`, name: `x${n}`, handler: ({ id }) => id });
      this.registry.addPrompt({ name: `p${n}`, arguments: [{ name: 'topic', required: true }], handler: (a) => a.topic });
    }
  }
}

const KINDS = [
  { key: 'tools', method: 'tools/list', id: (e: any) => e.name, prefix: 't' },
  { key: 'resources', method: 'resources/list', id: (e: any) => e.name, prefix: 'r' },
  { key: 'resourceTemplates', method: 'resources/templates/list', id: (e: any) => e.name, prefix: 'x' },
  { key: 'prompts', method: 'prompts/list', id: (e: any) => e.name, prefix: 'p' },
] as const;

type Page = { items: string[]; nextCursor?: string };

async function page(client: TestClient, kind: (typeof KINDS)[number], cursor?: string): Promise<Page> {
  const result = await client.request<Record<string, any>>(kind.method, cursor === undefined ? undefined : { cursor });
  return { items: result[kind.key].map(kind.id), nextCursor: result.nextCursor };
}

describe('pagination', () => {
  let server: Paged;
  let client: TestClient;

  beforeEach(async () => {
    server = new Paged();
    client = await connect(server, { ...quiet, pageSize: 2 });
  });

  it.each(KINDS)('follows cursors through every page of $method', async (kind) => {
    const first = await page(client, kind);
    expect(first.items).toEqual([`${kind.prefix}1`, `${kind.prefix}2`]);
    expect(typeof first.nextCursor).toBe('string');
    const second = await page(client, kind, first.nextCursor);
    expect(second.items).toEqual([`${kind.prefix}3`, `${kind.prefix}4`]);
    const third = await page(client, kind, second.nextCursor);
    expect(third.items).toEqual([`${kind.prefix}5`]);
    expect(third).not.toHaveProperty('nextCursor', expect.anything());
    expect((await client.listAll(kind.key)).map(kind.id)).toEqual([1, 2, 3, 4, 5].map((n) => `${kind.prefix}${n}`));
  });

  it('sends no nextCursor on a last page that is exactly full', async () => {
    server.registry.tools.remove('t5');
    const first = await page(client, KINDS[0]);
    const second = await page(client, KINDS[0], first.nextCursor);
    expect(second.items).toEqual(['t3', 't4']);
    expect(second.nextCursor).toBeUndefined();
    const raw = await client.request('tools/list', { cursor: first.nextCursor });
    expect(Object.keys(raw)).toEqual(['tools']);
  });

  it('sends no nextCursor when only disabled entries follow', async () => {
    server.registry.tools.disable('t3');
    server.registry.tools.disable('t4');
    server.registry.tools.disable('t5');
    const first = await page(client, KINDS[0]);
    expect(first).toEqual({ items: ['t1', 't2'], nextCursor: undefined });
  });

  it('lists everything on one page with the default page size', async () => {
    const other = await connect(new Paged(), quiet);
    const result = await other.listTools();
    expect(result.tools.map((t) => t.name)).toEqual(['t1', 't2', 't3', 't4', 't5']);
    expect(result).not.toHaveProperty('nextCursor');
  });

  it('does not list disabled entries, and lists them again once enabled', async () => {
    server.registry.tools.disable('t2');
    server.registry.resources.disable('mem://r1');
    server.registry.templates.disable('mem://x3/{id}');
    server.registry.prompts.disable('p5');
    expect((await client.listAll('tools')).map((t) => t.name)).toEqual(['t1', 't3', 't4', 't5']);
    expect((await client.listAll('resources')).map((r) => r.name)).toEqual(['r2', 'r3', 'r4', 'r5']);
    expect((await client.listAll('resourceTemplates')).map((r) => r.name)).toEqual(['x1', 'x2', 'x4', 'x5']);
    expect((await client.listAll('prompts')).map((p) => p.name)).toEqual(['p1', 'p2', 'p3', 'p4']);
    await expect(client.callTool('t2')).rejects.toMatchObject({ code: -32602 });
    server.registry.tools.enable('t2');
    expect((await client.listAll('tools')).map((t) => t.name)).toEqual(['t1', 't2', 't3', 't4', 't5']);
  });

  describe('changes between pages neither skip nor repeat entries', () => {
    it('an entry added after the first page shows up at the end', async () => {
      const first = await page(client, KINDS[0]);
      server.registry.addTool({ name: 'added', handler: () => 'added' });
      const second = await page(client, KINDS[0], first.nextCursor);
      const third = await page(client, KINDS[0], second.nextCursor);
      expect([...first.items, ...second.items, ...third.items]).toEqual(['t1', 't2', 't3', 't4', 't5', 'added']);
      expect(third.nextCursor).toBeUndefined();
    });

    it('removing the entry the cursor points after does not shift the next page', async () => {
      const first = await page(client, KINDS[0]);
      server.registry.tools.remove('t2');
      const second = await page(client, KINDS[0], first.nextCursor);
      expect(second.items).toEqual(['t3', 't4']);
    });

    it('removing or disabling an already listed entry does not skip one', async () => {
      const first = await page(client, KINDS[0]);
      server.registry.tools.remove('t1');
      server.registry.tools.disable('t2');
      const second = await page(client, KINDS[0], first.nextCursor);
      const third = await page(client, KINDS[0], second.nextCursor);
      expect([...second.items, ...third.items]).toEqual(['t3', 't4', 't5']);
    });

    it('a removed or disabled entry not yet listed is left out, the rest is not skipped', async () => {
      const first = await page(client, KINDS[0]);
      server.registry.tools.remove('t3');
      server.registry.tools.disable('t4');
      const second = await page(client, KINDS[0], first.nextCursor);
      expect(second).toEqual({ items: ['t5'], nextCursor: undefined });
    });

    it('a re-added entry moves to the end and is listed once', async () => {
      const first = await page(client, KINDS[3]);
      server.registry.prompts.remove('p1');
      server.registry.addPrompt({ name: 'p1', handler: () => 'again' });
      const rest = [];
      let cursor = first.nextCursor;
      while (cursor) {
        const next = await page(client, KINDS[3], cursor);
        rest.push(...next.items);
        cursor = next.nextCursor;
      }
      expect(rest).toEqual(['p3', 'p4', 'p5', 'p1']);
    });

    it('a replaced entry keeps its place', async () => {
      server.registry.addTool({ name: 't2', description: 'replaced', handler: () => 'new' }, { replace: true });
      const tools = await client.listAll('tools');
      expect(tools.map((t) => t.name)).toEqual(['t1', 't2', 't3', 't4', 't5']);
      expect(tools[1].description).toBe('replaced');
    });
  });

  describe('invalid cursors are -32602', () => {
    it('rejects a cursor of another list kind', async () => {
      const tools = await page(client, KINDS[0]);
      const resources = await page(client, KINDS[1]);
      for (const method of ['prompts/list', 'resources/list', 'resources/templates/list']) {
        expect((await rpcErrorOf(client.request(method, { cursor: tools.nextCursor }))).code).toBe(-32602);
      }
      // resources and resource templates are separate lists
      expect((await rpcErrorOf(client.request('resources/templates/list', { cursor: resources.nextCursor }))).code).toBe(-32602);
      expect((await rpcErrorOf(client.request('tools/list', { cursor: resources.nextCursor }))).code).toBe(-32602);
    });

    it.each([
      ['garbage', 'not-a-cursor'],
      ['the empty string', ''],
      ['base64 of nonsense', Buffer.from('hello world').toString('base64url')],
      ['past the end', Buffer.from('tools:999').toString('base64url')],
      ['zero', Buffer.from('tools:0').toString('base64url')],
      ['a negative position', Buffer.from('tools:-1').toString('base64url')],
    ])('rejects %s', async (_what, cursor) => {
      const error = await rpcErrorOf(client.request('tools/list', { cursor }));
      expect(error.code).toBe(-32602);
      expect(error.message).toMatch(/cursor/i);
    });

    it('rejects a cursor that is not a string', async () => {
      expect((await rpcErrorOf(client.request('tools/list', { cursor: 3 }))).code).toBe(-32602);
      expect((await rpcErrorOf(client.request('prompts/list', { cursor: { page: 2 } }))).code).toBe(-32602);
    });

    it('cursors of one engine are not valid on a fresh one with fewer entries', async () => {
      const first = await page(client, KINDS[0]);
      const second = await page(client, KINDS[0], first.nextCursor);
      class Small {
        @Tool()
        only(_input: void) {
          return 'x';
        }
      }
      const small = createEngine(new Small(), quiet);
      const other = new TestClient(small);
      await other.initialize();
      expect((await rpcErrorOf(other.request('tools/list', { cursor: second.nextCursor }))).code).toBe(-32602);
    });
  });

  it('rejects a page size that is not a positive integer', () => {
    expect(() => createEngine(new Paged(), { ...quiet, pageSize: 0 })).toThrow(RangeError);
    expect(() => createEngine(new Paged(), { ...quiet, pageSize: 1.5 })).toThrow(RangeError);
  });
});
