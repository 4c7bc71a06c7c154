import 'reflect-metadata';
import { Prompt, Resource, Server, Tool, type Caller, type Principal } from '@mcpx/core';

import { INSUFFICIENT_SCOPE } from '@mcpx/core/protocol';
import { connect, quietOptions, rpcErrorOf, type ConnectOptions } from '@mcpx/testing';

const tenantOf = (caller: Caller) => caller.principal?.claims.tenant;

@Server({ name: 'catalogs', version: '1.0.0' })
class Catalogs {
  callers: Caller[] = [];

  @Tool()
  echo() {
    return 'echo';
  }

  @Tool({ tags: ['acme'], visible: (caller) => tenantOf(caller) === 'acme' })
  acmeReport() {
    return 'acme report';
  }

  // An async rule, with scopes: a caller it hides from must not learn of the scopes either.
  @Tool({ scopes: ['admin'], visible: async (caller) => Promise.resolve(tenantOf(caller) === 'globex') })
  globexPurge() {
    return 'purged';
  }

  @Tool({ tags: ['beta'] })
  betaThing() {
    return 'beta';
  }

  @Tool({
    visible(this: void, caller) {
      seen.push(caller);
      return true;
    },
  })
  recorded() {
    return 'recorded';
  }

  @Prompt({ visible: (caller) => tenantOf(caller) === 'acme' })
  acmePrompt() {
    return 'acme prompt';
  }

  @Resource({ uri: 'notes://acme', name: 'acme-notes', visible: (caller) => tenantOf(caller) === 'acme' })
  acmeNotes() {
    return 'acme notes';
  }
}
const seen: Caller[] = [];

const principal = (subject: string, tenant: string, ...scopes: string[]): Principal => ({ subject, scopes, claims: { sub: subject, tenant } });
const acme = principal('alice', 'acme');
const globex = principal('bob', 'globex');

const eras: [string, ConnectOptions][] = [
  ['2025-11-25', {}],
  ['2026-07-28', { protocolVersion: '2026-07-28' }],
];

describe.each(eras)('per-caller catalogs (%s)', (era, eraOptions) => {
  const as = (who: Principal, extra: Record<string, unknown> = {}) => connect(new Catalogs(), { ...quietOptions(), ...eraOptions, principal: who, ...extra });

  it('two principals see different lists of tools, prompts and resources', async () => {
    const a = await as(acme);
    const b = await as(principal('bob', 'globex', 'admin'));
    expect((await a.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'acmeReport', 'betaThing', 'recorded']);
    expect((await b.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'globexPurge', 'betaThing', 'recorded']);
    expect((await a.listPrompts()).prompts.map((p) => p.name)).toEqual(['acmePrompt']);
    expect((await b.listPrompts()).prompts).toEqual([]);
    expect((await a.listResources()).resources.map((r) => r.uri)).toEqual(['notes://acme']);
    expect((await b.listResources()).resources).toEqual([]);
    expect(JSON.stringify((await a.listTools()).tools)).not.toMatch(/tags|visible/);
  });

  it('a hidden entry answers exactly as an unknown name does, before any scope check', async () => {
    const a = await as(acme);
    const hidden = await rpcErrorOf(a.callTool('globexPurge'));
    const unknown = await rpcErrorOf(a.callTool('noSuchTool'));
    expect(hidden.code).toBe(unknown.code);
    expect(hidden.message).toBe('Unknown tool: globexPurge');
    expect(unknown.message).toBe('Unknown tool: noSuchTool');
    expect(hidden.data).toEqual(unknown.data);
    const prompt = await rpcErrorOf((await as(globex)).request('prompts/get', { name: 'acmePrompt' }));
    expect([prompt.code, prompt.message]).toEqual([-32602, 'Unknown prompt: acmePrompt']);
    const read = await rpcErrorOf((await as(globex)).request('resources/read', { uri: 'notes://acme' }));
    const missing = await rpcErrorOf((await as(globex)).request('resources/read', { uri: 'notes://none' }));
    expect([read.code, read.message.replace('acme', 'none')]).toEqual([missing.code, missing.message]);
  });

  it('a visible entry is still scope-checked, and calls work', async () => {
    expect((await rpcErrorOf((await as(globex)).callTool('globexPurge'))).code).toBe(INSUFFICIENT_SCOPE);
    expect(await (await as(principal('bob', 'globex', 'admin'))).callTool('globexPurge')).toMatchObject({ content: [{ type: 'text', text: 'purged' }] });
    expect(await (await as(acme)).callTool('acmeReport')).toMatchObject({ content: [{ type: 'text', text: 'acme report' }] });
  });

  it('includeTags / excludeTags select entries for everyone', async () => {
    const excluded = await as(acme, { excludeTags: ['beta'] });
    expect((await excluded.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'acmeReport', 'recorded']);
    expect((await rpcErrorOf(excluded.callTool('betaThing'))).message).toBe('Unknown tool: betaThing');
    const included = await as(acme, { includeTags: ['acme'] });
    expect((await included.listTools()).tools.map((t) => t.name)).toEqual(['acmeReport']);
    expect((await rpcErrorOf(included.callTool('echo'))).message).toBe('Unknown tool: echo');
  });

  it('the rule sees the principal, the era, the client and (2025) the session', async () => {
    seen.length = 0;
    const client = await as(acme, { clientInfo: { name: 'probe', version: '9' } });
    await client.callTool('recorded');
    const caller = seen.at(-1)!;
    expect(caller.principal?.subject).toBe('alice');
    expect(caller.era).toBe(era === '2025-11-25' ? 'legacy' : 'modern');
    expect(caller.clientInfo?.name).toBe('probe');
    if (era === '2025-11-25') expect(typeof caller.sessionId).toBe('string');
    else expect(caller.sessionId).toBeUndefined();
  });
});

@Server({ name: 'completable', version: '1.0.0' })
class Completable {
  @Prompt({ scopes: ['prompts:use'], arguments: [{ name: 'topic' }], complete: { topic: () => ['work'] }, visible: (caller) => tenantOf(caller) === 'acme' })
  summarize() {
    return 'Summarize';
  }
}

describe.each(eras)('completion of a hidden prompt (%s)', (_era, eraOptions) => {
  const complete = { ref: { type: 'ref/prompt', name: 'summarize' }, argument: { name: 'topic', value: 'w' } };

  it('answers as for an unknown prompt, and checks scopes once the prompt is visible', async () => {
    const hidden = await rpcErrorOf((await connect(new Completable(), { ...quietOptions(), ...eraOptions, principal: globex })).request('completion/complete', complete));
    expect([hidden.code, hidden.message]).toEqual([-32602, 'Unknown prompt: summarize']);
    const unscoped = await rpcErrorOf((await connect(new Completable(), { ...quietOptions(), ...eraOptions, principal: acme })).request('completion/complete', complete));
    expect(unscoped.code).toBe(INSUFFICIENT_SCOPE);
    const allowed = await connect(new Completable(), { ...quietOptions(), ...eraOptions, principal: principal('alice', 'acme', 'prompts:use') });
    expect(await allowed.request('completion/complete', complete)).toMatchObject({ completion: { values: ['work'] } });
  });
});
