import 'reflect-metadata';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer, Resource, Server, Tool } from '@mcpx/core';
import type { McpHttpServer } from '@mcpx/http';
import { startServer } from './http-kit';

// Two classes mounted under namespaces in one server, served over HTTP, through the official clients of both eras.

@Server({ name: 'weather', version: '1.0.0' })
class Weather {
  @Tool({ description: "Today's forecast" })
  forecast() {
    return 'sunny';
  }

  @Resource({ uri: 'weather://stations' })
  stations() {
    return 'OSL,BGO';
  }
}

@Server({ name: 'calendar', version: '1.0.0' })
class Calendar {
  @Tool({ description: 'The next meeting' })
  next() {
    return 'standup at 9';
  }
}

@Server({ name: 'assistant', version: '1.0.0', mount: { weather: Weather, calendar: Calendar } })
class Assistant extends McpServer {
  @Tool()
  hello() {
    return 'hello';
  }
}

@Server({ name: 'clashing', version: '1.0.0', mount: { weather: Weather } })
class Clashing {
  @Tool({ name: 'weather_forecast' })
  mine() {
    return 'mine';
  }
}

interface Peer {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  readResource(params: { uri: string }): Promise<{ contents: { uri: string; text?: string }[] }>;
  close(): Promise<void>;
}

describe.each(['2025-11-25 (SDK 1.x)', '2026-07-28 (client 2.x)'])('mounted servers over HTTP, %s', (era) => {
  let server: McpHttpServer;
  let client: Peer;

  beforeAll(async () => {
    server = await startServer(new Assistant());
    if (era.startsWith('2025')) {
      const legacy = new LegacyClient({ name: 'mount-test', version: '1.0.0' });
      await legacy.connect(new LegacyTransport(new URL(server.url)));
      client = legacy as unknown as Peer;
    } else {
      const modern = new Client({ name: 'mount-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
      modern.onerror = () => {};
      await modern.connect(new StreamableHTTPClientTransport(new URL(server.url)), { timeout: 10_000 });
      expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      client = modern as unknown as Peer;
    }
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('lists and calls each mounted tool under its namespace, and reads a mounted resource by its namespaced URI', async () => {
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['hello', 'weather_forecast', 'calendar_next']);
    expect(await client.callTool({ name: 'weather_forecast', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'sunny' }] });
    expect(await client.callTool({ name: 'calendar_next', arguments: {} })).toMatchObject({ content: [{ type: 'text', text: 'standup at 9' }] });
    expect((await client.readResource({ uri: 'weather://weather/stations' })).contents).toMatchObject([{ uri: 'weather://weather/stations', text: 'OSL,BGO' }]);
  });
});

it('refuses at startup a mount whose names clash with the server’s own, naming both', async () => {
  await expect(startServer(new Clashing())).rejects.toThrow(/mount "weather" \(weather\): tools "weather_forecast" \(Weather\.forecast\) clashes with "weather_forecast" \(Clashing\.mine\)/);
});
