import autocannon, { type Client, type Request } from 'autocannon';
import { Pool } from 'undici';
import { BIG_TEXT } from '../payload';
import { percentile } from './stats';
import { Tally, type Checked } from './tally';
import { INITIALIZED_BODY, postHeaders, callBody, findResponse, headerOf, initializeBody, listToolsBody, modernCallHeaders, sessionHeaders } from './mcp';

export interface CallLoad extends Checked {
  /** Checked responses per second. */
  rps: number;
  /** Latency percentiles, ms. */
  p50: number;
  p99: number;
  /** For `big`: MB (10^6 bytes) of tool result text per second. */
  mbps?: number;
}

/** JSON-RPC ids for everything the generators send: unique across sessions, so never reused in one. */
let nextId = 1000;

/**
 * tools/call at a fixed concurrency for a fixed time with autocannon: one connection per session
 * (`sessions[i]`, or none for stateless servers), a fresh request id and echo text per request,
 * and every response parsed and checked against what was asked.
 */
export async function toolCalls(options: {
  url: string;
  sessions: (string | undefined)[];
  durationS: number;
  tool: 'echo' | 'big';
  /** Speak 2026-07-28: per-request `_meta` and the Mcp-Method/Mcp-Name headers, no sessions. */
  modern?: boolean;
}): Promise<CallLoad> {
  const { url, sessions, tool, modern = false } = options;
  const tally = new Tally();
  let client = 0;

  // The context lives on the connection from a request's setup to its response.
  interface Ctx {
    id?: number;
    sentAt?: number;
  }
  // Latency measured here rather than taken from autocannon, whose histogram has whole-millisecond steps.
  const latencies: number[] = [];
  const request: Request = {
    method: 'POST',
    setupRequest: (req, context) => {
      const ctx = context as Ctx;
      const id = (ctx.id = nextId++);
      ctx.sentAt = performance.now();
      return { ...req, body: callBody(id, tool, `hello ${id}`, modern) };
    },
    onResponse: (status, body, context) => {
      const ctx = context as Ctx;
      latencies.push(performance.now() - ctx.sentAt!);
      const id = ctx.id!;
      if (status !== 200) return tally.fail(`HTTP ${status}: ${body}`);
      try {
        const result = findResponse(body, id)?.result;
        const content = (result?.content as { text?: string }[] | undefined)?.[0];
        const expected = tool === 'echo' ? `hello ${id}` : BIG_TEXT;
        if (content?.text !== expected) return tally.fail(`unexpected answer to ${id}: ${body.slice(0, 300)}`);
        // A 2026-07-28 result says it is complete (not an input request).
        if (modern && result?.resultType !== 'complete') return tally.fail(`answer to ${id} is no complete 2026-07-28 result: ${body.slice(0, 300)}`);
      } catch (err) {
        return tally.fail(`unparsable answer: ${(err as Error).message}: ${body.slice(0, 300)}`);
      }
      tally.pass();
    },
  };
  const result = await autocannon({
    url,
    connections: sessions.length,
    duration: options.durationS,
    // autocannon notices the end of a run at its next sample: sample often so short runs stay short.
    sampleInt: 100,
    requests: [request],
    setupClient: (c: Client) => c.setHeaders(modern ? modernCallHeaders(tool) : sessionHeaders(sessions[client++ % sessions.length])),
  });
  const seconds = result.duration;
  if (result.errors || result.timeouts) tally.fail(`${result.errors} connection errors, ${result.timeouts} timeouts`);
  return {
    ...tally.counts,
    rps: tally.ok / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    mbps: tool === 'big' ? (tally.ok * Buffer.byteLength(BIG_TEXT)) / seconds / 1e6 : undefined,
  };
}

export interface SessionLoad extends Checked {
  perSecond: number;
}

/**
 * Whole sessions for a fixed time: initialize, notifications/initialized, tools/list, DELETE, in a
 * loop on each connection, every answer checked. Counts completed sessions.
 */
export async function sessionCycles(options: { url: string; connections: number; durationS: number }): Promise<SessionLoad> {
  const tally = new Tally();
  interface Ctx {
    sessionId?: string;
    listId?: number;
  }
  const requests: Request[] = [
    {
      method: 'POST',
      setupRequest: (req) => ({ ...req, headers: postHeaders(), body: initializeBody(nextId++) }),
      onResponse: (status, body, context, headers) => {
        const ctx = context as Ctx;
        ctx.sessionId = headerOf(headers as Record<string, unknown>, 'mcp-session-id');
        if (status !== 200 || !ctx.sessionId || !body.includes('"protocolVersion"')) tally.fail(`initialize: HTTP ${status} ${body}`);
      },
    },
    {
      method: 'POST',
      // A falsy return restarts the sequence: initialize failed, there is no session to go on with.
      setupRequest: (req, context) => {
        const ctx = context as Ctx;
        return (ctx.sessionId ? { ...req, headers: sessionHeaders(ctx.sessionId), body: INITIALIZED_BODY } : undefined) as Request;
      },
      onResponse: (status, body) => {
        if (status !== 202) tally.fail(`notifications/initialized: HTTP ${status} ${body}`);
      },
    },
    {
      method: 'POST',
      setupRequest: (req, context) => {
        const ctx = context as Ctx;
        ctx.listId = nextId++;
        return { ...req, headers: sessionHeaders(ctx.sessionId), body: listToolsBody(ctx.listId) };
      },
      onResponse: (status, body, context) => {
        const ctx = context as Ctx;
        try {
          const tools = findResponse(body, ctx.listId!)?.result?.tools as { name: string }[] | undefined;
          if (status !== 200 || tools?.length !== 2 || !tools.some((t) => t.name === 'echo')) tally.fail(`tools/list: HTTP ${status} ${body}`);
        } catch (err) {
          tally.fail(`tools/list: ${(err as Error).message}: ${body}`);
        }
      },
    },
    {
      method: 'DELETE',
      setupRequest: (req, context) => {
        const ctx = context as Ctx;
        const headers = sessionHeaders(ctx.sessionId);
        delete headers['content-type'];
        return { ...req, headers, body: undefined };
      },
      onResponse: (status, body) => {
        if (status < 200 || status >= 300) tally.fail(`DELETE: HTTP ${status} ${body}`);
        else tally.pass();
      },
    },
  ];
  const result = await autocannon({ url: options.url, connections: options.connections, duration: options.durationS, sampleInt: 100, requests });
  if (result.errors || result.timeouts) tally.fail(`${result.errors} connection errors, ${result.timeouts} timeouts`);
  return { ...tally.counts, perSecond: tally.ok / result.duration };
}

/** Opens `count` initialized sessions, `concurrency` at a time; returns their ids (undefined for stateless servers). */
export async function openSessions(url: string, count: number, concurrency: number): Promise<(string | undefined)[]> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: concurrency });
  const ids: (string | undefined)[] = [];
  try {
    let next = 0;
    const worker = async () => {
      while (next < count) {
        next++;
        const id = nextId++;
        const init = await pool.request({ path: target.pathname, method: 'POST', headers: postHeaders(), body: initializeBody(id) });
        const body = await init.body.text();
        const sessionId = headerOf(init.headers, 'mcp-session-id');
        if (init.statusCode !== 200 || !findResponse(body, id)?.result) throw new Error(`initialize: HTTP ${init.statusCode} ${body.slice(0, 300)}`);
        const done = await pool.request({ path: target.pathname, method: 'POST', headers: sessionHeaders(sessionId), body: INITIALIZED_BODY });
        await done.body.text();
        if (done.statusCode !== 202) throw new Error(`notifications/initialized: HTTP ${done.statusCode}`);
        ids.push(sessionId);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    await pool.close();
  }
  return ids;
}

/** DELETEs the sessions (best effort: the server is stopped afterwards anyway). */
export async function closeSessions(url: string, ids: (string | undefined)[], concurrency: number): Promise<void> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: concurrency });
  try {
    let next = 0;
    const worker = async () => {
      while (next < ids.length) {
        const id = ids[next++];
        if (!id) continue;
        // No body, so no content-type: Fastify refuses an empty application/json body.
        const { 'content-type': _, ...headers } = sessionHeaders(id);
        const res = await pool.request({ path: target.pathname, method: 'DELETE', headers });
        await res.body.text();
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    await pool.close();
  }
}
