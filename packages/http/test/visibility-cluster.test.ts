import 'reflect-metadata';
import { REDIS_URL, dropRedisKeys } from './redis-keys';
import { randomBytes } from 'node:crypto';
import { McpServer, Server, Tool } from '@mcpx/core';
import type { McpHttpServer } from '@mcpx/http';
import { getSse, openSession, openSse, post, rpc, startServer, type SseBlock, type SseReader } from './http-kit';
import { modernBody, modernHeaders } from './modern-kit';

// notifyVisibilityChanged() on one instance reaches a session held by the other, through the shared Redis.

/** Whether the premium tool is shown: the state a real server would keep in its database, shared by both instances. */
const plan = { premium: false };

@Server({ name: 'visibility-cluster', version: '1.0.0' })
class Catalog extends McpServer {
  @Tool()
  basic() {
    return 'basic';
  }

  @Tool({ visible: () => plan.premium })
  premium() {
    return 'premium';
  }
}

async function nextMessage(stream: SseReader): Promise<SseBlock | undefined> {
  for (;;) {
    const event = await stream.nextEvent(10_000);
    if (!event || event.message) return event;
  }
}

describe('notifyVisibilityChanged across instances', () => {
  const prefix = `mcpx-test:${randomBytes(4).toString('hex')}:`;
  let a: McpHttpServer;
  let b: McpHttpServer;
  const serverA = new Catalog();
  const serverB = new Catalog();

  beforeAll(async () => {
    const redis = { url: REDIS_URL, prefix, leaseMs: 2000 };
    a = await startServer(serverA, { redis });
    b = await startServer(serverB, { redis });
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await dropRedisKeys(prefix);
  });

  it('sends tools/list_changed to a session on instance a when instance b says visibility changed; the next list shows the new catalog', async () => {
    const session = await openSession(a.url);
    const before = await post(a.url, rpc(1, 'tools/list'), session);
    expect(before.body).not.toContain('premium');
    const hidden = await post(a.url, rpc(2, 'tools/call', { name: 'premium' }), session);
    expect(hidden.body).toContain('Unknown tool: premium');

    const get = await getSse(a.url, session);
    plan.premium = true;
    serverB.notifyVisibilityChanged();
    const event = await nextMessage(get);
    expect(event?.message).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    get.abort();

    const after = await post(a.url, rpc(3, 'tools/list'), session);
    expect(after.body).toContain('"premium"');
  });

  it('sends tools/list_changed to a 2026-07-28 listen stream on instance a when instance b says visibility changed', async () => {
    plan.premium = false;
    const body = modernBody('listen-v', 'subscriptions/listen', { notifications: { toolsListChanged: true } });
    const stream = await openSse(a.url, { method: 'POST', headers: modernHeaders('subscriptions/listen'), body });
    expect((await nextMessage(stream))?.message?.method).toBe('notifications/subscriptions/acknowledged');
    plan.premium = true;
    serverB.notifyVisibilityChanged();
    const event = await nextMessage(stream);
    expect(event?.message?.method).toBe('notifications/tools/list_changed');
    stream.abort();
  });

  it('sends each of two visibility changes made one right after the other: the second is news too', async () => {
    plan.premium = false;
    const session = await openSession(a.url);
    const get = await getSse(a.url, session);
    serverB.notifyVisibilityChanged();
    expect((await nextMessage(get))?.message?.method).toBe('notifications/tools/list_changed');
    // The client listed after the first; the second change must reach it as well.
    plan.premium = true;
    serverB.notifyVisibilityChanged();
    expect((await nextMessage(get))?.message?.method).toBe('notifications/tools/list_changed');
    get.abort();
    const after = await post(a.url, rpc(2, 'tools/list'), session);
    expect(after.body).toContain('"premium"');
  });

  it('sends a registry change both instances make alike once, and a different one made next as well', async () => {
    const session = await openSession(a.url);
    await post(a.url, rpc(1, 'logging/setLevel', { level: 'info' }), session);
    const get = await getSse(a.url, session);
    const tool = (name: string) => ({ name, description: `The ${name} tool`, inputSchema: { type: 'object' as const }, handler: () => name });
    serverA.registry.addTool(tool('added'));
    serverB.registry.addTool(tool('added'));
    expect((await nextMessage(get))?.message?.method).toBe('notifications/tools/list_changed');
    // A marker sent after it: had the other instance sent the same change too, its copy would come first.
    serverB.log('info', 'marker');
    expect((await nextMessage(get))?.message).toMatchObject({ method: 'notifications/message', params: { data: 'marker' } });
    // A different change right after, alike on both: a new list, so it is sent, once.
    serverA.registry.addTool(tool('added-next'));
    serverB.registry.addTool(tool('added-next'));
    expect((await nextMessage(get))?.message?.method).toBe('notifications/tools/list_changed');
    serverA.log('info', 'second marker');
    expect((await nextMessage(get))?.message).toMatchObject({ method: 'notifications/message', params: { data: 'second marker' } });
    get.abort();
  });
});
