/**
 * `mcpx serve --redis-cluster-nodes` and `--redis-sentinels --redis-sentinel-name`: the example as
 * two instances on a Redis Cluster and through Sentinel (scripts/redis-topology.sh, ports of this
 * file's own). The notebook follows the same settings as the sessions: a note created through one
 * instance is read through the other, its keys share one slot on the cluster, and the notebook
 * goes on after a failover (the change feed included).
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { eventually, keysOn, startTopology, type Topology } from '../../redis/test/topology-kit';
import { EXAMPLE_JS, requireBuild, serveHttp, type Running } from './cli';

jest.setTimeout(240_000);

describe.each([
  ['cluster', 7090, (t: Topology) => ['--redis-cluster-nodes', t.env.MCPX_REDIS_CLUSTER_NODES!]],
  ['sentinel', 7100, (t: Topology) => ['--redis-sentinels', t.env.MCPX_REDIS_SENTINELS!, '--redis-sentinel-name', t.env.MCPX_REDIS_SENTINEL_NAME!]],
] as const)('mcpx serve on a Redis %s', (kind, basePort, flags) => {
  let topology: Topology | undefined;
  const running: Running[] = [];
  const clients: Client[] = [];
  const prefix = `mcpx-test:${randomBytes(6).toString('hex')}:`;

  beforeAll(async () => {
    requireBuild();
    topology = await startTopology(kind, basePort);
  });

  afterAll(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
    for (const server of running.splice(0)) await server.stop();
    await topology?.stop();
  });

  async function client(url: string): Promise<Client> {
    const c = new Client({ name: 'cli-topology-test', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(url)));
    clients.push(c);
    return c;
  }

  const create = async (c: Client, title: string) => {
    const result = (await c.callTool({ name: 'create', arguments: { title, body: `on the ${kind}` } })) as CallToolResult;
    if (result.isError) throw new Error(JSON.stringify(result.content));
    return (result.content[0] as { text: string }).text;
  };
  const listed = async (c: Client) => (await c.listResources()).resources.map((r) => r.uri);

  it('shares sessions and the notebook between instances, through a failover', async () => {
    const servers = await Promise.all([0, 1].map(() => serveHttp([EXAMPLE_JS, '--port', '0', ...flags(topology!), '--redis-prefix', prefix])));
    running.push(...servers);
    const [a, b] = await Promise.all(servers.map((server) => client(server.url)));

    expect(await create(a!, 'First')).toBe('Created note 4.');
    expect((await b!.readResource({ uri: 'notes://notes/4' })).contents[0]).toMatchObject({ text: `# First\n\non the ${kind}` });
    const keys = await keysOn(topology!, prefix);
    // The sessions are there too; the notes under the prefix, in one slot on a cluster.
    expect(keys).toContain(kind === 'cluster' ? `${prefix}{notes}:note:4` : `${prefix}notes:note:4`);
    expect(keys.some((key) => key.includes('session'))).toBe(true);

    const killed = await topology!.failover((await topology!.masters())[0]!);
    // While the replica takes over a write may fail ("Storage unavailable, try again", as the model is told); then it succeeds.
    await eventually('a note created after the failover', () => create(b!, 'Second'));
    // The other instance's change feed follows too: it lists the new note without being asked to reread.
    await eventually('the note listed by the other instance', async () => {
      if (!(await listed(a!)).includes('notes://notes/5')) throw new Error('not listed yet');
    });
    expect((await a!.readResource({ uri: 'notes://notes/4' })).contents[0]).toMatchObject({ text: `# First\n\non the ${kind}` });
    await killed.restart();
  });
});
