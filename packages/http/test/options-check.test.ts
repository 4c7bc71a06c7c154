import 'reflect-metadata';
import Fastify from 'fastify';
import pino from 'pino';
import { Server, Tool, UnknownOptionError, isMcpxError } from '@mcpx/core';
import { listen, mcpx, type ListenOptions, type McpPluginOptions } from '@mcpx/http';
import { JSON_TYPE, initializeBody, jsonOf, post } from './http-kit';

const identity = { name: 'checked', title: 'Checked', version: '1.2.3', description: 'Checks its options', websiteUrl: 'https://example.com' };

@Server({ ...identity, instructions: 'Mind the options', middleware: [], extensions: [] })
class Checked {
  @Tool()
  ping() {
    return 'pong';
  }
}

const silent = () => pino({ level: 'silent' });

describe('listen() options', () => {
  it('refuses an unknown one before anything starts, suggesting the option it is a typo of', async () => {
    const signalListeners = process.listenerCount('SIGTERM');
    const err = await listen(new Checked(), { port: 0, logger: silent(), maxRequestInFlight: 5 } as ListenOptions).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnknownOptionError);
    expect((err as Error).message).toBe('unknown option `maxRequestInFlight` in listen(); did you mean `maxRequestsInFlight`?');
    expect(isMcpxError(err, 'MCPX_OPTION_UNKNOWN')).toBe(true);
    expect(process.listenerCount('SIGTERM')).toBe(signalListeners);
  });

  it("names one of listen()'s own options misspelt, and one that is not close to any", async () => {
    await expect(listen(new Checked(), { port: 0, logger: silent(), handleSignal: false } as ListenOptions)).rejects.toThrow(
      'unknown option `handleSignal` in listen(); did you mean `handleSignals`?',
    );
    await expect(listen(new Checked(), { port: 0, logger: silent(), handleSignals: false, sessions: 3 } as ListenOptions)).rejects.toThrow('unknown option `sessions` in listen()');
  });

  it("takes the engine's options, the endpoint's and its own, and serves only the spec's Implementation fields as serverInfo", async () => {
    const options: Required<Pick<ListenOptions, 'host' | 'port' | 'handleSignals' | 'shutdownTimeoutMs' | 'connectionTimeoutMs' | 'keepAliveTimeoutMs' | 'requestTimeoutMs' | 'fastify'>> &
      ListenOptions = {
      host: '127.0.0.1',
      port: 0,
      handleSignals: false,
      shutdownTimeoutMs: 1000,
      connectionTimeoutMs: 10_000,
      keepAliveTimeoutMs: 10_000,
      requestTimeoutMs: 10_000,
      fastify: {},
      logger: silent(),
      pageSize: 10,
      maxRequestsInFlight: 20,
      middleware: [],
      extensions: [],
      path: '/mcp',
      jsonResponse: true,
      requestLogging: false,
      maxSessions: 5,
      redis: undefined,
      otel: false,
      metrics: false,
    };
    const server = await listen(new Checked(), options);
    try {
      const response = await post(server.url, initializeBody());
      expect(response.headers['content-type']).toMatch(new RegExp(`^${JSON_TYPE}`));
      const { result } = jsonOf(response);
      expect(result.serverInfo).toEqual(identity);
      expect(result.instructions).toBe('Mind the options');
    } finally {
      await server.close();
    }
  });
});

describe('the Fastify plugin options', () => {
  it('refuses an unknown one when the app starts, suggesting the option it is a typo of', async () => {
    const app = Fastify();
    app.register(mcpx, { server: new Checked(), logger: silent(), prefx: '/api' } as McpPluginOptions);
    const err = await app.ready().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UnknownOptionError);
    expect((err as Error).message).toBe('unknown option `prefx` in app.register(mcpx); did you mean `prefix`?');
    await app.close().catch(() => undefined);
  });

  it("takes Fastify's own register options next to its own", async () => {
    const app = Fastify();
    await app.register(mcpx, {
      server: new Checked(),
      prefix: '/api',
      logLevel: 'silent',
      logSerializers: {},
      logger: silent(),
      onEndpoint: () => undefined,
      jsonResponse: true,
      requestLogging: false,
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const address = app.server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const { result } = jsonOf(await post(`http://127.0.0.1:${port}/api/mcp`, initializeBody()));
      expect(result.serverInfo).toEqual(identity);
    } finally {
      await app.close();
    }
  });
});
