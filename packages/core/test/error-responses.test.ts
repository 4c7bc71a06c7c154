import pino from 'pino';
import { Writable } from 'node:stream';
import { errorResponseFor } from '../src/context/error-responses';
import { ClusterUnavailableError } from '../src/exports/stores';

/** A handler's error as the client sees it, and as the log keeps it. */
function logged() {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(JSON.parse(chunk.toString()) as { level: number; msg: string }), done()) });
  return { logger: pino({ level: 'trace' }, stream), lines };
}

it('tells the client to retry when the shared store is away, and logs it as a warning', () => {
  const { logger, lines } = logged();
  const response = errorResponseFor(7, 'tasks/get', new ClusterUnavailableError('Redis is unavailable: The client is offline'), logger);
  expect(response).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'Service unavailable: the shared store cannot be reached; retry shortly' } });
  expect(lines).toMatchObject([{ level: 40, msg: 'request failed: the shared store is unavailable' }]);
});

it('hides any other failure behind -32603 and logs it as an error', () => {
  const { logger, lines } = logged();
  expect(errorResponseFor('a', 'tools/call', new Error('secret detail'), logger)).toEqual({
    jsonrpc: '2.0',
    id: 'a',
    error: { code: -32603, message: 'Internal error while handling tools/call' },
  });
  expect(lines).toMatchObject([{ level: 50, msg: 'request failed' }]);
});
