import type { FastifyReply } from 'fastify';
import { ErrorCode } from '@mcpx/core';
import { streamWriter, type SharedEventLog } from '@mcpx/core/stores';
import { encodeMessage, type RequestId } from '@mcpx/core/transport';
import { openConnection, type EndpointContext } from '../exchange';
import { sendHttpError } from '../http-errors';
import type { HttpSession } from '../http-session';

/** The standalone stream's id: every instance writes to it in the shared log. */
const STANDALONE = '0';

/**
 * GET without Last-Event-ID on a shared session: this connection follows the session's standalone
 * stream in the shared log, whichever instance writes to it. The first GET of a session gets what
 * was sent before it (a list change right after initialize); later ones start from now.
 */
export function followStandalone(ctx: EndpointContext, http: HttpSession, reply: FastifyReply): void {
  const first = !http.standaloneOpened;
  if (first) {
    http.standaloneOpened = true;
    void Promise.resolve(ctx.engine.cluster!.cluster.sessions.update(http.id, { standaloneOpened: true })).catch(ctx.onError);
  }
  follow(ctx, http, STANDALONE, first ? 0 : -1, reply, undefined);
}

/**
 * GET with Last-Event-ID for a stream this instance does not hold: the events stored after it,
 * then the ones its writer adds, until the stream ends. When the writer instance died first, the
 * client gets at once an error for the request the stream answered, instead of waiting for ever.
 */
export async function followShared(ctx: EndpointContext, http: HttpSession, streamId: string, afterSeq: number, reply: FastifyReply): Promise<unknown> {
  const log = ctx.store as SharedEventLog;
  const writer = streamWriter(streamId);
  if (writer !== undefined) {
    // Nothing to follow: never written, expired, or gone with its session.
    const known = await log.eventsAfter(http.id, streamId, Number.MAX_SAFE_INTEGER);
    if (!known) return sendHttpError(reply, 404, `Not Found: no stream to resume for Last-Event-ID ${JSON.stringify(`${streamId}_${afterSeq}`)}`);
  }
  follow(ctx, http, streamId, afterSeq, reply, writer);
  return undefined;
}

function follow(ctx: EndpointContext, http: HttpSession, streamId: string, afterSeq: number, reply: FastifyReply, writer: string | undefined): void {
  const log = ctx.store as SharedEventLog;
  const connection = openConnection(ctx, reply, { polling: false });
  let tail: { stop(): void } | undefined;
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    tail?.stop();
    unregister();
    connection.close();
  };
  const unregister = http.addFollower(stop);
  if (streamId === STANDALONE) http.standaloneFollowers++;
  reply.raw.once('close', () => {
    if (streamId === STANDALONE) http.standaloneFollowers--;
    stop();
  });
  tail = log.tail(
    http.id,
    streamId,
    afterSeq,
    {
      event: (event) => {
        const data = event.data ?? encodeMessage(event.message, ctx.onError);
        if (data !== undefined) connection.event(event.id, data);
      },
      ended: stop,
      unknown: stop,
      lost: (requestId: RequestId | undefined) => {
        if (requestId !== undefined) {
          const error = {
            jsonrpc: '2.0' as const,
            id: requestId,
            error: { code: ErrorCode.InternalError, message: 'The server instance serving this request stopped before it answered; send the request again' },
          };
          connection.event(undefined, JSON.stringify(error));
        }
        stop();
      },
    },
    writer,
  );
  if (stopped) tail.stop();
}
