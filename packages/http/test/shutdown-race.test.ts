import 'reflect-metadata';
import pino from 'pino';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server, Tool } from '@mcpx/core';
import { listen } from '@mcpx/http';

@Server({ name: 'race', version: '1.0.0' })
class Race {
  @Tool({ description: 'Answers' })
  ping() {
    return 'pong';
  }
}

// A client that lets go at the moment the server stops leaves a keep-alive socket that turns
// idle after the drain began; close() must not wait out its keep-alive timeout (65 s by default,
// so a close() still waiting after 10 s is one that would). Racy by nature, so it is tried several times.
it('close() finishes promptly when a client disconnects as the server stops', async () => {
  for (let round = 0; round < 8; round++) {
    const server = await listen(new Race(), { port: 0, handleSignals: false, logger: pino({ level: 'silent' }) });
    const client = new Client({ name: 'race', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    await client.listTools();
    void client.close();
    const outcome = await Promise.race([server.close().then(() => 'closed'), new Promise((r) => setTimeout(() => r('hung'), 10_000).unref())]);
    expect({ round, outcome }).toEqual({ round, outcome: 'closed' });
  }
}, 60_000);
