import 'reflect-metadata';
import { PassThrough } from 'node:stream';
import pino from 'pino';
import { Server, Tool, type Principal, type RequestContext } from '@mcpx/core';
import { INSUFFICIENT_SCOPE } from '@mcpx/core/protocol';
import { serveStdio } from '@mcpx/stdio';

@Server({ name: 'local', version: '1.0.0' })
class Local {
  @Tool()
  whoami(_input: void, ctx: RequestContext) {
    return `${ctx.principal?.subject}: ${ctx.principal?.scopes.join(' ')}`;
  }

  @Tool({ scopes: ['admin'] })
  reset() {
    return 'reset';
  }
}

/** serveStdio on in-memory streams; send() writes a line and resolves with the answer to its id. */
function serve(principal?: Principal) {
  const input = new PassThrough();
  const output = new PassThrough();
  const server = serveStdio(new Local(), { input, output, principal, exitProcess: false, logger: pino({ level: 'silent' }) });
  let buffer = '';
  const waiting = new Map<number, (message: any) => void>();
  output.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const message = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      waiting.get(message.id)?.(message);
    }
  });
  const send = (id: number, method: string, params: object = {}) =>
    new Promise<any>((resolve) => {
      waiting.set(id, resolve);
      input.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  return { server, input, send };
}

describe('a configured principal over stdio', () => {
  it('applies entry scopes and reaches handlers as ctx.principal', async () => {
    const { server, input, send } = serve({ subject: 'ci-bot', scopes: ['read'], claims: {} });
    await send(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
    input.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
    expect((await send(2, 'tools/list')).result.tools.map((t: { name: string }) => t.name)).toEqual(['whoami']);
    expect((await send(3, 'tools/call', { name: 'whoami' })).result.content[0].text).toBe('ci-bot: read');
    expect((await send(4, 'tools/call', { name: 'reset' })).error).toEqual({
      code: INSUFFICIENT_SCOPE,
      message: 'Insufficient scope: tool "reset" needs admin',
      data: { requiredScopes: ['admin'] },
    });
    input.end();
    await server.closed;
  });

  it('without one, nothing is checked', async () => {
    const { server, input, send } = serve();
    await send(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
    input.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
    expect((await send(2, 'tools/call', { name: 'reset' })).result.content[0].text).toBe('reset');
    input.end();
    await server.closed;
  });
});
