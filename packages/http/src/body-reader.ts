import type { IncomingMessage } from 'node:http';
import { errorCodes, type FastifyRequest } from 'fastify';
import { RequestIdScanner, type RequestId } from '@mcpx/core/transport';

/** The most a body over the limit is read past it, looking for its request's id. */
const MAX_ID_SCAN_BYTES = 64 * 1024 * 1024;

/** How far past `maxBodyBytes` a body over it is scanned for its id: 4 times the limit, 64 MiB at most. */
export function idScanBytes(maxBodyBytes: number): number {
  return Math.min(4 * maxBodyBytes, MAX_ID_SCAN_BYTES);
}

/**
 * A body over `maxBodyBytes` (answered 413): Fastify's own error for a body too large, with the
 * request's top-level `id` when the bounded scan of its bytes found one.
 */
export type BodyTooLarge = Error & { code: 'FST_ERR_CTP_BODY_TOO_LARGE'; requestId?: RequestId };

function bodyTooLarge(requestId: RequestId | undefined): BodyTooLarge {
  return Object.assign(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(), { requestId }) as BodyTooLarge;
}

type Done = (err: Error | null, body?: Buffer) => void;
/** The body stream: the request itself, or what a preParsing hook made of it (which may count the bytes it decoded). */
type Payload = IncomingMessage & { receivedEncodedLength?: number };

/**
 * A Fastify content type parser that reads the body as bytes, as `parseAs: 'buffer'` with
 * `bodyLimit` does: chunks are kept up to `maxBodyBytes`, and a body that matches its
 * Content-Length is handed over as one Buffer. A body over the limit (or announced over it) is not
 * kept: the rest of it is read, up to `scanBytes` more, only to find the request's id for the
 * 413's JSON-RPC error (BodyTooLarge); bytes left unread close the connection (Fastify sends
 * `connection: close` with any parser error).
 */
export function bodyParser(maxBodyBytes: number, scanBytes = idScanBytes(maxBodyBytes)): (request: FastifyRequest, payload: IncomingMessage, done: Done) => void {
  return (request, raw, done) => {
    const payload = raw as Payload;
    const contentLength = Number(request.headers['content-length']);
    let chunks: Buffer[] = [];
    let received = 0;
    // Set once the body is over the limit: from then on its bytes are only scanned.
    let scanner = contentLength > maxBodyBytes ? new RequestIdScanner(maxBodyBytes + scanBytes) : undefined;

    const stop = () => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onEnd);
    };
    const tooLarge = (id: RequestId | undefined) => {
      stop();
      // Nothing more is read: the 413 goes out now, and the connection closes after it.
      payload.pause();
      done(bodyTooLarge(id));
    };

    function onData(data: Buffer | string): void {
      // A preParsing stream may emit strings.
      const chunk = typeof data === 'string' ? Buffer.from(data) : data;
      if (scanner) {
        if (scanner.push(chunk)) tooLarge(scanner.result());
        return;
      }
      received += chunk.length;
      // The decoded body must stay under the limit, and so must what was received to make it.
      if (received > maxBodyBytes || (payload.receivedEncodedLength ?? 0) > maxBodyBytes) {
        scanner = new RequestIdScanner(maxBodyBytes + scanBytes);
        for (const kept of chunks) if (scanner.push(kept)) break;
        chunks = [];
        if (scanner.push(chunk)) tooLarge(scanner.result());
        return;
      }
      chunks.push(chunk);
    }

    function onEnd(err?: Error & { statusCode?: number }): void {
      stop();
      if (err != null) {
        if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
        return done(err);
      }
      if (scanner) return done(bodyTooLarge(scanner.result()));
      if (!Number.isNaN(contentLength) && (payload.receivedEncodedLength || received) !== contentLength) return done(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
      // Always a copy: never a view over the socket's read buffer.
      done(null, Buffer.concat(chunks, received));
    }

    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onEnd);
    payload.resume();
  };
}
