import 'reflect-metadata';
import { IsString } from 'class-validator';
import { DefinitionError, Prompt, Resource, ResourceTemplate, Server, Tool, Field, type Principal, type RequestContext } from '@mcpx/core';
import { INSUFFICIENT_SCOPE } from '@mcpx/core/protocol';
import { buildRegistry } from '@mcpx/core/transport';
import { connect, quietOptions, rpcErrorOf } from '@mcpx/testing';

class NoteInput {
  @Field() @IsString() text!: string;
}

@Server({ name: 'scoped', version: '1.0.0' })
class Scoped {
  seen: (Principal | undefined)[] = [];

  @Tool()
  whoami(_input: void, ctx: RequestContext) {
    this.seen.push(ctx.principal);
    return ctx.principal?.subject ?? 'nobody';
  }

  @Tool({ scopes: ['notes:write'] })
  write(input: NoteInput) {
    return `wrote ${input.text}`;
  }

  @Tool({ scopes: ['notes:write', 'admin'] })
  purge() {
    return 'purged';
  }

  @Resource({ uri: 'notes://public', name: 'public' })
  publicNote() {
    return 'hello';
  }

  @Resource({ uri: 'notes://secret', name: 'secret', scopes: ['notes:read'] })
  secretNote() {
    return 'shh';
  }

  @ResourceTemplate({ uriTemplate: 'notes://by-id/{id}', name: 'note', scopes: ['notes:read'], complete: { id: () => ['1', '2'] } })
  note(vars: { id: string }) {
    return `note ${vars.id}`;
  }

  @Prompt({ scopes: ['prompts:use'], arguments: [{ name: 'topic' }], complete: { topic: () => ['work', 'home'] } })
  summarize() {
    return 'Summarize the notes';
  }
}

const principal = (...scopes: string[]): Principal => ({ subject: 'alice', clientId: 'cli', scopes, claims: { sub: 'alice' } });

describe('entry scopes', () => {
  it('without a principal (no auth), nothing is checked and lists show everything', async () => {
    const client = await connect(new Scoped(), quietOptions());
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['whoami', 'write', 'purge']);
    expect(await client.callTool('purge')).toEqual({ content: [{ type: 'text', text: 'purged' }] });
    expect(await client.callTool('whoami')).toEqual({ content: [{ type: 'text', text: 'nobody' }] });
  });

  it('lists show a principal only what its scopes allow, and scopes never appear in definitions', async () => {
    const client = await connect(new Scoped(), { ...quietOptions(), principal: principal('notes:write') });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['whoami', 'write']);
    expect(JSON.stringify(tools)).not.toContain('scopes');
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['notes://public']);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
    expect((await client.listPrompts()).prompts).toEqual([]);
  });

  it('listOnlyPermitted: false lists everything; using an entry still needs its scopes', async () => {
    const client = await connect(new Scoped(), { ...quietOptions(), principal: principal(), listOnlyPermitted: false });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['whoami', 'write', 'purge']);
    const err = await rpcErrorOf(client.callTool('write', { text: 'x' }));
    expect(err.code).toBe(INSUFFICIENT_SCOPE);
  });

  it('a call without every scope of the entry is refused with the scopes it needs, before the handler runs', async () => {
    const client = await connect(new Scoped(), { ...quietOptions(), principal: principal('notes:write') });
    expect(await client.callTool('write', { text: 'x' })).toEqual({ content: [{ type: 'text', text: 'wrote x' }] });
    const err = await rpcErrorOf(client.callTool('purge'));
    expect({ code: err.code, message: err.message, data: err.data }).toEqual({
      code: INSUFFICIENT_SCOPE,
      message: 'Insufficient scope: tool "purge" needs notes:write admin',
      data: { requiredScopes: ['notes:write', 'admin'] },
    });
  });

  it('resources, templates, subscriptions and prompts check their scopes too', async () => {
    const reader = await connect(new Scoped(), { ...quietOptions(), principal: principal('notes:read', 'prompts:use') });
    expect((await reader.readResource('notes://secret')).contents[0]).toMatchObject({ text: 'shh' });
    expect((await reader.readResource('notes://by-id/7')).contents[0]).toMatchObject({ text: 'note 7' });
    expect((await reader.getPrompt('summarize')).messages).toHaveLength(1);

    expect((await reader.complete({ type: 'ref/prompt', name: 'summarize' }, { name: 'topic', value: '' })).completion.values).toEqual(['work', 'home']);
    expect((await reader.complete({ type: 'ref/resource', uri: 'notes://by-id/{id}' }, { name: 'id', value: '' })).completion.values).toEqual(['1', '2']);

    const nobody = await connect(new Scoped(), { ...quietOptions(), principal: principal() });
    // Completion would leak what a prompt or template offers: it needs their scopes too.
    expect((await rpcErrorOf(nobody.complete({ type: 'ref/prompt', name: 'summarize' }, { name: 'topic', value: '' }))).code).toBe(INSUFFICIENT_SCOPE);
    expect((await rpcErrorOf(nobody.complete({ type: 'ref/resource', uri: 'notes://by-id/{id}' }, { name: 'id', value: '' }))).code).toBe(INSUFFICIENT_SCOPE);
    expect((await nobody.readResource('notes://public')).contents[0]).toMatchObject({ text: 'hello' });
    for (const call of [nobody.readResource('notes://secret'), nobody.readResource('notes://by-id/7'), nobody.getPrompt('summarize')]) {
      expect((await rpcErrorOf(call)).code).toBe(INSUFFICIENT_SCOPE);
    }
  });

  it('the handler context carries the principal', async () => {
    const server = new Scoped();
    const client = await connect(server, { ...quietOptions(), principal: principal('x') });
    expect(await client.callTool('whoami')).toEqual({ content: [{ type: 'text', text: 'alice' }] });
    expect(server.seen).toEqual([principal('x')]);
  });

  it('the engine names the scopes a request needs, for transports that refuse before any work', async () => {
    const client = await connect(new Scoped(), quietOptions());
    const engine = client.engine;
    expect(engine.requiredScopes('tools/call', { name: 'purge' })).toEqual(['notes:write', 'admin']);
    expect(engine.requiredScopes('tools/call', { name: 'whoami' })).toEqual([]);
    expect(engine.requiredScopes('tools/call', { name: 'nope' })).toEqual([]);
    expect(engine.requiredScopes('resources/read', { uri: 'notes://by-id/3' })).toEqual(['notes:read']);
    expect(engine.requiredScopes('resources/subscribe', { uri: 'notes://secret' })).toEqual(['notes:read']);
    expect(engine.requiredScopes('prompts/get', { name: 'summarize' })).toEqual(['prompts:use']);
    expect(engine.requiredScopes('completion/complete', { ref: { type: 'ref/prompt', name: 'summarize' } })).toEqual(['prompts:use']);
    expect(engine.requiredScopes('completion/complete', { ref: { type: 'ref/resource', uri: 'notes://by-id/{id}' } })).toEqual(['notes:read']);
    expect(engine.requiredScopes('tools/list', {})).toEqual([]);
  });

  it('refuses a scope that is not a valid OAuth scope token, naming where it was declared', () => {
    @Server({ name: 'bad', version: '1.0.0' })
    class Bad {
      @Tool({ scopes: ['notes write'] })
      spaced() {
        return 'x';
      }
    }
    expect(() => buildRegistry([new Bad()])).toThrow(DefinitionError);
    expect(() => buildRegistry([new Bad()])).toThrow(/"notes write" is not a valid OAuth scope/);
  });
});
