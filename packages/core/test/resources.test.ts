import 'reflect-metadata';
import pino from 'pino';
import { connect, type TestClient, rpcErrorOf } from '@mcpx/testing';
import { McpServer, Resource, ResourceTemplate, type ReadResourceResult, type RequestContext } from '../src';

const quiet = { logger: pino({ level: 'silent' }) };

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);

class Files extends McpServer {
  calls: { variables: Record<string, string | string[]>; method: string }[] = [];

  @Resource({ uri: 'mem://readme', description: 'The readme', mimeType: 'text/markdown' })
  readme(ctx: RequestContext) {
    return `# Readme (${ctx.method})`;
  }

  @Resource({ uri: 'mem://plain' })
  plain() {
    return 'no mime type';
  }

  @Resource({ uri: 'mem://logo.png', mimeType: 'image/png' })
  logo() {
    return PNG;
  }

  @Resource({ uri: 'mem://bytes' })
  bytes() {
    // a view into a larger buffer: only the viewed bytes are sent
    return new Uint8Array([9, 9, 1, 2, 3, 9]).subarray(2, 5);
  }

  @Resource({ uri: 'mem://config' })
  config() {
    return { debug: true, level: 3 };
  }

  @Resource({ uri: 'mem://multi', mimeType: 'text/plain' })
  multi(): ReadResourceResult {
    return {
      contents: [
        { uri: 'mem://multi#1', text: 'one' },
        { uri: 'mem://multi#2', mimeType: 'application/octet-stream', blob: 'AAE=' },
      ],
      _meta: { parts: 2 },
    };
  }

  @Resource({ uri: 'mem://users/admin', mimeType: 'text/plain' })
  admin() {
    return 'the fixed admin resource';
  }

  @ResourceTemplate({ uriTemplate: 'mem://users/{user}/posts/{post}', name: 'post', mimeType: 'text/plain', description: 'A post' })
  post(variables: { user: string; post: string }, ctx: RequestContext) {
    this.calls.push({ variables, method: ctx.method });
    if (variables.post === 'missing') return undefined;
    if (variables.post === 'null') return null;
    return `post ${variables.post} by ${variables.user}`;
  }

  @ResourceTemplate({ uriTemplate: 'mem://users/{user}', name: 'user', mimeType: 'application/json' })
  user({ user }: { user: string }) {
    return JSON.stringify({ user });
  }

  @ResourceTemplate({ uriTemplate: 'mem://search{?q,tags*}', name: 'search' })
  search(variables: { q?: string; tags?: string | string[] }) {
    this.calls.push({ variables: variables as Record<string, string>, method: 'search' });
    return `q=${variables.q ?? ''}`;
  }
}

describe('resources', () => {
  let server: Files;
  let client: TestClient;

  beforeEach(async () => {
    server = new Files();
    client = await connect(server, quiet);
  });

  describe('resources/read of fixed resources', () => {
    it('returns a string as text with the declared mimeType', async () => {
      expect(await client.readResource('mem://readme')).toEqual({
        contents: [{ uri: 'mem://readme', mimeType: 'text/markdown', text: '# Readme (resources/read)' }],
      });
    });

    it('omits mimeType when none was declared', async () => {
      expect(await client.readResource('mem://plain')).toEqual({ contents: [{ uri: 'mem://plain', text: 'no mime type' }] });
    });

    it('returns a Buffer as a base64 blob', async () => {
      const result = await client.readResource('mem://logo.png');
      expect(result).toEqual({ contents: [{ uri: 'mem://logo.png', mimeType: 'image/png', blob: PNG.toString('base64') }] });
      expect(Buffer.from((result.contents[0] as { blob: string }).blob, 'base64')).toEqual(PNG);
    });

    it('encodes only the bytes a Uint8Array view covers', async () => {
      const result = await client.readResource('mem://bytes');
      expect(result.contents[0]).toEqual({ uri: 'mem://bytes', blob: Buffer.from([1, 2, 3]).toString('base64') });
    });

    it('returns any other value as JSON text', async () => {
      const result = await client.readResource('mem://config');
      expect(result.contents[0]).toEqual({ uri: 'mem://config', mimeType: 'application/json', text: JSON.stringify({ debug: true, level: 3 }) });
    });

    it('passes a ReadResourceResult through, filling in the declared mimeType where missing', async () => {
      expect(await client.readResource('mem://multi')).toEqual({
        contents: [
          { uri: 'mem://multi#1', mimeType: 'text/plain', text: 'one' },
          { uri: 'mem://multi#2', mimeType: 'application/octet-stream', blob: 'AAE=' },
        ],
        _meta: { parts: 2 },
      });
    });

    it('prefers an exact resource over a matching template', async () => {
      expect((await client.readResource('mem://users/admin')).contents[0]).toMatchObject({ text: 'the fixed admin resource' });
      expect((await client.readResource('mem://users/bob')).contents[0]).toEqual({
        uri: 'mem://users/bob',
        mimeType: 'application/json',
        text: '{"user":"bob"}',
      });
    });
  });

  describe('resources/read through templates', () => {
    it('passes the matched variables to the handler', async () => {
      const result = await client.readResource('mem://users/ada/posts/42');
      expect(result).toEqual({ contents: [{ uri: 'mem://users/ada/posts/42', mimeType: 'text/plain', text: 'post 42 by ada' }] });
      expect(server.calls).toEqual([{ variables: { user: 'ada', post: '42' }, method: 'resources/read' }]);
    });

    it('percent-decodes variables', async () => {
      const result = await client.readResource('mem://users/ada%20l/posts/a%2Fb');
      expect((result.contents[0] as { text: string }).text).toBe('post a/b by ada l');
    });

    it('matches query expressions', async () => {
      await client.readResource('mem://search?q=cats&tags=a&tags=b');
      expect(server.calls[0]!.variables).toEqual({ q: 'cats', tags: ['a', 'b'] });
    });

    it('answers -32002 with the uri when the template handler returns undefined or null', async () => {
      for (const uri of ['mem://users/ada/posts/missing', 'mem://users/ada/posts/null']) {
        const error = await rpcErrorOf(client.readResource(uri));
        expect(error.code).toBe(-32002);
        expect(error.data).toEqual({ uri });
        expect(error.message).toContain(uri);
      }
    });
  });

  describe('unknown resources', () => {
    it('answers -32002 with data.uri for a URI nothing matches', async () => {
      const error = await rpcErrorOf(client.readResource('other://nothing'));
      expect(error).toMatchObject({ code: -32002, data: { uri: 'other://nothing' } });
    });

    it('answers -32002 for a disabled resource', async () => {
      server.registry.resources.disable('mem://plain');
      expect((await rpcErrorOf(client.readResource('mem://plain'))).code).toBe(-32002);
    });

    it('answers -32602 when the uri is missing', async () => {
      expect((await rpcErrorOf(client.request('resources/read', {}))).code).toBe(-32602);
      expect((await rpcErrorOf(client.request('resources/read', { uri: 1 }))).code).toBe(-32602);
    });
  });

  describe('subscriptions', () => {
    it('subscribes to fixed resources and template matches', async () => {
      expect(await client.subscribe('mem://readme')).toEqual({});
      expect(await client.subscribe('mem://users/ada/posts/1')).toEqual({});
      expect([...client.session.subscriptions]).toEqual(['mem://readme', 'mem://users/ada/posts/1']);
      expect(await client.unsubscribe('mem://readme')).toEqual({});
      expect([...client.session.subscriptions]).toEqual(['mem://users/ada/posts/1']);
    });

    it('answers -32002 with the uri for a subscription to an unknown URI', async () => {
      const error = await rpcErrorOf(client.subscribe('other://nothing'));
      expect(error).toMatchObject({ code: -32002, data: { uri: 'other://nothing' } });
      expect(client.session.subscriptions.size).toBe(0);
    });

    it('accepts unsubscribing from something never subscribed', async () => {
      expect(await client.unsubscribe('mem://never')).toEqual({});
    });
  });

  describe('listing', () => {
    it('lists fixed resources with their definitions', async () => {
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toEqual(['mem://readme', 'mem://plain', 'mem://logo.png', 'mem://bytes', 'mem://config', 'mem://multi', 'mem://users/admin']);
      expect(resources[0]).toEqual({ uri: 'mem://readme', name: 'readme', description: 'The readme', mimeType: 'text/markdown' });
    });

    it('lists templates on resources/templates/list', async () => {
      expect(await client.listResourceTemplates()).toEqual({
        resourceTemplates: [
          { uriTemplate: 'mem://users/{user}/posts/{post}', name: 'post', mimeType: 'text/plain', description: 'A post' },
          { uriTemplate: 'mem://users/{user}', name: 'user', mimeType: 'application/json' },
          { uriTemplate: 'mem://search{?q,tags*}', name: 'search' },
        ],
      });
    });
  });
});

describe('resource edge cases', () => {
  class Edge {
    @Resource({ uri: 'mem://gone' })
    gone() {
      return undefined;
    }
  }

  it('a fixed resource whose handler returns nothing reads as not found (-32002)', async () => {
    const client = await connect(new Edge(), quiet);
    const err = await rpcErrorOf(client.readResource('mem://gone'));
    expect(err.code).toBe(-32002);
    expect(err.data).toEqual({ uri: 'mem://gone' });
  });

  it('subscribe and unsubscribe answer -32601 when the server declares no subscribe capability', async () => {
    const client = await connect(new Edge(), { ...quiet, capabilities: { resources: { subscribe: false, listChanged: true } } });
    expect(client.initializeResult?.capabilities.resources).toEqual({ subscribe: false, listChanged: true });
    expect((await rpcErrorOf(client.subscribe('mem://gone'))).code).toBe(-32601);
    expect((await rpcErrorOf(client.unsubscribe('mem://gone'))).code).toBe(-32601);
  });
});
