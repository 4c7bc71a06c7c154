import 'reflect-metadata';
import { PassThrough } from 'node:stream';
import pino from 'pino';
import { Server, Tool, UnknownOptionError } from '@mcpx/core';
import { serveStdio, type StdioOptions } from '@mcpx/stdio';

const identity = { name: 'local', title: 'Local', version: '1.0.0', icons: [{ src: 'https://example.com/icon.svg', mimeType: 'image/svg+xml' }] };

@Server({ ...identity, instructions: 'Local only', middleware: [], extensions: [] })
class Local {
  @Tool()
  ping() {
    return 'pong';
  }
}

const silent = () => pino({ level: 'silent' });

describe('serveStdio() options', () => {
  it('refuses an unknown one before reading or writing anything, suggesting the option it is a typo of', () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const write = process.stdout.write;
    let thrown: unknown;
    try {
      serveStdio(new Local(), { input, output, exitProcess: false, logger: silent(), drainTimeout: 5 } as StdioOptions);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(UnknownOptionError);
    expect((thrown as Error).message).toBe('unknown option `drainTimeout` in serveStdio(); did you mean `drainTimeoutMs`?');
    // Nothing was started: stdout is as it was, and nobody listens to the input.
    expect(process.stdout.write).toBe(write);
    expect(input.listenerCount('data')).toBe(0);
  });

  it('names an engine option misspelt in case, and one close to nothing', () => {
    expect(() => serveStdio(new Local(), { exitProcess: false, logger: silent(), PageSize: 5 } as StdioOptions)).toThrow(
      'unknown option `PageSize` in serveStdio(); did you mean `pageSize`?',
    );
    expect(() => serveStdio(new Local(), { exitProcess: false, logger: silent(), transport: 'stdio' } as StdioOptions)).toThrow('unknown option `transport` in serveStdio()');
  });

  it("takes the engine's options and its own, and serves only the spec's Implementation fields as serverInfo", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const server = serveStdio(new Local(), {
      input,
      output,
      exitProcess: false,
      redirectStdout: false,
      drainTimeoutMs: 100,
      maxMessageBytes: 1 << 20,
      progressPingTimeoutMs: 0,
      otel: false,
      principal: undefined,
      logger: silent(),
      pageSize: 10,
      maxRequestsInFlight: 10,
      middleware: [],
      extensions: [],
    });
    const answer = new Promise<any>((resolve) => {
      let buffer = '';
      output.setEncoding('utf8').on('data', (chunk: string) => {
        buffer += chunk;
        const nl = buffer.indexOf('\n');
        if (nl >= 0) resolve(JSON.parse(buffer.slice(0, nl)));
      });
    });
    input.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }) + '\n');
    const { result } = await answer;
    expect(result.serverInfo).toEqual(identity);
    expect(result.instructions).toBe('Local only');
    input.end();
    await server.closed;
  });
});
