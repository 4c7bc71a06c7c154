import type { Readable, Writable } from 'node:stream';
import { ErrorCode, createEngine, type EngineOptions, type Principal, type Servable } from '@mcpx/core';
import { ModernStream, STDIO_ORIGIN, encodeMessage, errorResponse, decodeMessage, type JsonRpcMessage, type MessageChannel, type ParsedMessage } from '@mcpx/core/transport';
import { LineReader } from './line-reader';
import { LineWriter } from './line-writer';
import { PROGRESS_PING_TIMEOUT_MS, ProgressBarrier } from './progress-barrier';
import { ProgressGap } from './progress-gap';
import { ProgressChannel } from './progress-channel';
import { ENGINE_OPTION_KEYS, checkOptions, compileCacheStatus, envFlag, optionKeys, startOtelFor, type OtelHandle } from '@mcpx/core/transport';
import { redirectStdout } from './guard-stdout';

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
  /**
   * Sends everything else written to process.stdout (console.log, console.info, console.debug,
   * console.dir, console.table..., and process.stdout.write by your code or a library) to stderr
   * while the session is open, so that it cannot corrupt the protocol stream; restored on close.
   * Default: true when `output` is process.stdout.
   */
  redirectStdout?: boolean;
  /**
   * A response to a request that reported progress is written once the client has answered a
   * `ping` written after that progress, so that it never reaches the client in the same read (the
   * official SDK client drops a progress notification that arrives with its response; see
   * ProgressBarrier). This is how long to wait at most for the answer, in ms (default 1000);
   * 0 sends no ping and answers at once. 2025-11-25 only: in 2026-07-28 the server writes no
   * requests to stdout, and a response simply follows its progress on the one writer.
   */
  progressPingTimeoutMs?: number;
  /**
   * Starts the OpenTelemetry Node SDK with OTLP traces and metrics, configured by the standard
   * `OTEL_*` variables (docs/observability.md); nothing of it is written to stdout. Messages are
   * read once it is on, and it is flushed when the session closes. Needs @mcpx/otel. Default:
   * MCPX_OTEL (`1` or `true`).
   */
  otel?: boolean;
}

/** Every key serveStdio() takes: the engine's and its own. */
const STDIO_OPTION_KEYS = optionKeys<StdioOptions>()(
  ...ENGINE_OPTION_KEYS,
  'input',
  'output',
  'maxMessageBytes',
  'exitProcess',
  'drainTimeoutMs',
  'principal',
  'redirectStdout',
  'progressPingTimeoutMs',
  'otel',
);

export interface StdioServer {
  /** Resolves when the input has ended and the session is closed. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** A request whose progress the client may be waiting for. */
function hasProgressToken(parsed: ParsedMessage): boolean {
  if (parsed.kind !== 'request') return false;
  const meta = parsed.message.params?._meta;
  return typeof meta === 'object' && meta !== null && (meta as { progressToken?: unknown }).progressToken !== undefined;
}

/**
 * Serves one session over newline-delimited JSON-RPC: messages in on `input`, out on `output`.
 * Logs go to the engine's pino logger (stderr by default), never to `output`.
 */
export function serveStdio(target: Servable, options: StdioOptions = {}): StdioServer {
  checkOptions('serveStdio()', options, STDIO_OPTION_KEYS);
  const engine = createEngine(target, options);
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const exitProcess = options.exitProcess ?? input === process.stdin;
  const maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;

  // Stray stdout output goes to stderr; the protocol keeps stdout's own write.
  const redirect = (options.redirectStdout ?? output === process.stdout) ? redirectStdout() : undefined;
  const realWrite = redirect && output === process.stdout ? redirect.realWrite : undefined;
  let open = true;
  const writer = new LineWriter(output, realWrite ? (chunk) => void realWrite.call(output, chunk) : undefined);
  const encode = (message: JsonRpcMessage) => encodeMessage(message, (err) => session.logger.error({ err }, 'message could not be serialised'));
  const channel: MessageChannel = {
    get open() {
      return open;
    },
    send(message: JsonRpcMessage) {
      if (!open) return;
      const text = encode(message);
      if (text !== undefined) writer.write(text);
    },
  };
  const gap = new ProgressGap(writer);
  const barrier = new ProgressBarrier(writer, options.progressPingTimeoutMs ?? PROGRESS_PING_TIMEOUT_MS, (timeoutMs) =>
    session.logger.warn({ timeoutMs }, 'the client did not answer ping; answering without waiting until it does'),
  );
  const session = engine.createSession(channel, 'stdio', { principal: options.principal, origin: STDIO_ORIGIN });
  // Requests that claim a 2026-07-28 version in their _meta are served without the session: both eras share the stream.
  const modern = new ModernStream(engine, { principal: options.principal, origin: STDIO_ORIGIN });
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
      const parsed = decodeMessage(line, engine.messageLimits);
      if (parsed.kind === 'response' && barrier.answer(parsed.message.id)) return;
      if (parsed.kind === 'notification' && modern.cancel(parsed.message)) return;
      inFlight++;
      // 2026-07-28: the server writes no requests to stdout (no ping barrier); the one writer keeps progress before the response.
      if (ModernStream.isModern(parsed)) modern.receive(parsed.message, hasProgressToken(parsed) ? new ProgressChannel(channel, writer, gap, encode) : channel).then(settled, failed);
      else session.receive(parsed, hasProgressToken(parsed) ? new ProgressChannel(channel, writer, barrier, encode) : channel).then(settled, failed);
    },
    (bytes, id) => {
      session.logger.warn({ bytes, limit: maxBytes, id }, 'message over the size limit; skipped');
      // The id the line's bounded scan found, so that the client can match the error to its request.
      channel.send(errorResponse(id, ErrorCode.InvalidRequest, `Message too large: ${bytes} bytes exceeds the limit of ${maxBytes} bytes`));
    },
  );

  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let closing: Promise<void> | undefined;

  const onData = (chunk: Buffer | string) => reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  const onEnd = () => void close();
  const read = () => {
    input.on('data', onData);
    input.on('end', onEnd);
  };
  // The process's exit code once closed: 1 when OpenTelemetry was asked for and could not start.
  let exitCode = 0;
  let otel: OtelHandle | undefined;
  if (options.otel ?? envFlag(process.env.MCPX_OTEL)) {
    // The first message is read once OpenTelemetry is on (the input waits meanwhile), so it is traced too.
    startOtelFor(engine, { otlp: true }, 'the otel option, MCPX_OTEL').then(
      (handle) => {
        otel = handle;
        if (closing) void handle.shutdown().catch((err: unknown) => session.logger.error({ err }, 'OpenTelemetry did not shut down cleanly'));
        else read();
      },
      (err: unknown) => {
        session.logger.error({ err }, 'OpenTelemetry could not start');
        exitCode = 1;
        void close();
      },
    );
  } else read();
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
      // No ping can be answered any more: responses held for one go now, later ones at once.
      barrier.close();
      // Subscriptions would hold the drain open: the server ends them, each with its complete result.
      modern.endSubscriptions();
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
      modern.close();
      session.close();
      writer.flush();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await new Promise<void>((resolve) => (output.writableNeedDrain && !output.destroyed ? output.once('drain', resolve) : resolve()));
      // The last spans and metrics (the session's duration among them) are exported before the process goes.
      await otel?.shutdown().catch((err: unknown) => session.logger.error({ err }, 'OpenTelemetry did not shut down cleanly'));
      redirect?.restore();
      engine.logger.flush?.();
      resolveClosed();
      if (exitProcess) process.exit(exitCode);
    })();
    return closing;
  }

  session.logger.info('serving over stdio');
  if (session.logger.isLevelEnabled('debug')) session.logger.debug({ compileCache: compileCacheStatus() }, 'compile cache');
  return { closed, close };
}
