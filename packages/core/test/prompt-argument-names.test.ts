/**
 * A prompt's declared arguments are read from the client's `arguments` object by their own keys
 * only: an argument named like a property of Object.prototype (`constructor`, `toString`) that the
 * client left out is missing, not the prototype's function.
 */
import 'reflect-metadata';
import pino from 'pino';
import { McpServer, Prompt, createEngine } from '../src';
import type { JsonRpcResponse } from '../src/transport';

class Prompts extends McpServer {
  @Prompt({
    description: 'Arguments named like Object.prototype members',
    arguments: [
      { name: 'constructor', description: 'optional' },
      { name: 'toString', description: 'required', required: true },
    ],
  })
  named(args: Record<string, string>) {
    return `given ${JSON.stringify(args)}`;
  }
}

const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'prompt-args', version: '1' },
};

async function getPrompt(args: Record<string, unknown>): Promise<JsonRpcResponse> {
  const engine = createEngine(new Prompts(), { logger: pino({ level: 'silent' }) });
  return (await engine.modern.handle({ jsonrpc: '2.0', id: 1, method: 'prompts/get', params: { _meta: meta, name: 'named', arguments: args } }, { send() {} }))!;
}

describe('prompt arguments named like Object.prototype members', () => {
  it('an optional one left out is simply absent', async () => {
    const response = await getPrompt({ toString: 'x' });
    expect('result' in response && (response.result as any).messages[0].content.text).toBe('given {"toString":"x"}');
  });

  it('a required one left out is reported missing', async () => {
    const response = await getPrompt({});
    expect('error' in response && response.error).toMatchObject({ code: -32602, data: { issues: [{ path: 'toString', message: 'toString is required' }] } });
  });

  it('given, they are taken', async () => {
    const response = await getPrompt({ constructor: 'a', toString: 'b' });
    expect('result' in response && (response.result as any).messages[0].content.text).toBe('given {"constructor":"a","toString":"b"}');
  });
});
