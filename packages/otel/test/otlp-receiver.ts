import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { metricsFromJson, metricsFromProtobuf, spansFromJson, spansFromProtobuf, type OtlpMetric, type OtlpSpan } from './otlp-wire';

/** One export request as it arrived. */
export interface OtlpRequest {
  path: string;
  contentType: string;
  body: Buffer;
}

/** An OTLP/HTTP collector on a loopback port that keeps every export request for the test to read. */
export interface OtlpReceiver {
  /** For OTEL_EXPORTER_OTLP_ENDPOINT: the exporters post to `${endpoint}/v1/traces` and `/v1/metrics`. */
  endpoint: string;
  requests: OtlpRequest[];
  /** Every span received so far, whichever the encoding. */
  spans(): OtlpSpan[];
  /** Every metric received so far, one entry per export. */
  metrics(): OtlpMetric[];
  close(): Promise<void>;
}

const JSON_TYPE = 'application/json';
const PROTOBUF_TYPE = 'application/x-protobuf';

function decodeWith<T>(request: OtlpRequest, json: (b: Buffer) => T[], protobuf: (b: Buffer) => T[]): T[] {
  if (request.contentType.startsWith(JSON_TYPE)) return json(request.body);
  if (request.contentType.startsWith(PROTOBUF_TYPE)) return protobuf(request.body);
  throw new Error(`unexpected content-type ${request.contentType} on ${request.path}`);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => {
      const body = Buffer.concat(chunks);
      resolve(req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body);
    });
    req.once('error', reject);
  });
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: OtlpRequest[] = [];
  const server = createServer((req, res) => {
    void readBody(req).then(
      (body) => {
        const contentType = req.headers['content-type'] ?? '';
        if (req.method === 'POST') requests.push({ path: req.url ?? '', contentType, body });
        // An empty export response: `{}` in JSON, no bytes in protobuf.
        res.writeHead(200, { 'content-type': contentType.startsWith(JSON_TYPE) ? JSON_TYPE : PROTOBUF_TYPE });
        res.end(contentType.startsWith(JSON_TYPE) ? '{}' : undefined);
      },
      () => res.destroy(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    spans: () => requests.filter((r) => r.path === '/v1/traces').flatMap((r) => decodeWith(r, spansFromJson, spansFromProtobuf)),
    metrics: () => requests.filter((r) => r.path === '/v1/metrics').flatMap((r) => decodeWith(r, metricsFromJson, metricsFromProtobuf)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls `read` until it returns something (not undefined or false), or fails after `timeoutMs` naming what it waited for. */
export async function waitFor<T>(read: () => T | undefined | false, what: string | (() => string), timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
