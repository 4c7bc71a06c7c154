/**
 * childLogger / extendLogger: a request's logger extended by the engine (a trace's ids, ctx.log's
 * request id, a task's id) stays one child of the server's logger, however often it is extended,
 * and each key is written once a line.
 */
import pino from 'pino';
import { Writable } from 'node:stream';
import { boundBy, childLogger, extendLogger } from '../src/context/logger-lineage';

function rawLogger(level: pino.Level = 'info') {
  const text: string[] = [];
  const logger = pino({ level }, new Writable({ write: (chunk, _encoding, done) => (text.push(...String(chunk).split('\n').filter(Boolean)), done()) }));
  return { logger, text };
}
/** How often `key` appears in one raw JSON line (JSON.parse would hide a duplicate). */
const occurrences = (line: string, key: string) => line.split(`"${key}":`).length - 1;

describe('logger lineage', () => {
  it('extends a remembered child as one child of its parent, with both bindings', () => {
    const { logger, text } = rawLogger();
    const request = childLogger(logger, { reqId: 'r1', remoteAddress: '127.0.0.1' });
    const traced = extendLogger(request, { trace_id: 't', span_id: 's' });
    const handler = extendLogger(traced, { requestId: 7, trace_id: 't', span_id: 's' });
    for (const made of [request, traced, handler]) expect(Object.getPrototypeOf(made)).toBe(logger);
    handler.info('hello');
    expect(text).toHaveLength(1);
    expect(JSON.parse(text[0]!)).toMatchObject({ reqId: 'r1', remoteAddress: '127.0.0.1', trace_id: 't', span_id: 's', requestId: 7, msg: 'hello' });
    for (const key of ['reqId', 'remoteAddress', 'trace_id', 'span_id', 'requestId']) expect(occurrences(text[0]!, key)).toBe(1);
  });

  it('writes a key bound on both sides once, with the later value', () => {
    const { logger, text } = rawLogger();
    extendLogger(childLogger(logger, { who: 'first' }), { who: 'second' }).info('x');
    expect(occurrences(text[0]!, 'who')).toBe(1);
    expect(JSON.parse(text[0]!).who).toBe('second');
  });

  it('keeps the options the first child was given (its level)', () => {
    const { logger, text } = rawLogger('info');
    const quiet = childLogger(logger, { reqId: 'r2' }, { level: 'warn' });
    const extended = extendLogger(quiet, { requestId: 1 });
    extended.info('dropped');
    extended.warn('kept');
    expect(text.map((line) => JSON.parse(line).msg)).toEqual(['kept']);
  });

  it('makes a plain child of a logger it did not make', () => {
    const { logger } = rawLogger();
    const own = logger.child({ mine: true });
    const extended = extendLogger(own, { requestId: 2 });
    expect(Object.getPrototypeOf(extended)).toBe(own);
    expect(boundBy(extended, 'requestId')).toBeUndefined();
  });

  it('tells what it bound, and nothing for other values', () => {
    const { logger } = rawLogger();
    expect(boundBy(childLogger(logger, { remoteAddress: '::1' }), 'remoteAddress')).toBe('::1');
    expect(boundBy(logger, 'remoteAddress')).toBeUndefined();
    expect(boundBy(undefined, 'remoteAddress')).toBeUndefined();
    expect(boundBy({ isLevelEnabled: () => true }, 'remoteAddress')).toBeUndefined();
  });
});
