/**
 * An event store that cannot be reached while a stream is written (Redis failing over, restarting):
 * the answer still goes out live, and the lost resumption copy is a warning, not an error. Any other
 * failure of the store stays an error.
 */
import 'reflect-metadata';
import { Writable } from 'node:stream';
import pino from 'pino';
import { McpServer, Server, Tool } from '@mcpx/core';
import { ClusterUnavailableError, type EventStore } from '@mcpx/core/stores';
import { listen } from '@mcpx/http';
import { callTool, openSession, postSse, summarize } from './http-kit';

@Server({ name: 'outage-fixture', version: '1.0.0' })
class Echo extends McpServer {
  @Tool({ description: 'Greets', inputSchema: { type: 'object', properties: {} } })
  greet(): string {
    return 'hello';
  }
}

/** Stores nothing: every append rejects with `failure()`, as a remote store out of reach would. */
class FailingStore implements EventStore {
  constructor(private readonly failure: () => Error) {}
  append(): Promise<string> {
    return Promise.reject(this.failure());
  }
  eventsAfter(): undefined {
    return undefined;
  }
  dropSession(): void {}
}

async function callThrough(store: EventStore): Promise<{ answer: string[]; logs: { level: number; msg: string; err?: { code?: string } }[] }> {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const server = await listen(new Echo(), { port: 0, handleSignals: false, logger: pino({ level: 'info' }, sink), eventStore: store });
  try {
    const session = await openSession(server.url);
    const stream = await postSse(server.url, session, callTool(7, 'greet'));
    const answer = summarize(await stream.rest());
    // The rejected appends settle after the live write; one more turn of the loop lets them log.
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { answer, logs: lines.map((line) => JSON.parse(line) as { level: number; msg: string; err?: { code?: string } }) };
  } finally {
    await server.close();
  }
}

describe('an event store that cannot be reached while a stream is written', () => {
  it('still answers live and logs the lost resumption copy as a warning', async () => {
    const { answer, logs } = await callThrough(new FailingStore(() => new ClusterUnavailableError('Redis is unavailable: CLUSTERDOWN The cluster is down')));
    expect(answer).toContain('result 7 hello');
    const outage = logs.filter((l) => l.err?.code === 'MCPX_CLUSTER_UNAVAILABLE');
    expect(outage.length).toBeGreaterThan(0);
    expect(outage.every((l) => l.level === 40 && /not stored for resumption/.test(l.msg))).toBe(true);
    expect(logs.filter((l) => l.level >= 50)).toEqual([]);
  });

  it('logs any other failure of the store as an error', async () => {
    const { answer, logs } = await callThrough(new FailingStore(() => new Error('disk full')));
    expect(answer).toContain('result 7 hello');
    expect(logs.filter((l) => l.level >= 50).map((l) => l.msg)).toContain('mcp endpoint error');
  });
});
