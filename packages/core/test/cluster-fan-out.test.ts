import { ClusterLink, type LocalInstance } from '../src/engine/cluster-link';
import type { Cluster } from '../src/cluster/cluster';

/**
 * The cluster's fan-outs (resources/updated, list_changed) to the sessions of every instance: the
 * same news raised while its fan-out runs is one more run after it, never one per change, and a
 * fan-out to many sessions keeps a bounded number of appends in flight.
 */

interface Gate {
  promise: Promise<void>;
  open(): void;
}

function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

function fakeCluster(subscribers: string[]) {
  const calls = { broadcasts: [] as unknown[], subscribers: 0, appends: 0, claims: [] as string[], inFlight: 0, maxInFlight: 0 };
  let hold: Gate | undefined;
  const cluster = {
    instanceId: 'i1',
    bus: {
      onMessage: () => undefined,
      broadcast: async (message: unknown) => void calls.broadcasts.push(message),
      send: async () => undefined,
    },
    sessions: {
      subscribers: async () => {
        calls.subscribers++;
        await hold?.promise;
        return subscribers;
      },
      ids: async () => {
        await hold?.promise;
        return subscribers;
      },
    },
    events: {
      append: async () => {
        calls.appends++;
        calls.inFlight++;
        calls.maxInFlight = Math.max(calls.maxInFlight, calls.inFlight);
        await settle();
        calls.inFlight--;
        return '0_1';
      },
    },
    claim: async (key: string) => {
      calls.claims.push(key);
      return true;
    },
  };
  const local = {
    logger: { error: () => undefined },
    subscriptions: { resourceUpdated: () => undefined, listChanged: () => undefined },
  } as unknown as LocalInstance;
  const link = new ClusterLink(cluster as unknown as Cluster, local);
  return { link, calls, holdNext: () => (hold = gate()), release: () => hold?.open() };
}

async function until(predicate: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !predicate(); i++) await settle();
  expect(predicate()).toBe(true);
}

describe('cluster fan-outs', () => {
  it('folds a burst of resources/updated for one uri into one more run after the one in flight', async () => {
    const { link, calls, holdNext, release } = fakeCluster(['s1', 's2', 's3']);
    holdNext();
    for (let i = 0; i < 50; i++) link.resourceUpdated('notes://index');
    await settle();
    expect(calls.subscribers).toBe(1);
    release();
    await until(() => calls.appends === 6);
    await settle();
    // The first run, then one for everything raised while it ran.
    expect(calls.subscribers).toBe(2);
    expect(calls.broadcasts).toHaveLength(2);
    // Raised again once idle: a run of its own.
    link.resourceUpdated('notes://index');
    await until(() => calls.appends === 9);
  });

  it('runs the fan-outs of different uris independently', async () => {
    const { link, calls } = fakeCluster(['s1']);
    link.resourceUpdated('notes://a');
    link.resourceUpdated('notes://b');
    await until(() => calls.appends === 2);
    expect(calls.broadcasts).toEqual([
      { type: 'resourceUpdated', uri: 'notes://a' },
      { type: 'resourceUpdated', uri: 'notes://b' },
    ]);
  });

  it('claims a coalesced list_changed under the latest contents', async () => {
    const { link, calls, holdNext, release } = fakeCluster(['s1']);
    link.listChanged('notifications/resources/list_changed', 'v1');
    holdNext();
    await settle();
    link.listChanged('notifications/resources/list_changed', 'v2');
    link.listChanged('notifications/resources/list_changed', 'v3');
    release();
    await until(() => calls.claims.length === 2 && calls.appends === 2);
    expect(calls.claims).toEqual(['list:notifications/resources/list_changed:v1', 'list:notifications/resources/list_changed:v3']);
  });

  it('keeps at most 256 appends in flight however many sessions it reaches', async () => {
    const { link, calls } = fakeCluster(Array.from({ length: 600 }, (_, i) => `s${i}`));
    link.resourceUpdated('notes://index');
    await until(() => calls.appends === 600);
    expect(calls.maxInFlight).toBeLessThanOrEqual(256);
  });
});
