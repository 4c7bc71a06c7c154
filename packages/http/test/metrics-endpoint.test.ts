/**
 * GET /metrics (the `metrics` option, through @mcpx/otel's Prometheus reader): the official SDK
 * client makes a few calls over real HTTP, then the exposition text is scraped and read back
 * sample by sample. Served next to the endpoint, on a port of its own, behind the bearer guard
 * only when asked, and not at all when off.
 */
import 'reflect-metadata';
import http from 'node:http';
import { IsString } from 'class-validator';
import { Field, Server, Tool } from '@mcpx/core';
import { InvalidTokenError, type AuthOptions, type McpHttpServer } from '@mcpx/http';
import { connectPeer, type Peer } from './sdk-http-fixture';
import Fastify from 'fastify';
import { mcpx } from '@mcpx/http';
import { Gate, callTool, freePort, initializeBody, openSession, post, postSse, request, startServer, waitFor, type RawResponse } from './http-kit';

class EchoInput {
  @Field({ description: 'What to say back' })
  @IsString()
  text!: string;
}

@Server({ name: 'metrics-fixture', version: '1.2.3' })
class MetricsFixture {
  @Tool({ description: 'Says the text back' })
  echo(input: EchoInput) {
    return input.text;
  }

  @Tool({ description: 'Always fails' })
  broken(): string {
    throw new Error('it broke');
  }

  /** Held until the test opens the gate: a request in flight. */
  static gate = new Gate();

  @Tool({ description: 'Answers once the test lets it' })
  async held() {
    await MetricsFixture.gate.promise;
    return 'released';
  }
}

/** One sample of the exposition: `name{label="value",...} value`. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

function samplesOf(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[key!] = value!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The samples named `name` whose labels include `labels`. */
function find(samples: Sample[], name: string, labels: Record<string, string> = {}): Sample[] {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The one sample named `name` with these labels (fails when there are none or several). */
function one(samples: Sample[], name: string, labels: Record<string, string> = {}): Sample {
  const found = find(samples, name, labels);
  if (found.length !== 1) throw new Error(`expected one ${name} ${JSON.stringify(labels)}, found ${found.length}:\n${found.map((s) => JSON.stringify(s)).join('\n')}`);
  return found[0]!;
}

async function scrape(url: string, headers: Record<string, string> = {}): Promise<{ response: RawResponse; samples: Sample[] }> {
  const response = await request(url, { headers });
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toBe(PROMETHEUS_TEXT);
  return { response, samples: samplesOf(response.body) };
}

/** Scrapes until `done` holds of the samples (a bound on waiting, not a speed); returns the last scrape. */
async function scrapeUntil(url: string, done: (samples: Sample[]) => boolean, what: string, timeoutMs = 10_000): Promise<Sample[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { samples } = await scrape(url);
    if (done(samples)) return samples;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const tools = (name: string) => ({ mcp_method_name: 'tools/call', gen_ai_tool_name: name });

describe('GET /metrics next to the endpoint', () => {
  let server: McpHttpServer;
  let origin: string;
  let peer: Peer;

  beforeAll(async () => {
    server = await startServer(new MetricsFixture(), { metrics: true, maxBodyBytes: 16 * 1024 });
    origin = new URL(server.url).origin;
    peer = await connectPeer(server.url);
  });
  afterAll(async () => {
    await peer?.client.close();
    await server?.close();
  });

  it('is served on the server of /mcp, in the text exposition format', async () => {
    expect(server.metricsUrl).toBe(`${origin}/metrics`);
    const { response } = await scrape(server.metricsUrl!);
    expect(response.body).toContain('# TYPE mcp_server_operation_duration_seconds histogram');
  });

  it('has the operation histogram by method, tool and outcome, and the gauges and refusals an operator reads', async () => {
    const ok = await peer.client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(ok.isError).toBeFalsy();
    const failed = await peer.client.callTool({ name: 'broken', arguments: {} });
    expect(failed.isError).toBe(true);
    // Refusals of the HTTP layer: a session that does not exist (404), no Accept (406), a body over maxBodyBytes (413).
    expect((await post(server.url, callTool(1, 'echo', { text: 'x' }), 'no-such-session')).status).toBe(404);
    expect((await request(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: initializeBody() })).status).toBe(406);
    expect((await post(server.url, callTool(2, 'echo', { text: 'x'.repeat(32 * 1024) }), 'no-such-session')).status).toBe(413);

    const { response, samples } = await scrape(server.metricsUrl!);
    // The histogram, with the labels of the MCP conventions: one call each, in the conventions' buckets.
    const echo = one(samples, 'mcp_server_operation_duration_seconds_count', tools('echo'));
    expect(echo.value).toBe(1);
    expect(echo.labels).toMatchObject({
      gen_ai_operation_name: 'execute_tool',
      mcp_protocol_version: '2025-11-25',
      network_transport: 'tcp',
      network_protocol_name: 'http',
      network_protocol_version: '1.1',
    });
    expect(echo.labels).not.toHaveProperty('error_type');
    expect(response.body).toMatch(/^mcp_server_operation_duration_seconds_bucket\{[^}]*mcp_method_name="tools\/call"[^}]*gen_ai_tool_name="echo"[^}]*le="0\.01"\} [01]$/m);
    const buckets = find(samples, 'mcp_server_operation_duration_seconds_bucket', tools('echo')).map((s) => s.labels.le);
    expect(buckets).toEqual(['0.01', '0.02', '0.05', '0.1', '0.2', '0.5', '1', '2', '5', '10', '30', '60', '120', '300', '+Inf']);
    expect(one(samples, 'mcp_server_operation_duration_seconds_bucket', { ...tools('echo'), le: '+Inf' }).value).toBe(1);
    expect(one(samples, 'mcp_server_operation_duration_seconds_count', { ...tools('broken'), error_type: 'tool_error' }).value).toBe(1);
    expect(one(samples, 'mcp_server_operation_duration_seconds_count', { mcp_method_name: 'initialize' }).value).toBe(1);
    expect(one(samples, 'mcp_server_operation_duration_seconds_count', { mcp_method_name: 'notifications/initialized' }).value).toBe(1);

    // Gauges: this session, its GET stream (the SDK holds it open), no request in flight, events held for resumption.
    expect(one(samples, 'mcpx_session_active').value).toBe(1);
    expect(one(samples, 'mcpx_sse_stream_active').value).toBe(1);
    expect(one(samples, 'mcpx_request_active').value).toBe(0);
    expect(one(samples, 'mcpx_event_store_size_bytes').value).toBeGreaterThan(0);

    // Refusals: each counted once, by reason and status (and the limit hit).
    expect(one(samples, 'mcpx_refusal_count_total', { mcpx_refusal_reason: 'http', http_response_status_code: '404' }).value).toBe(1);
    expect(one(samples, 'mcpx_refusal_count_total', { mcpx_refusal_reason: 'http', http_response_status_code: '406' }).value).toBe(1);
    expect(one(samples, 'mcpx_refusal_count_total', { mcpx_refusal_reason: 'limit', http_response_status_code: '413' }).labels.mcpx_limit).toBe('maxBodyBytes');
    expect(find(samples, 'mcpx_refusal_count_total').reduce((n, s) => n + s.value, 0)).toBe(3);
  });

  it('records the session duration once the client ends the session, and its streams close', async () => {
    await peer.transport.terminateSession();
    // The GET stream's connection ends as the session does; the gauge follows once it has.
    const samples = await scrapeUntil(server.metricsUrl!, (s) => one(s, 'mcpx_sse_stream_active').value === 0, 'the GET stream to close');
    expect(one(samples, 'mcpx_session_active').value).toBe(0);
    const sessions = one(samples, 'mcp_server_session_duration_seconds_count');
    expect(sessions.value).toBe(1);
    expect(sessions.labels).toMatchObject({ mcp_protocol_version: '2025-11-25', network_transport: 'tcp' });
  });
});

describe('refusals at a limit', () => {
  let server: McpHttpServer;

  beforeAll(async () => {
    server = await startServer(new MetricsFixture(), { metrics: true, maxRequestsInFlight: 1, maxSessions: 1 });
  });
  afterAll(() => server?.close());

  it('counts the 429 of a session at maxRequestsInFlight and the 503 of initialize at maxSessions, with the limit they hit', async () => {
    MetricsFixture.gate = new Gate();
    const session = await openSession(server.url);
    const held = await postSse(server.url, session, callTool(1, 'held'));
    const before = await scrapeUntil(server.metricsUrl!, (s) => one(s, 'mcpx_request_active').value === 1, 'the held call to be in flight');
    expect(one(before, 'mcpx_sse_stream_active').value).toBe(1);

    expect((await post(server.url, callTool(2, 'echo', { text: 'one too many' }), session)).status).toBe(429);
    expect((await post(server.url, initializeBody())).status).toBe(503);
    MetricsFixture.gate.open();
    await waitFor(() => held.ended, 'the held stream to end');
    const samples = await scrapeUntil(server.metricsUrl!, (s) => one(s, 'mcpx_request_active').value === 0, 'the held call to end');
    expect(one(samples, 'mcpx_refusal_count_total', { mcpx_refusal_reason: 'limit', http_response_status_code: '429' }).labels.mcpx_limit).toBe('maxRequestsInFlight');
    expect(one(samples, 'mcpx_refusal_count_total', { mcpx_refusal_reason: 'limit', http_response_status_code: '503' }).labels.mcpx_limit).toBe('maxSessions');
    expect(find(samples, 'mcpx_refusal_count_total').reduce((n, s) => n + s.value, 0)).toBe(2);
    expect(one(samples, 'mcp_server_operation_duration_seconds_count', tools('held')).value).toBe(1);
  });
});

describe('GET /metrics on the Fastify plugin', () => {
  it('is served next to the endpoint, under its prefix, and stops with the app', async () => {
    const app = Fastify({ logger: false });
    await app.register(mcpx, { server: new MetricsFixture(), prefix: '/tools', metrics: true, logLevel: 'silent' });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    try {
      const session = await openSession(`${base}/tools/mcp`);
      expect((await post(`${base}/tools/mcp`, callTool(1, 'echo', { text: 'mounted' }), session)).status).toBe(200);
      const { samples } = await scrape(`${base}/tools/metrics`);
      expect(one(samples, 'mcp_server_operation_duration_seconds_count', tools('echo')).value).toBe(1);
      expect((await request(`${base}/metrics`)).status).toBe(404);
    } finally {
      await app.close();
    }
  });
});

describe('GET /metrics on a port of its own', () => {
  let server: McpHttpServer;

  beforeAll(async () => {
    server = await startServer(new MetricsFixture(), { metrics: { port: 0 } });
  });
  afterAll(() => server?.close());

  it('is served there only', async () => {
    const metrics = new URL(server.metricsUrl!);
    const main = new URL(server.url);
    expect(metrics.pathname).toBe('/metrics');
    expect(metrics.hostname).toBe('127.0.0.1');
    expect(metrics.port).not.toBe(main.port);
    expect((await request(`${main.origin}/metrics`)).status).toBe(404);
    expect((await request(`${metrics.origin}/mcp`)).status).toBe(404);

    const peer = await connectPeer(server.url);
    try {
      await peer.client.callTool({ name: 'echo', arguments: { text: 'over there' } });
    } finally {
      await peer.client.close();
    }
    const { samples } = await scrape(server.metricsUrl!);
    expect(one(samples, 'mcp_server_operation_duration_seconds_count', tools('echo')).value).toBe(1);
  });

  it('keeps the Host check of the endpoint (DNS rebinding)', async () => {
    const refused = await request(server.metricsUrl!, { headers: { host: 'attacker.example' } });
    expect(refused.status).toBe(403);
  });

  it('stops with the server', async () => {
    const url = server.metricsUrl!;
    await server.close();
    // A fresh connection: the default agent's idle one died with the server.
    await expect(request(url, { agent: new http.Agent({ keepAlive: false }) })).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('GET /metrics with the endpoint behind OAuth', () => {
  const servers: McpHttpServer[] = [];

  async function protectedServer(metrics: { auth?: boolean; port?: number }): Promise<McpHttpServer> {
    const port = await freePort(); // the resource URL names the port
    const auth: AuthOptions = {
      resource: `http://127.0.0.1:${port}/mcp`,
      authorizationServers: ['https://id.example.test'],
      verifier: async (token) => {
        if (token !== 'scraper-token') throw new InvalidTokenError('unknown token');
        return { subject: 'prometheus', scopes: [], claims: { sub: 'prometheus' } };
      },
    };
    const server = await startServer(new MetricsFixture(), { port, auth, metrics });
    servers.push(server);
    return server;
  }

  afterAll(() => Promise.all(servers.map((s) => s.close())));

  it('is not behind the MCP auth by default; the endpoint is, and its 401 is counted as an auth refusal', async () => {
    const server = await protectedServer({});
    expect((await post(server.url, initializeBody())).status).toBe(401);
    const { samples } = await scrape(server.metricsUrl!);
    expect(one(samples, 'mcpx_refusal_count_total', { mcpx_refusal_reason: 'auth', http_response_status_code: '401' }).value).toBe(1);
  });

  it('asks for the bearer token with auth: true, on the same server or its own port', async () => {
    for (const server of [await protectedServer({ auth: true }), await protectedServer({ auth: true, port: 0 })]) {
      const anonymous = await request(server.metricsUrl!);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer resource_metadata="/);
      expect((await request(server.metricsUrl!, { headers: { authorization: 'Bearer guess' } })).status).toBe(401);
      const { samples } = await scrape(server.metricsUrl!, { authorization: 'Bearer scraper-token' });
      expect(one(samples, 'mcpx_refusal_count_total', { mcpx_refusal_reason: 'auth', http_response_status_code: '401' }).value).toBe(2);
    }
  });

  it('refuses auth: true without the auth option', async () => {
    await expect(startServer(new MetricsFixture(), { metrics: { auth: true } })).rejects.toThrow('metrics.auth needs the auth option');
  });
});

describe('GET /metrics when off', () => {
  const saved = process.env.MCPX_METRICS;
  afterEach(() => {
    if (saved === undefined) delete process.env.MCPX_METRICS;
    else process.env.MCPX_METRICS = saved;
  });

  it('is an unknown route, as any other', async () => {
    delete process.env.MCPX_METRICS;
    const server = await startServer(new MetricsFixture());
    try {
      expect(server.metricsUrl).toBeUndefined();
      const origin = new URL(server.url).origin;
      const metrics = await request(`${origin}/metrics`);
      expect(metrics.status).toBe(404);
      expect(metrics.status).toBe((await request(`${origin}/nothing-here`)).status);
    } finally {
      await server.close();
    }
  });

  it('is turned on by MCPX_METRICS=1 when the option is not given, and stays off with metrics: false', async () => {
    process.env.MCPX_METRICS = '1';
    const on = await startServer(new MetricsFixture());
    const off = await startServer(new MetricsFixture(), { metrics: false });
    try {
      expect(on.metricsUrl).toBe(`${new URL(on.url).origin}/metrics`);
      await scrape(on.metricsUrl!);
      expect(off.metricsUrl).toBeUndefined();
      expect((await request(`${new URL(off.url).origin}/metrics`)).status).toBe(404);
    } finally {
      await Promise.all([on.close(), off.close()]);
    }
  });
});
