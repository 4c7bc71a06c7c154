import type { Readable, Writable } from 'node:stream';
import { ErrorCode, createEngine, encodeMessage, errorResponse, parseMessage, type EngineOptions, type JsonRpcMessage, type MessageChannel, type Principal, type Servable } from '@mcpx/core';
import { LineReader } from './line-reader';
import { LineWriter } from './line-writer';

export interface StdioOptions extends EngineOptions {
  /** Defaults to process.stdin. */
  input?: Readable;
  /** Defaults to process.stdout. Nothing but protocol messages is ever written here. */
  output?: Writable;
  /** The largest message accepted, in bytes (default 4 MiB); a longer line is answered with an error and skipped. */
  maxMessageBytes?: number;
  /** Exit the process when the input ends or on SIGINT/SIGTERM (default: true when serving process.stdin). */
  exitProcess?: boolean;
  /** How long requests already read may run on after the input ends or a signal arrives (default 2 s). */
  drainTimeoutMs?: number;
  /**
   * Who the session acts for. stdio has no OAuth (credentials come from the environment), but a
   * configured principal makes the entries' scopes apply, and handlers see it as ctx.principal.
   */
  principal?: Principal;
}

export interface StdioServer {
  /** Resolves when the input has ended and the session is closed. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * Serves one session over newline-delimited JSON-RPC: messages in on `input`, out on `output`.
 * Logs go to the engine's pino logger (stderr by default), never to `output`.
 */
export function serveStdio(target: Servable, options: StdioOptions = {}): StdioServer {
  const engine = createEngine(target, options);
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const exitProcess = options.exitProcess ?? input === process.stdin;
  const maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;

  let open = true;
  const writer = new LineWriter(output);
  const channel: MessageChannel = {
    get open() {
      return open;
    },
    send(message: JsonRpcMessage) {
      if (!open) return;
      const text = encodeMessage(message, (err) => session.logger.error({ err }, 'message could not be serialised'));
      if (text !== undefined) writer.write(text);
    },
  };
  const session = engine.createSession(channel, 'stdio', { principal: options.principal });
  // Messages being handled, and who waits for them all to finish (close).
  let inFlight = 0;
  let onIdle: (() => void) | undefined;
  const settled = () => {
    if (--inFlight === 0) onIdle?.();
  };
  const failed = (err: unknown) => {
    session.logger.error({ err }, 'stdio message failed');
    settled();
  };

  const reader = new LineReader(
    maxBytes,
    (line) => {
      inFlight++;
      session.receive(parseMessage(line), channel).then(settled, failed);
    },
    (bytes) => {
      session.logger.warn({ bytes, limit: maxBytes }, 'message over the size limit; skipped');
      channel.send(errorResponse(null, ErrorCode.InvalidRequest, `Message too large: ${bytes} bytes exceeds the limit of ${maxBytes} bytes`));
    },
  );

  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let closing: Promise<void> | undefined;

  const onData = (chunk: Buffer | string) => reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  const onEnd = () => void close();
  input.on('data', onData);
  input.on('end', onEnd);
  input.on('error', (err) => {
    session.logger.error({ err }, 'stdin error');
    void close();
  });
  // The client closed its end of stdout (EPIPE): nothing more can be written, so the session ends
  // instead of the process dying of an unhandled 'error' event.
  const onOutputError = (err: Error) => {
    if (open) session.logger.warn({ err }, 'stdout error; closing');
    open = false;
    void close();
  };
  output.on('error', onOutputError);

  const onSignal = (signal: NodeJS.Signals) => {
    session.logger.info({ signal }, 'stopping');
    void close();
  };
  if (exitProcess) {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }

  async function close(): Promise<void> {
    closing ??= (async () => {
      reader.end();
      input.off('data', onData);
      input.off('end', onEnd);
      // Requests already read get a little time to answer; then the session is closed and they are aborted.
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, options.drainTimeoutMs ?? 2000);
        timer.unref();
      });
      const idle = inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => (onIdle = resolve));
      await Promise.race([idle, deadline]);
      clearTimeout(timer);
      open = false;
      session.close();
      writer.flush();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await new Promise<void>((resolve) => (output.writableNeedDrain && !output.destroyed ? output.once('drain', resolve) : resolve()));
      engine.logger.flush?.();
      resolveClosed();
      if (exitProcess) process.exit(0);
    })();
    return closing;
  }

  session.logger.info('serving over stdio');
  return { closed, close };
}
