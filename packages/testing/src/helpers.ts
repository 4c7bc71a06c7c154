import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import { RpcError } from './test-client';

/** Awaits a request that should fail and returns its RpcError; throws if it succeeded or failed otherwise. */
export async function rpcErrorOf(promise: Promise<unknown>): Promise<RpcError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof RpcError) return err;
    throw new Error(`expected an RpcError, got ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`, { cause: err });
  }
  throw new Error('expected an RpcError, but the request succeeded');
}

/** A pino logger that keeps its lines in memory, parsed, so tests can read what the server logged. */
export function memoryLogger(level: pino.LevelWithSilent = 'debug'): { logger: Logger; lines: Record<string, any>[] } {
  const lines: Record<string, any>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level }, stream), lines };
}

/** Engine options with a logger that writes nothing: for tests that do not read the log. */
export const quietOptions = (): { logger: Logger } => ({ logger: pino({ level: 'silent' }) });
