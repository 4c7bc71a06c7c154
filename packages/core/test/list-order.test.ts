/**
 * tools/list order is deterministic (2026-07-28 server/tools: the same order across requests while
 * the set of tools is unchanged): it is the order entries were added, whatever happens between
 * requests. Declared tools come in declaration order (a base class's first), tools added by
 * onServerInit after them; a replaced tool keeps its place, disabling and enabling moves nothing,
 * and a tool removed and added again is a new one, at the end.
 */
import 'reflect-metadata';
import pino from 'pino';
import { connect } from '@mcpx/testing';
import { McpServer, Server, Tool, createEngine } from '../src';
import type { JsonRpcResponse, McpEngine } from '../src/transport';

const silent = { logger: pino({ level: 'silent' }) };
const modernMeta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

class Base extends McpServer {
  @Tool() zeta(_input: void) {
    return 'z';
  }
  @Tool() alpha(_input: void) {
    return 'a';
  }
}

@Server({ name: 'ordered', version: '1.0.0' })
class Ordered extends Base {
  @Tool() mid(_input: void) {
    return 'm';
  }
  @Tool() beta(_input: void) {
    return 'b';
  }

  override onServerInit(): void {
    this.registry.addTool({ name: 'late_b', handler: () => 'b' });
    this.registry.addTool({ name: 'late_a', handler: () => 'a' });
  }
}

const DECLARED = ['zeta', 'alpha', 'mid', 'beta', 'late_b', 'late_a'];

let nextId = 1;
async function modernList(engine: McpEngine): Promise<Record<string, any>[]> {
  const response = (await engine.modern.handle({ jsonrpc: '2.0', id: nextId++, method: 'tools/list', params: { _meta: modernMeta } }, { send() {} })) as JsonRpcResponse;
  if ('error' in response) throw new Error(response.error.message);
  return (response.result as { tools: Record<string, any>[] }).tools;
}
const names = (tools: Record<string, any>[]): string[] => tools.map((t) => t.name);

describe('tools/list order', () => {
  it('is declaration order (base class first), then what onServerInit added, the same on every request', async () => {
    const engine = createEngine(new Ordered(), silent);
    const first = await modernList(engine);
    expect(names(first)).toEqual(DECLARED);
    for (let i = 0; i < 5; i++) expect(await modernList(engine)).toEqual(first);
  });

  it('is the same for every engine built from the same server, and in both eras', async () => {
    const one = await modernList(createEngine(new Ordered(), silent));
    const other = await modernList(createEngine(new Ordered(), silent));
    expect(JSON.stringify(other)).toBe(JSON.stringify(one));
    const client = await connect(new Ordered(), silent);
    expect(names(await client.listAll('tools'))).toEqual(DECLARED);
    client.close();
  });

  it('does not change when tools are disabled and enabled again, or replaced', async () => {
    const server = new Ordered();
    const engine = createEngine(server, silent);
    const before = names(await modernList(engine));
    server.registry.tools.disable('alpha');
    server.registry.tools.disable('late_b');
    expect(names(await modernList(engine))).toEqual(['zeta', 'mid', 'beta', 'late_a']);
    server.registry.tools.enable('late_b');
    server.registry.tools.enable('alpha');
    expect(names(await modernList(engine))).toEqual(before);
    server.registry.addTool({ name: 'mid', description: 'replaced', handler: () => 'm2' }, { replace: true });
    const after = await modernList(engine);
    expect(names(after)).toEqual(before);
    expect(after[2].description).toBe('replaced');
  });

  it('puts a tool removed and added again at the end, and keeps it there', async () => {
    const server = new Ordered();
    const engine = createEngine(server, silent);
    server.registry.tools.remove('alpha');
    server.registry.addTool({ name: 'alpha', handler: () => 'a again' });
    const expected = ['zeta', 'mid', 'beta', 'late_b', 'late_a', 'alpha'];
    expect(names(await modernList(engine))).toEqual(expected);
    expect(names(await modernList(engine))).toEqual(expected);
  });

  it('pages follow the same order', async () => {
    const engine = createEngine(new Ordered(), { ...silent, pageSize: 4 });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const response = (await engine.modern.handle(
        { jsonrpc: '2.0', id: nextId++, method: 'tools/list', params: { _meta: modernMeta, ...(cursor ? { cursor } : {}) } },
        { send() {} },
      )) as JsonRpcResponse;
      if ('error' in response) throw new Error(response.error.message);
      const result = response.result as { tools: { name: string }[]; nextCursor?: string };
      seen.push(...names(result.tools));
      cursor = result.nextCursor;
    } while (cursor);
    expect(seen).toEqual(DECLARED);
  });
});
